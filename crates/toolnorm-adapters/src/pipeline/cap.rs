//! The cap on final output, when asked for: the output (or error) a call ends with is cut
//! to the cap, with the truncation flags and the full size.
//!
//! A long line was cut as it was read ([`Lines::cutting`](crate::read::lines::Lines)),
//! each over-long string kept to the cap plus [`MARGIN`]: the margin lets a secret that
//! straddles the cap be redacted whole before the cut here. The strings cut from the
//! lines are remembered ([`RecentCuts`]) and found again, by the end of what was kept,
//! in the output made from them, for the size the output had in full.

use std::collections::VecDeque;

use serde_json::Value;
use toolnorm::{JsonObject, ToolEvent, meta};

use crate::read::cut::Cut;

/// What a long line keeps of a string beyond the cap (64 KiB).
pub(crate) const MARGIN: usize = 64 * 1024;

/// How many cut strings are remembered, for an output made from a line read earlier.
const REMEMBERED: usize = 64;

/// The strings cut from the lines read lately.
#[derive(Debug, Default)]
pub(crate) struct RecentCuts {
    cuts: VecDeque<Cut>,
}

impl RecentCuts {
    /// Remembers the strings cut from a line.
    pub fn add(&mut self, cuts: Vec<Cut>) {
        for cut in cuts {
            if self.cuts.len() == REMEMBERED {
                self.cuts.pop_front();
            }
            self.cuts.push_back(cut);
        }
    }

    /// The bytes dropped from the string `text` was made from, 0 for none. The cut
    /// strings whose kept end is in `text` are candidates; best is one kept as `text` is
    /// (same size, same end: passed through), then one `text` ends with (something put
    /// before it), then any; among equals, the one that lost most. It is then forgotten.
    fn dropped_from(&mut self, text: &str) -> u64 {
        let bytes = text.as_bytes();
        let found = self
            .cuts
            .iter()
            .enumerate()
            .filter_map(|(at, cut)| {
                let tail = cut.tail.as_bytes();
                if tail.is_empty() {
                    return None;
                }
                let rank = if bytes.ends_with(tail) {
                    if cut.kept == bytes.len() as u64 { 2 } else { 1 }
                } else if memchr::memmem::find(bytes, tail).is_some() {
                    0
                } else {
                    return None;
                };
                Some((rank, cut.dropped(), at))
            })
            .max()
            .map(|(_, _, at)| at);
        found
            .and_then(|at| self.cuts.remove(at))
            .map_or(0, |cut| cut.dropped())
    }
}

/// The size of the text of an output, and whether it was cut.
#[derive(Default)]
struct Sizes {
    total: u64,
    cut: bool,
}

/// Cuts the output of a terminal event to `cap` bytes: each string of a completion's
/// output, and of a failure's message and details, longer than `cap` keeps its first
/// `cap` bytes (on a character boundary). When anything was cut, the truncation flags
/// for the call's metadata: `outputTotalBytes` is the size of the strings in full.
pub(crate) fn cut_final(
    event: &mut ToolEvent,
    cap: usize,
    recent: &mut RecentCuts,
) -> Option<JsonObject> {
    let mut sizes = Sizes::default();
    match event {
        ToolEvent::ToolCallCompleted(completed) => {
            // A text no longer than the cap holds no string longer than it.
            if let Some(output) = completed.output.as_mut()
                && output.raw_text().is_none_or(|text| text.len() > cap)
            {
                cut_value(output.to_mut(), cap, recent, &mut sizes);
            }
        }
        ToolEvent::ToolCallFailed(failed) => {
            cut_string(&mut failed.error.message, cap, recent, &mut sizes);
            if let Some(details) = failed.error.details.as_mut()
                && details.raw_text().is_none_or(|text| text.len() > cap)
            {
                cut_value(details.to_mut(), cap, recent, &mut sizes);
            }
        }
        _ => return None,
    }
    if !sizes.cut {
        return None;
    }
    let mut flags = JsonObject::new();
    flags.insert(meta::OUTPUT_TRUNCATED.into(), Value::Bool(true));
    flags.insert(meta::OUTPUT_TOTAL_BYTES.into(), sizes.total.into());
    flags.insert(meta::OUTPUT_CAP_BYTES.into(), cap.into());
    Some(flags)
}

fn cut_value(value: &mut Value, cap: usize, recent: &mut RecentCuts, sizes: &mut Sizes) {
    match value {
        Value::String(text) => cut_string(text, cap, recent, sizes),
        Value::Array(items) => {
            for item in items {
                cut_value(item, cap, recent, sizes);
            }
        }
        Value::Object(object) => {
            for item in object.values_mut() {
                cut_value(item, cap, recent, sizes);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn cut_string(text: &mut String, cap: usize, recent: &mut RecentCuts, sizes: &mut Sizes) {
    let len = text.len() as u64;
    if text.len() <= cap {
        sizes.total = sizes.total.saturating_add(len);
        return;
    }
    let dropped = recent.dropped_from(text);
    sizes.total = sizes.total.saturating_add(len).saturating_add(dropped);
    text.truncate(text.floor_char_boundary(cap));
    // A huge output's buffer is given back, not kept at its full size.
    text.shrink_to_fit();
    sizes.cut = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolnorm::{ToolCallCompleted, ToolCallFailed, ToolError};

    fn completed(output: Value) -> ToolEvent {
        ToolEvent::ToolCallCompleted(ToolCallCompleted {
            id: "c1".into(),
            output: Some(output.into()),
            input: None,
            title: None,
            elapsed_ms: None,
            at: None,
        })
    }

    #[test]
    fn cuts_strings_of_the_output_and_counts_what_the_reader_cut() {
        let mut recent = RecentCuts::default();
        recent.add(vec![Cut {
            tail: "ab".into(),
            kept: 8,
            total: 1000,
        }]);
        let mut event = completed(Value::String("ééab".into()));
        let flags = cut_final(&mut event, 3, &mut recent).unwrap();
        let ToolEvent::ToolCallCompleted(done) = &event else {
            unreachable!()
        };
        assert_eq!(done.output.as_deref(), Some(&Value::String("é".into())));
        assert_eq!(flags[meta::OUTPUT_TOTAL_BYTES], 6 + 992);
        assert_eq!(flags[meta::OUTPUT_CAP_BYTES], 3);
        assert_eq!(recent.cuts.len(), 0, "a cut is counted once");
        // Under the cap nothing changes and no flag is set.
        let mut small = completed(serde_json::json!({"text": "abc", "n": 1}));
        assert_eq!(cut_final(&mut small, 3, &mut recent), None);
    }

    #[test]
    fn the_cut_kept_as_the_output_is_is_the_one_counted() {
        let mut recent = RecentCuts::default();
        // A command that echoes the output lost more, but the output was not made from it.
        recent.add(vec![
            Cut {
                tail: "cdab".into(),
                kept: 9,
                total: 5000,
            },
            Cut {
                tail: "abcd".into(),
                kept: 8,
                total: 1000,
            },
        ]);
        let mut event = completed(Value::String("abcdabcd".into()));
        let flags = cut_final(&mut event, 2, &mut recent).unwrap();
        assert_eq!(flags[meta::OUTPUT_TOTAL_BYTES], 1000);
    }

    #[test]
    fn cuts_a_failure_message_and_details() {
        let mut recent = RecentCuts::default();
        let mut error = ToolError::new("0123456789");
        error.details = Some(serde_json::json!({"output": "abcdefgh", "exitCode": 2}).into());
        let mut event = ToolEvent::ToolCallFailed(ToolCallFailed {
            id: "c1".into(),
            error,
            input: None,
            title: None,
            elapsed_ms: None,
            at: None,
        });
        let flags = cut_final(&mut event, 4, &mut recent).unwrap();
        assert_eq!(flags[meta::OUTPUT_TOTAL_BYTES], 18);
        let ToolEvent::ToolCallFailed(failed) = &event else {
            unreachable!()
        };
        assert_eq!(failed.error.message, "0123");
        assert_eq!(
            failed.error.details.as_deref(),
            Some(&serde_json::json!({"output": "abcd", "exitCode": 2}))
        );
    }
}
