//! Recognising the dialect of a stream from its first lines.

use serde::Deserialize;

use crate::Dialect;

/// How many lines are read, at most, before giving up on detection.
pub const DETECTION_WINDOW: usize = 32;

/// Just enough of a line to tell the dialects apart.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<&'a str>,
}

/// The dialect one line belongs to, if it says.
pub fn detect_line(bytes: &[u8]) -> Option<Dialect> {
    let probe: Probe<'_> = serde_json::from_slice(bytes).ok()?;
    match probe.kind? {
        "toolCallStarted" | "inputUpdated" | "titleUpdated" | "metadataMerged"
        | "toolCallRunning" | "outputAppended" | "toolCallCompleted" | "toolCallFailed" => {
            Some(Dialect::Events)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_events_are_recognised() {
        assert_eq!(
            detect_line(br#"{"type":"toolCallRunning","id":"a"}"#),
            Some(Dialect::Events)
        );
        assert_eq!(detect_line(br#"{"type":"mystery"}"#), None);
        assert_eq!(detect_line(b"not json"), None);
    }
}
