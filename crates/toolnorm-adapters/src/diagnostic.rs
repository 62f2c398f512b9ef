//! Diagnostics: what could not be used from the input, and why, by line.

use std::fmt;

/// What kind of problem a diagnostic reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The line is not valid JSON (or not valid UTF-8).
    InvalidJson,
    /// A string holds a lone UTF-16 surrogate (`\ud83d` without its other half), read as
    /// U+FFFD.
    LoneSurrogate,
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
            DiagnosticKind::LoneSurrogate => "lone-surrogate",
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

    /// Every kind, in declaration order.
    pub const ALL: &[DiagnosticKind] = &[
        DiagnosticKind::InvalidJson,
        DiagnosticKind::LoneSurrogate,
        DiagnosticKind::TruncatedLine,
        DiagnosticKind::UnknownEvent,
        DiagnosticKind::MalformedEvent,
        DiagnosticKind::ForeignDialect,
        DiagnosticKind::UndetectedDialect,
        DiagnosticKind::Rejected,
        DiagnosticKind::UnknownCall,
        DiagnosticKind::Io,
    ];

    /// The kind named `name` ([`as_str`](Self::as_str)), e.g. from a stored diagnostic.
    pub fn from_name(name: &str) -> Option<DiagnosticKind> {
        DiagnosticKind::ALL
            .iter()
            .copied()
            .find(|kind| kind.as_str() == name)
    }
}

/// How much a diagnostic matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Severity {
    /// A well-formed event this version does not know, which carries no tool call by
    /// its envelope (a new session or account message, say): nothing was lost, but the
    /// dialect has grown. Also a lone UTF-16 surrogate read as U+FFFD. `toolnorm
    /// normalize --deny-unknown` fails on these.
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

    /// The severity named `name` (`error` or `notice`).
    pub fn from_name(name: &str) -> Option<Severity> {
        [Severity::Error, Severity::Notice]
            .into_iter()
            .find(|severity| severity.as_str() == name)
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

/// The message for an input of which no line is an event toolnorm reads, given the start
/// of the input (`head`) and how a caller names a dialect (`` `--provider` `` for the
/// command, `` `provider=` `` for a binding). An input that looks like one JSON document
/// over several lines is told so.
pub fn unrecognized_input(head: &[u8], name_a_dialect: &str) -> String {
    let dialects: Vec<String> = crate::Dialect::all()
        .map(|dialect| format!("`{dialect}`"))
        .collect();
    let mut message = format!(
        "no line is an event toolnorm reads: expected JSON Lines (one JSON event per line) \
         of one of {} ({name_a_dialect} names one)",
        dialects.join(", ")
    );
    if is_multi_line_json(head) {
        message.push_str(
            "; this looks like one JSON document over several lines, read as one event, but \
             it is an event of none of these (input is JSON Lines, one event per line, which \
             `jq -c` writes, or one indented document such as `opencode export` prints)",
        );
    }
    message
}

/// [`unrecognized_input`], and, when dialects claimed lines of the input but understood
/// none of them ([`Normalizer::rejected`](crate::Normalizer::rejected)), that its lines
/// looked like theirs: a file of an agent toolnorm does not read.
pub(crate) fn unrecognized_input_rejecting(
    head: &[u8],
    name_a_dialect: &str,
    rejected: &[crate::Dialect],
) -> String {
    let mut message = unrecognized_input(head, name_a_dialect);
    if !rejected.is_empty() {
        let names: Vec<String> = rejected
            .iter()
            .map(|dialect| format!("`{dialect}`"))
            .collect();
        message.push_str(&format!(
            "; some lines look like events of {}, but none of the first lines is one it \
             reads (a file of another agent?)",
            names.join(" or ")
        ));
    }
    message
}

/// Whether `head` starts with a JSON document that spans several lines (pretty-printed
/// JSON rather than JSON Lines), or looks like the start of one.
fn is_multi_line_json(head: &[u8]) -> bool {
    let text = head.trim_ascii_start();
    let mut values =
        serde_json::Deserializer::from_slice(text).into_iter::<serde::de::IgnoredAny>();
    match values.next() {
        Some(Ok(_)) => text
            .get(..values.byte_offset())
            .is_some_and(|value| value.contains(&b'\n')),
        // Cut short (the head is only the start of the input): a first line that only
        // opens an object or array.
        Some(Err(error)) if error.is_eof() => {
            let first = text.split(|&byte| byte == b'\n').next().unwrap_or_default();
            matches!(first.trim_ascii(), b"{" | b"[")
        }
        _ => false,
    }
}

#[cfg(test)]
mod names {
    use super::*;

    #[test]
    fn every_kind_and_severity_is_found_by_its_name() {
        for kind in DiagnosticKind::ALL {
            assert_eq!(DiagnosticKind::from_name(kind.as_str()), Some(*kind));
            // A kind added to the enum and not to ALL fails to compile here.
            match kind {
                DiagnosticKind::InvalidJson
                | DiagnosticKind::LoneSurrogate
                | DiagnosticKind::TruncatedLine
                | DiagnosticKind::UnknownEvent
                | DiagnosticKind::MalformedEvent
                | DiagnosticKind::ForeignDialect
                | DiagnosticKind::UndetectedDialect
                | DiagnosticKind::Rejected
                | DiagnosticKind::UnknownCall
                | DiagnosticKind::Io => {}
            }
        }
        assert_eq!(DiagnosticKind::ALL.len(), 10);
        assert_eq!(DiagnosticKind::from_name("nope"), None);
        for severity in [Severity::Error, Severity::Notice] {
            assert_eq!(Severity::from_name(severity.as_str()), Some(severity));
        }
    }
}
