//! `updates`: one part snapshot per change, as it happens.

use std::io;

use super::format::FormatSpec;
use super::parts::part_line;
use super::writer::{FormatWriter, StepOut, WriterOptions};
use crate::pipeline::Step;

/// The row of `updates`.
pub(crate) const FORMAT: FormatSpec = FormatSpec {
    name: "updates",
    summary: "One part snapshot per change, as it happens",
    needs_events: false,
    takes_session_id: false,
    sse: false,
    sse_terminator: None,
    for_people: false,
    make,
};

fn make(_: &WriterOptions) -> Box<dyn FormatWriter> {
    Box::new(Updates)
}

/// The writer of `updates`.
struct Updates;

impl FormatWriter for Updates {
    fn step(&mut self, step: &Step<'_>, out: &mut StepOut<'_>) -> io::Result<()> {
        if let Step::Applied { update, .. } = step {
            part_line(out, &update.call.part_view())?;
        }
        Ok(())
    }
}
