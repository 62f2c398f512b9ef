//! [`FormatWriter`], what every format implements, and [`Writer`], which writes steps in
//! any format of the table into an [`io::Write`].

use std::io::{self, Write};

use toolnorm::Fold;

use super::acp::AcpOptions;
use super::format::Format;
use crate::pipeline::{Stats, Step};

/// A writer of steps in one format: it appends what each step means to `out`, the text
/// of the step (the [`Writer`] writes it and flushes).
pub trait FormatWriter: Send {
    /// Appends what `step` means in this format.
    fn step(&mut self, step: &Step<'_>, out: &mut Vec<u8>) -> io::Result<()>;

    /// Appends what ends the output, once the input has ended (the calls still open).
    fn finish(&mut self, fold: &Fold, out: &mut Vec<u8>) -> io::Result<()> {
        let _ = (fold, out);
        Ok(())
    }

    /// Appends the line counts of the run, in a format for people.
    fn summary(&mut self, stats: &Stats, out: &mut Vec<u8>) -> io::Result<()> {
        let _ = (stats, out);
        Ok(())
    }
}

/// What a format's writer is made with.
#[derive(Debug, Clone, Default)]
pub struct WriterOptions {
    /// The session id and the output cap of `acp` (the session id is also the `ai-sdk`
    /// message id and the `ag-ui` thread id of calls that name no session).
    pub acp: AcpOptions,
    /// Frame the output as server-sent events (formats that have that form).
    pub sse: bool,
    /// Write ANSI colours (formats for people).
    pub color: bool,
}

/// Writes steps in one format, as `toolnorm normalize --format <format>` does: feed it
/// every [`Step`], then [`finish`](Writer::finish) it with the normalizer's fold (see
/// the crate's example).
pub struct Writer<W: Write> {
    format: Format,
    options: WriterOptions,
    inner: Box<dyn FormatWriter>,
    out: W,
    /// The text of one step, written at once.
    text: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// A writer of `format` into `out`.
    pub fn new(format: Format, out: W) -> Self {
        Writer::with_acp(format, AcpOptions::default(), out)
    }

    /// A writer of `format` into `out`, with these options for the `acp` format (its
    /// session id is also the `ai-sdk` message id and the `ag-ui` thread id of calls
    /// that name no session).
    pub fn with_acp(format: Format, acp: AcpOptions, out: W) -> Self {
        let options = WriterOptions {
            acp,
            ..WriterOptions::default()
        };
        Writer {
            format,
            inner: (format.spec().make)(&options),
            options,
            out,
            text: Vec::new(),
        }
    }

    /// Frames the `ai-sdk` and `ag-ui` output as server-sent events: `data: <json>` and a
    /// blank line per value, and for `ai-sdk` a last `data: [DONE]`, as the AI SDK's
    /// `createUIMessageStreamResponse` sends. No effect on the other formats.
    #[must_use]
    pub fn sse(mut self, sse: bool) -> Self {
        self.options.sse = sse && self.format.streams_to_ui();
        self.inner = (self.format.spec().make)(&self.options);
        self
    }

    /// Colours the output of a format for people (`pretty`) with ANSI codes. No effect on
    /// the other formats.
    #[must_use]
    pub fn color(mut self, color: bool) -> Self {
        self.options.color = color && self.format.for_people();
        self.inner = (self.format.spec().make)(&self.options);
        self
    }

    /// The format written.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Writes what `step` means in this format; every line written is flushed at once.
    pub fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        if !matches!(step, Step::Applied { .. }) {
            return Ok(());
        }
        self.text.clear();
        self.inner.step(step, &mut self.text)?;
        self.write_text()
    }

    /// Ends the output: in `parts` and `pretty`, writes the calls still open; in the UI
    /// stream formats, what closes the stream.
    pub fn finish(&mut self, fold: &Fold) -> io::Result<()> {
        self.text.clear();
        self.inner.finish(fold, &mut self.text)?;
        if self.options.sse
            && let Some(terminator) = self.format.sse_terminator()
        {
            self.text.extend_from_slice(b"data: ");
            self.text.extend_from_slice(terminator.as_bytes());
            self.text.extend_from_slice(b"\n\n");
        }
        self.out.write_all(&self.text)?;
        self.out.flush()
    }

    /// Ends the `pretty` output with the line counts of the run (`N lines: A applied, …`,
    /// see [`Stats`]) and flushes; writes nothing in the other formats.
    pub fn summary(&mut self, stats: &Stats) -> io::Result<()> {
        self.text.clear();
        self.inner.summary(stats, &mut self.text)?;
        self.write_text()
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The underlying writer, to take what was written.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// Writes and flushes the text of a step, if there is any.
    fn write_text(&mut self) -> io::Result<()> {
        if self.text.is_empty() {
            return Ok(());
        }
        self.out.write_all(&self.text)?;
        if self.text.capacity() > 1 << 20 {
            // One huge step does not hold its memory for the rest of the stream.
            self.text = Vec::new();
        }
        self.out.flush()
    }
}
