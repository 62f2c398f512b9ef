//! Reading JSON lines, with diagnostics that say what is wrong with a bad line.

use std::sync::LazyLock;

use memchr::memmem;
use serde::Deserialize;

use crate::diagnostic::{Diagnostic, DiagnosticKind};

/// Why a line is not JSON at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// `InvalidJson`.
    pub kind: DiagnosticKind,
    /// What is wrong.
    pub message: String,
}

/// When `error` comes from the line not being JSON (rather than from a JSON value of the
/// wrong shape), says so; `None` means the line is JSON but not what was expected.
pub fn classify(bytes: &[u8], error: &serde_json::Error) -> Option<Invalid> {
    use serde_json::error::Category;
    match error.classify() {
        Category::Data => None,
        Category::Io | Category::Syntax | Category::Eof => {
            let message = if std::str::from_utf8(bytes).is_err() {
                "not valid UTF-8".to_owned()
            } else {
                format!(
                    "not valid JSON at column {}: {}",
                    error.column(),
                    without_position(error)
                )
            };
            Some(Invalid {
                kind: DiagnosticKind::InvalidJson,
                message,
            })
        }
    }
}

/// Whether a reading that keeps a value as its text refused a line with the message a
/// reading into a value gives (`before`): the same, but for a trailing comma in the kept
/// value, which serde_json's raw value reading tells as `expected value` (the line is not
/// JSON either way).
#[cfg(test)]
pub(crate) fn same_error(now: &str, before: &str) -> bool {
    now == before || (before == "trailing comma" && now == "expected value")
}

/// serde_json's message without its ` at line L column C` suffix (the caller names the line).
pub fn without_position(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match text.strip_suffix(&suffix) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

/// A diagnostic for JSON of the wrong shape: `what` names what was expected.
pub fn malformed(line: u64, what: &str, error: &serde_json::Error) -> Diagnostic {
    Diagnostic::at(
        line,
        DiagnosticKind::MalformedEvent,
        format!("{what}: {}", without_position(error)),
    )
}

/// Whether a reader that reads a line in one scan, its items in place, reads it so first
/// (else item by item); the tests turn that off, to check that both readings give the
/// same events and diagnostics.
#[cfg(read_one_scan)]
fn in_one_scan() -> bool {
    #[cfg(test)]
    if crate::read::scan_check::field_by_field() {
        return false;
    }
    true
}

/// A line read in one scan as `T`; `None` when it is not UTF-8, not JSON or not of `T`'s
/// shape (the reader then reads it field by field, which says what is wrong), and
/// whenever the tests turn the scans off, to check that both readings give the same.
#[cfg(read_scan_line)]
pub(crate) fn scan_line<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
    #[cfg(test)]
    if crate::read::scan_check::field_by_field() {
        return None;
    }
    serde_json::from_str(super::utf8::text(bytes)?).ok()
}

/// Why a scan gives up on a line (never shown: the line is read again, field by field).
#[cfg(read_scan)]
pub(crate) fn give_up<E: serde::de::Error>() -> E {
    E::custom("not of the shapes the scan reads")
}

/// A line as [`read_in_one_scan`] read it.
#[cfg(read_one_scan)]
pub(crate) enum OneScan<InPlace, Apart> {
    /// Read in one scan, its items in place.
    InPlace(InPlace),
    /// Read again with each item apart (as text, to be read one by one), since one of
    /// them, or the line, did not read in place.
    Apart(Apart),
}

/// Reads a line in one scan, its items in place (`InPlace`); a line one of whose items
/// does not read so, or that does not read at all, is read again with each item apart
/// (`Apart`), so that the reader can say what is wrong with which item and keep the
/// others. `what` names the line in the diagnostic of one that does not read even so.
#[cfg(read_one_scan)]
pub(crate) fn read_in_one_scan<'a, InPlace, Apart>(
    line: u64,
    bytes: &'a [u8],
    what: &str,
) -> Result<OneScan<InPlace, Apart>, Diagnostic>
where
    InPlace: Deserialize<'a>,
    Apart: Deserialize<'a>,
{
    if in_one_scan()
        && let Ok(read) = parse_line(line, bytes, "")
    {
        return Ok(OneScan::InPlace(read));
    }
    parse_line(line, bytes, what).map(OneScan::Apart)
}

/// No value: the `default` of an optional field of a generic type, which (unlike serde's
/// plain `default`) asks nothing of the type it holds.
#[cfg(read_one_scan)]
pub(crate) fn none<T>() -> Option<T> {
    None
}

/// Reads one line as `T`; a line that is not JSON, or not a `what`, becomes its diagnostic.
pub fn parse_line<'a, T: Deserialize<'a>>(
    line: u64,
    bytes: &'a [u8],
    what: &str,
) -> Result<T, Diagnostic> {
    // Checked as UTF-8 once, up front: reading from a `str`, serde_json then skips the
    // check it would otherwise make again for every string and raw value it borrows.
    let Some(text) = super::utf8::text(bytes) else {
        return Err(Diagnostic::at(
            line,
            DiagnosticKind::InvalidJson,
            "not valid UTF-8",
        ));
    };
    parse_text(line, text, what)
}

/// [`parse_line`] of a line already checked as UTF-8.
pub fn parse_text<'a, T: Deserialize<'a>>(
    line: u64,
    text: &'a str,
    what: &str,
) -> Result<T, Diagnostic> {
    serde_json::from_str(text).map_err(|error| match classify(text.as_bytes(), &error) {
        Some(invalid) => Diagnostic::at(line, invalid.kind, invalid.message),
        None => malformed(line, what, &error),
    })
}

/// The `type` of a JSON object that starts `{"type":"…"` (as toolnorm and most providers
/// write them), read without parsing the rest. `None` for any other object, and whenever
/// a full reading could disagree (an escape in the tag, another `"type"` further on): the
/// caller then reads the object.
pub fn leading_type(bytes: &[u8]) -> Option<&str> {
    /// The searcher for a second tag, built once (building one costs more than a search).
    static TYPE_KEY: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(br#""type""#));
    let rest = bytes.strip_prefix(br#"{"type":""#)?;
    let end = memchr::memchr(b'"', rest)?;
    let (tag, after) = rest.split_at(end);
    // An escape makes the text differ from its bytes, and a second `"type"` anywhere (a
    // repeated tag, or a nested key) needs the real parser: leave both to the full reading.
    if memchr::memchr(b'\\', tag).is_some() || TYPE_KEY.find(after).is_some() {
        return None;
    }
    std::str::from_utf8(tag).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_types() {
        assert_eq!(
            leading_type(br#"{"type":"toolCallRunning","id":"a"}"#),
            Some("toolCallRunning")
        );
        assert_eq!(
            leading_type(br#"{"id":"a","type":"toolCallRunning"}"#),
            None
        );
        assert_eq!(leading_type(br#"{ "type":"toolCallRunning"}"#), None);
        assert_eq!(leading_type(br#"{"type":"tool\u0043allRunning"}"#), None);
        assert_eq!(leading_type(br#"{"type":"toolCall"#), None);
        assert_eq!(leading_type(br#"{"type":"a","input":{"type":"b"}}"#), None);
    }
}
