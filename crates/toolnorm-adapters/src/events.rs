//! The canonical event log as an input dialect: one `ToolEvent` per line.

use toolnorm::ToolEvent;

use crate::adapter::{Adapter, Emitted};
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::{Dialect, json};

/// Reads toolnorm's own event log (what `--format events` writes).
#[derive(Debug, Default)]
pub struct EventLogAdapter;

impl Adapter for EventLogAdapter {
    fn dialect(&self) -> Dialect {
        Dialect::Events
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Emitted) {
        match serde_json::from_slice::<ToolEvent>(bytes) {
            Ok(event) => out.event(line, event),
            Err(error) => out.diagnostic(match json::classify(bytes, &error) {
                Some(invalid) => Diagnostic::at(line, invalid.kind, invalid.message),
                None => Diagnostic::at(
                    line,
                    DiagnosticKind::MalformedEvent,
                    format!("not a toolnorm event: {error}"),
                ),
            }),
        }
    }
}
