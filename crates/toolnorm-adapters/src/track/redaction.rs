//! The tracker's use of a [`Redactor`]: every event redacted as it is made, the count per
//! call in `metadata.redactions`, and streamed output held back until a secret split
//! over chunks can be seen whole.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use toolnorm::{JsonObject, MetadataMerged, ToolEvent, meta};

use crate::Redactor;

/// Streamed output is released up to its last line end (a secret does not span lines,
/// but for PEM blocks, which are held from `BEGIN` to `END`) or once this much is held.
const HOLD_LIMIT: usize = 64 * 1024;

/// The start of a PEM block, held until its end.
const PEM_BEGIN: &str = "-----BEGIN ";
/// The end of a PEM block.
const PEM_END: &str = "-----END ";

/// Redaction state of one stream.
#[derive(Debug)]
pub(crate) struct Redaction {
    redactor: Arc<Redactor>,
    /// Open call → secrets replaced in its events so far.
    counts: HashMap<String, u64>,
    /// Open call → streamed output not released yet.
    held: HashMap<String, String>,
}

impl Redaction {
    pub fn new(redactor: Arc<Redactor>) -> Self {
        Redaction {
            redactor,
            counts: HashMap::new(),
            held: HashMap::new(),
        }
    }

    /// The text redacted (for output a provider resends whole, redacted before it is
    /// compared with what streamed).
    pub fn redact_text<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        self.redactor.redact_text(text).0
    }

    /// The events to apply for `event`: none while its streamed chunk is held back, else
    /// the event redacted, after a `metadataMerged` of the call's new count when it had
    /// secrets (for a start, the count goes in its own metadata). `redacted` says the
    /// event's chunk was redacted already (and is not held back).
    pub fn prepare(&mut self, mut event: ToolEvent, redacted: bool) -> Vec<ToolEvent> {
        let id = event.id().to_owned();
        let found = match &mut event {
            ToolEvent::OutputAppended(appended) if redacted => {
                appended.chunk.matches("[REDACTED:").count() as u64
            }
            ToolEvent::OutputAppended(appended) => {
                let held = self.held.entry(id.clone()).or_default();
                held.push_str(&appended.chunk);
                let cut = release_point(held);
                if cut == 0 {
                    return Vec::new();
                }
                appended.chunk = held.drain(..cut).collect();
                u64::from(self.redactor.redact_event(&mut event))
            }
            ToolEvent::ToolCallCompleted(_) | ToolEvent::ToolCallFailed(_) => {
                self.held.remove(&id);
                u64::from(self.redactor.redact_event(&mut event))
            }
            _ => u64::from(self.redactor.redact_event(&mut event)),
        };
        let terminal = matches!(
            event,
            ToolEvent::ToolCallCompleted(_) | ToolEvent::ToolCallFailed(_)
        );
        let total = match found {
            0 => None,
            found => {
                let count = self.counts.entry(id.clone()).or_default();
                *count += found;
                Some(*count)
            }
        };
        if terminal {
            self.counts.remove(&id);
        }
        let Some(total) = total else {
            return vec![event];
        };
        if let ToolEvent::ToolCallStarted(started) = &mut event {
            started
                .metadata
                .get_or_insert_with(JsonObject::new)
                .insert(meta::REDACTIONS.into(), Value::from(total));
            return vec![event];
        }
        let mut metadata = JsonObject::new();
        metadata.insert(meta::REDACTIONS.into(), Value::from(total));
        let count = MetadataMerged {
            id,
            metadata,
            at: None,
        };
        vec![count.into(), event]
    }
}

impl Redaction {
    /// The output still held back for open calls, redacted: it goes out at the end of
    /// the stream (a call that never ended keeps all it streamed).
    pub fn take_held(&mut self) -> Vec<(String, String)> {
        let mut held: Vec<(String, String)> = self
            .held
            .drain()
            .filter(|(_, text)| !text.is_empty())
            .map(|(id, text)| {
                let redacted = self.redactor.redact_text(&text).0.into_owned();
                (id, redacted)
            })
            .collect();
        held.sort();
        held
    }
}

/// How much of the held output can go: up to its last line end, but not into a PEM block
/// that has not ended; everything once the hold is over [`HOLD_LIMIT`].
fn release_point(held: &str) -> usize {
    if held.len() >= HOLD_LIMIT {
        return held.len();
    }
    let open_block = held
        .rfind(PEM_BEGIN)
        .filter(|begin| !held[*begin..].contains(PEM_END));
    let searched = match open_block {
        Some(begin) => &held[..begin],
        None => held,
    };
    searched.rfind('\n').map_or(0, |end| end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_goes_by_whole_lines_and_pem_blocks_whole() {
        assert_eq!(release_point("no line end yet"), 0);
        assert_eq!(release_point("one\ntwo"), 4);
        assert_eq!(
            release_point("a\n-----BEGIN RSA PRIVATE KEY-----\nMII\n"),
            2
        );
        let ended = "a\n-----BEGIN RSA PRIVATE KEY-----\nMII\n-----END RSA PRIVATE KEY-----\n";
        assert_eq!(release_point(ended), ended.len());
        assert_eq!(release_point(&"x".repeat(HOLD_LIMIT)), HOLD_LIMIT);
    }
}
