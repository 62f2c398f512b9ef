//! The canonical event log as an input dialect: one `ToolEvent` per line.

use toolnorm::ToolEvent;

use crate::adapter::{Adapter, Emitted};
use crate::{Dialect, json};

/// Reads toolnorm's own event log (what `--format events` writes).
#[derive(Debug, Default)]
pub struct EventLogAdapter;

impl Adapter for EventLogAdapter {
    fn dialect(&self) -> Dialect {
        Dialect::Events
    }

    fn line(&mut self, line: u64, bytes: &[u8], out: &mut Emitted) {
        match json::parse_line::<ToolEvent>(line, bytes, "not a toolnorm event") {
            Ok(event) => out.event(line, event),
            Err(diagnostic) => out.diagnostic(diagnostic),
        }
    }
}
