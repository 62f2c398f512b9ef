//! `acp`: ACP `session/update` tool frames, one per line.

use std::io;

use super::AcpEmitter;
use crate::emit::format::FormatSpec;
use crate::emit::writer::{FormatWriter, StepOut, WriterOptions};
use crate::pipeline::Step;

/// The row of `acp`.
pub(crate) const FORMAT: FormatSpec = FormatSpec {
    name: "acp",
    summary: "ACP `session/update` tool frames (`tool_call`, then `tool_call_update`s)",
    needs_events: false,
    takes_session_id: true,
    sse: false,
    sse_terminator: None,
    for_people: false,
    make,
};

fn make(options: &WriterOptions) -> Box<dyn FormatWriter> {
    Box::new(AcpWriter(AcpEmitter::new(options.acp.clone())))
}

/// The writer of `acp`.
struct AcpWriter(AcpEmitter);

impl FormatWriter for AcpWriter {
    fn step(&mut self, step: &Step<'_>, out: &mut StepOut<'_>) -> io::Result<()> {
        if let Step::Applied { update, .. } = step {
            let view = update.call.part_view();
            self.0.write_line((&view).into(), out)?;
        }
        Ok(())
    }
}
