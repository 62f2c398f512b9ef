//! Reading JSON lines, with diagnostics that say what is wrong with a bad line.

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

/// Reads one line as `T`; a line that is not JSON, or not a `what`, becomes its diagnostic.
pub fn parse_line<'a, T: Deserialize<'a>>(
    line: u64,
    bytes: &'a [u8],
    what: &str,
) -> Result<T, Diagnostic> {
    serde_json::from_slice(bytes).map_err(|error| match classify(bytes, &error) {
        Some(invalid) => Diagnostic::at(line, invalid.kind, invalid.message),
        None => malformed(line, what, &error),
    })
}
