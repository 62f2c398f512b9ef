//! Diagnostics: what could not be used from the input, and why, by line.

use std::fmt;

/// What kind of problem a diagnostic reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The line is not valid JSON (or not valid UTF-8).
    InvalidJson,
    /// The input ended in the middle of a line.
    TruncatedLine,
    /// A JSON object of a type the dialect does not have.
    UnknownEvent,
    /// An event of a known type that lacks a field it needs, or has one of the wrong type.
    MalformedEvent,
    /// A line in a different dialect from the rest of the stream.
    ForeignDialect,
    /// The dialect could not be recognised from the first lines.
    UndetectedDialect,
    /// A canonical event did not apply to its call (the fold rejected it).
    Rejected,
    /// An event for a call that was never started.
    UnknownCall,
    /// Reading the input failed.
    Io,
}

impl DiagnosticKind {
    /// A short stable name, e.g. `invalid-json`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticKind::InvalidJson => "invalid-json",
            DiagnosticKind::TruncatedLine => "truncated-line",
            DiagnosticKind::UnknownEvent => "unknown-event",
            DiagnosticKind::MalformedEvent => "malformed-event",
            DiagnosticKind::ForeignDialect => "foreign-dialect",
            DiagnosticKind::UndetectedDialect => "undetected-dialect",
            DiagnosticKind::Rejected => "rejected",
            DiagnosticKind::UnknownCall => "unknown-call",
            DiagnosticKind::Io => "io",
        }
    }
}

/// One problem with the input. Shown as `line N: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The 1-based input line, when the problem is about one.
    pub line: Option<u64>,
    /// What kind of problem.
    pub kind: DiagnosticKind,
    /// What happened, for people.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic about one line.
    pub fn at(line: u64, kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Diagnostic {
            line: Some(line),
            kind,
            message: message.into(),
        }
    }

    /// A diagnostic about the input as a whole.
    pub fn general(kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Diagnostic {
            line: None,
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}
