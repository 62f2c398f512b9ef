//! A line that holds more than one JSON object (concatenated logs, an interrupted
//! write): read again as the objects it holds, when the adapter found no JSON value in it.

use super::{Core, Step};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects::detect_line;
use crate::read::glued;

impl Core {
    /// A line the adapter found no JSON value in, that holds several (see
    /// [`glued`]): its objects read one after the other, instead of the adapter's error.
    /// The number of events they made; `None` when the line is not of that sort. Only
    /// a line that made no event is read again, so nothing is applied twice.
    pub(super) fn read_glued(
        &mut self,
        line: u64,
        bytes: &[u8],
        on_step: &mut dyn FnMut(Step<'_>),
    ) -> Option<u64> {
        let not_json = |diagnostic: &Diagnostic| {
            diagnostic.kind == DiagnosticKind::InvalidJson && diagnostic.is_error()
        };
        if !self.diagnostics.iter().any(not_json) {
            return None;
        }
        let glued = glued::split(bytes)?;
        // After a cut-off start, an object is taken for an event only when it reads as
        // one of a known dialect: a line cut just after an inner object (a tool's input)
        // is only cut short.
        if glued.skipped > 0
            && glued
                .objects
                .first()
                .and_then(|first| detect_line(first))
                .is_none()
        {
            return None;
        }
        self.diagnostics
            .retain(|diagnostic| diagnostic.kind == DiagnosticKind::LoneSurrogate);
        let count = glued.objects.len();
        self.diagnostics.push(match glued.skipped {
            0 => Diagnostic::notice(
                line,
                DiagnosticKind::InvalidJson,
                format!("{count} JSON objects on one line (no newline between them), read one after the other"),
            ),
            skipped => Diagnostic::at(
                line,
                DiagnosticKind::InvalidJson,
                format!(
                    "its first {skipped} bytes are not a whole JSON object (a line cut short, the next written after it): lost; the {count} object(s) after them read"
                ),
            ),
        });
        Some(self.read(Some((line, bytes)), on_step, |adapter, facts| {
            for object in glued.objects {
                adapter.line(line, object, facts);
            }
        }))
    }
}
