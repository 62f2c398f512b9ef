//! `events`: the canonical event log, one event per line (replayable with `--provider
//! events`).

use std::io;

use super::format::FormatSpec;
use super::parts::json_line;
use super::writer::{FormatWriter, StepOut, WriterOptions};
use crate::pipeline::Step;

/// The row of `events`.
pub(crate) const FORMAT: FormatSpec = FormatSpec {
    name: "events",
    summary: "The canonical event log",
    needs_events: true,
    takes_session_id: false,
    sse: false,
    sse_terminator: None,
    for_people: false,
    make,
};

fn make(_: &WriterOptions) -> Box<dyn FormatWriter> {
    Box::new(Events)
}

/// The writer of `events`.
struct Events;

impl FormatWriter for Events {
    fn step(&mut self, step: &Step<'_>, out: &mut StepOut<'_>) -> io::Result<()> {
        if let Step::Applied {
            event: Some(event), ..
        } = step
        {
            json_line(out, event)?;
        }
        Ok(())
    }
}
