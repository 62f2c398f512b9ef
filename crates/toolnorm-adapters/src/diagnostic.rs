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

/// How much a diagnostic matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Severity {
    /// A well-formed event this version does not know, which carries no tool call by
    /// its envelope (a new session or account message, say): nothing was lost, but the
    /// dialect has grown. `toolnorm normalize --deny-unknown` fails on these.
    Notice,
    /// A line that could not be used and may carry tool data: not JSON, a tool event
    /// that does not fit, an event for a call that cannot be opened, a fold rejection.
    /// `toolnorm normalize --strict` fails on these.
    Error,
}

impl Severity {
    /// A short stable name: `error` or `notice`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Notice => "notice",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem with the input. Shown as `line N: message` (an error) or
/// `line N: notice: message` (a notice).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The 1-based input line, when the problem is about one.
    pub line: Option<u64>,
    /// What kind of problem.
    pub kind: DiagnosticKind,
    /// How much it matters.
    pub severity: Severity,
    /// What happened, for people.
    pub message: String,
}

impl Diagnostic {
    /// An error about one line.
    pub fn at(line: u64, kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Diagnostic {
            line: Some(line),
            kind,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    /// A notice about one line: a well-formed event this version does not know, which
    /// carries no tool call.
    pub fn notice(line: u64, kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Diagnostic::at(line, kind, message).with_severity(Severity::Notice)
    }

    /// An error about the input as a whole.
    pub fn general(kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Diagnostic {
            line: None,
            kind,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    /// The same diagnostic with `severity`.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Whether it is an error (not a notice).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        if self.severity == Severity::Notice {
            f.write_str("notice: ")?;
        }
        f.write_str(&self.message)
    }
}
