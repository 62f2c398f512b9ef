//! Deterministic OpenTelemetry ids: a session's trace id and each span id are the first
//! bytes of a SHA-256 of what names them, so exporting the same session again gives the
//! same ids (a collector that receives it twice sees the same spans).

use sha2::{Digest, Sha256};

/// A trace id (16 bytes).
pub(crate) type TraceId = [u8; 16];
/// A span id (8 bytes).
pub(crate) type SpanId = [u8; 8];

/// The trace of the session `key` names.
pub(crate) fn trace_id(key: &str) -> TraceId {
    nonzero(take(&digest(b"toolnorm trace", &[key.as_bytes()])))
}

/// The span of the call `id` in `trace`.
pub(crate) fn call_span_id(trace: &TraceId, id: &str) -> SpanId {
    nonzero(take(&digest(
        b"toolnorm call span",
        &[trace, id.as_bytes()],
    )))
}

/// The root span of the session whose trace is `trace`.
pub(crate) fn session_span_id(trace: &TraceId) -> SpanId {
    nonzero(take(&digest(b"toolnorm session span", &[trace])))
}

/// SHA-256 of `domain` and each of `fields`, each field preceded by its length (so that
/// no two lists of fields give the same bytes).
fn digest(domain: &[u8], fields: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(domain);
    for field in fields {
        hasher.update((field.len() as u64).to_be_bytes());
        hasher.update(field);
    }
    hasher.finalize().into()
}

/// The first `N` bytes of a digest.
fn take<const N: usize>(digest: &[u8; 32]) -> [u8; N] {
    digest.first_chunk::<N>().copied().unwrap_or([1; N])
}

/// An id of all zeros is invalid in OpenTelemetry: its last byte becomes 1.
fn nonzero<const N: usize>(mut id: [u8; N]) -> [u8; N] {
    if id.iter().all(|byte| *byte == 0)
        && let Some(last) = id.last_mut()
    {
        *last = 1;
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_told_apart() {
        let trace = trace_id("session-1");
        assert_eq!(trace, trace_id("session-1"));
        assert_ne!(trace, trace_id("session-2"));
        assert_eq!(call_span_id(&trace, "c1"), call_span_id(&trace, "c1"));
        assert_ne!(call_span_id(&trace, "c1"), call_span_id(&trace, "c2"));
        assert_ne!(
            call_span_id(&trace, "c1"),
            call_span_id(&trace_id("session-2"), "c1")
        );
        assert_ne!(session_span_id(&trace), call_span_id(&trace, ""));
        // The same bytes, fielded differently, are different ids.
        assert_ne!(digest(b"d", &[b"ab", b"c"]), digest(b"d", &[b"a", b"bc"]));
    }

    #[test]
    fn no_id_is_all_zeros() {
        assert_eq!(nonzero([0_u8; 8]), [0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(nonzero([0_u8, 2]), [0, 2]);
    }

    #[test]
    fn a_trace_id_is_pinned() {
        // Re-exports of an older toolnorm's output join the same traces: the derivation
        // does not change silently.
        let hex: String = trace_id("s").iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex.len(), 32);
        assert_eq!(hex, PINNED_TRACE_OF_S);
    }

    /// `trace_id("s")`, as first computed.
    const PINNED_TRACE_OF_S: &str = "290ef41ee1eca218f6bcf72d34f07fca";
}
