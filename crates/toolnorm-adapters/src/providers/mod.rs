//! Providers: each dialect's wire format read into what happened to its tool calls.
//!
//! The adapter interface: one provider dialect's lines in, canonical events out.

pub(crate) mod acp;
pub(crate) mod claude_code;
pub(crate) mod codex;
pub(crate) mod event_log;
pub(crate) mod opencode;

use toolnorm::ToolEvent;

use crate::diagnostic::Diagnostic;

/// What an adapter produced for one line (or at the end of input).
#[derive(Debug, Default)]
pub struct Emitted {
    /// Canonical events, in order, each with the input line it came from.
    pub events: Vec<(u64, ToolEvent)>,
    /// Problems with the line; the line is never dropped without one.
    pub diagnostics: Vec<Diagnostic>,
}

impl Emitted {
    /// Adds an event from `line`.
    pub fn event(&mut self, line: u64, event: impl Into<ToolEvent>) {
        self.events.push((line, event.into()));
    }

    /// Adds a diagnostic.
    pub fn diagnostic(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }
}

/// Turns one provider dialect into canonical events, line by line.
///
/// An adapter keeps only what it needs to relate later lines to earlier ones (for
/// example which call ids it has started), never the whole stream.
pub trait Adapter {
    /// The dialect this adapter reads.
    fn dialect(&self) -> crate::Dialect;

    /// Reads one input line (without its newline).
    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Emitted);

    /// The input ended.
    fn finish(&mut self, _out: &mut Emitted) {}
}
