//! A payload's kept text: its own copy, or a range of the line it was read from, when
//! the line was handed over shared ([`read_sharing`]) and the payload is most of it.

use std::cell::RefCell;
use std::sync::Arc;

/// A payload shorter than this always copies its text (a line's small payloads are not
/// worth tying to the line).
pub(super) const SHARED_AT: usize = 64 * 1024;

thread_local! {
    /// The line [`read_sharing`] is reading on this thread.
    static LINE: RefCell<Option<Arc<String>>> = const { RefCell::new(None) };
}

/// A kept JSON text.
pub(super) enum Text {
    /// A copy of its own.
    Own(Box<str>),
    /// Bytes `start..end` of a line.
    Line {
        line: Arc<String>,
        start: usize,
        end: usize,
    },
}

impl Text {
    /// The text.
    pub(super) fn get(&self) -> &str {
        match self {
            Text::Own(text) => text,
            // The range was cut from a `&str` inside the line, so it always holds.
            Text::Line { line, start, end } => line.get(*start..*end).unwrap_or("null"),
        }
    }

    /// `text` read from the line being read shared, when it lies inside it and is at
    /// least half of it (so a line held for a payload is at most twice its size) and
    /// [`SHARED_AT`] long; else `None` (the caller copies).
    pub(super) fn in_line(text: &str) -> Option<Text> {
        if text.len() < SHARED_AT {
            return None;
        }
        LINE.with_borrow(|line| {
            let line = line.as_ref()?;
            let base = line.as_ptr() as usize;
            let start = (text.as_ptr() as usize).checked_sub(base)?;
            let end = start.checked_add(text.len())?;
            let inside = line.get(start..end).is_some();
            (inside && text.len().saturating_mul(2) >= line.len()).then(|| Text::Line {
                line: Arc::clone(line),
                start,
                end,
            })
        })
    }
}

/// Runs `read` on `line`. A payload `read` deserializes from that very text (through
/// `serde_json::from_str` or `from_slice` on it, which lend their strings) keeps a
/// reference to the line instead of a copy of its text, when it is at least half the
/// line and 64 KiB long: a huge tool output is then held once, in its line, from reading
/// to writing. Nested calls read their own line; the previous one is back after.
pub fn read_sharing<R>(line: &Arc<String>, read: impl FnOnce(&str) -> R) -> R {
    /// Puts the previous line back, even when `read` unwinds.
    struct Restore(Option<Arc<String>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            LINE.with_borrow_mut(|line| *line = previous);
        }
    }
    let previous = LINE.with_borrow_mut(|current| current.replace(Arc::clone(line)));
    let _restore = Restore(previous);
    read(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_large_texts_inside_the_line_are_shared() {
        let big = "x".repeat(SHARED_AT);
        let line = Arc::new(format!(r#"{{"a":"{big}"}}"#));
        read_sharing(&line, |text| {
            let inner = text.get(5..5 + big.len() + 2).unwrap();
            assert!(matches!(
                Text::in_line(inner),
                Some(Text::Line { start: 5, .. })
            ));
            assert_eq!(Text::in_line(inner).unwrap().get(), inner);
            // A copy of the same bytes is not in the line.
            let copy = String::from(inner);
            assert!(Text::in_line(&copy).is_none());
            // A short piece of the line is copied.
            assert!(Text::in_line(text.get(5..100).unwrap()).is_none());
        });
        // Outside the call, nothing is shared.
        assert!(Text::in_line(line.get(5..5 + big.len() + 2).unwrap()).is_none());
    }

    #[test]
    fn a_payload_under_half_its_line_is_copied() {
        let half = "y".repeat(SHARED_AT);
        let line = Arc::new(format!("[\"{half}\",\"{half}\",\"{half}\"]"));
        read_sharing(&line, |text| {
            assert!(Text::in_line(text.get(1..half.len() + 3).unwrap()).is_none());
            assert!(Text::in_line(text).is_some());
        });
    }

    #[test]
    fn the_previous_line_is_back_after_a_nested_read() {
        let outer = Arc::new("o".repeat(SHARED_AT));
        let inner = Arc::new("i".repeat(SHARED_AT));
        read_sharing(&outer, |outer_text| {
            read_sharing(&inner, |inner_text| {
                assert!(Text::in_line(inner_text).is_some());
                assert!(Text::in_line(outer_text).is_none());
            });
            assert!(Text::in_line(outer_text).is_some());
        });
    }
}
