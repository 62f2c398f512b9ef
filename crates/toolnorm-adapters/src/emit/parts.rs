//! `parts`: one `NormalizedToolPart` per line, one per call, written as soon as the call
//! is terminal; calls still open at the end come last, in first-seen order.

use std::io::{self, Write};

use toolnorm::{Fold, PartView};

use super::format::FormatSpec;
use super::json::Bytes;
use super::json_text;
use super::writer::{FormatWriter, StepOut, WriterOptions};
use crate::pipeline::Step;

/// The row of `parts`.
pub(crate) const FORMAT: FormatSpec = FormatSpec {
    name: "parts",
    summary: "One part per call, written when the call is terminal",
    needs_events: false,
    takes_session_id: false,
    sse: false,
    sse_terminator: None,
    for_people: false,
    make,
};

fn make(_: &WriterOptions) -> Box<dyn FormatWriter> {
    Box::new(Parts)
}

/// The writer of `parts`.
struct Parts;

impl FormatWriter for Parts {
    fn step(&mut self, step: &Step<'_>, out: &mut StepOut<'_>) -> io::Result<()> {
        if let Step::Applied { update, .. } = step
            && update.call.is_terminal()
        {
            part_line(out, &update.call.part_view())?;
        }
        Ok(())
    }

    fn finish(&mut self, fold: &Fold, out: &mut StepOut<'_>) -> io::Result<()> {
        for call in fold.calls().filter(|call| !call.is_terminal()) {
            part_line(out, &call.part_view())?;
        }
        Ok(())
    }
}

/// Writes a part as one JSON line.
pub(crate) fn part_line(out: &mut StepOut<'_>, part: &PartView<'_>) -> io::Result<()> {
    json_text::part(out, part)?;
    out.push(b'\n');
    out.take_error()
}

/// Appends `value` as one JSON line.
pub(crate) fn json_line(out: &mut StepOut<'_>, value: &impl serde::Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}
