//! [`FormatWriter`], what every format implements, and [`Writer`], which writes steps in
//! any format of the table into an [`io::Write`].

use std::io::{self, Write};

use super::json::Bytes;

use toolnorm::Fold;

use super::acp::AcpOptions;
use super::format::Format;
use crate::pipeline::{Stats, Step};

/// A writer of steps in one format: it writes what each step means to `out` (the
/// [`Writer`] passes its output through a bounded buffer, and flushes once a step wrote
/// anything).
pub trait FormatWriter: Send {
    /// Writes what `step` means in this format.
    fn step(&mut self, step: &Step<'_>, out: &mut StepOut<'_>) -> io::Result<()>;

    /// Writes what ends the output, once the input has ended (the calls still open).
    fn finish(&mut self, fold: &Fold, out: &mut StepOut<'_>) -> io::Result<()> {
        let _ = (fold, out);
        Ok(())
    }

    /// Writes the line counts of the run, in a format for people.
    fn summary(&mut self, stats: &Stats, out: &mut StepOut<'_>) -> io::Result<()> {
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
    /// How `otel` makes its spans.
    #[cfg(feature = "otel")]
    pub otel: super::OtelOptions,
}

/// Writes steps in one format, as `toolnorm normalize --format <format>` does: feed it
/// every [`Step`], then [`finish`](Writer::finish) it with the normalizer's fold (see
/// the crate's example).
pub struct Writer<W: Write> {
    format: Format,
    options: WriterOptions,
    inner: Box<dyn FormatWriter>,
    out: W,
    /// The text of one step, written to `out` at its end or each time it reaches
    /// [`STEP_BUFFER`] bytes (so one huge part is never held whole).
    text: Vec<u8>,
    /// Whether `out` is flushed only by [`flush`](Writer::flush), not after every step.
    batched: bool,
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
            batched: false,
        }
    }

    /// Flushes the output only when [`flush`](Writer::flush) is called (a
    /// [`Driver`](crate::Driver) calls it after each chunk of input it pushed), not after
    /// every step that wrote: a live stream's updates still leave before the next read
    /// waits, and a file's leave in a few large writes instead of one per update.
    #[must_use]
    pub fn batched(mut self, batched: bool) -> Self {
        self.batched = batched;
        self
    }

    /// Flushes what the steps wrote so far.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
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

    /// Sets how `otel` makes its spans (whether they carry the input and output, the
    /// session of calls whose stream names none). No effect on the other formats.
    #[cfg(feature = "otel")]
    #[must_use]
    pub fn otel(mut self, otel: super::OtelOptions) -> Self {
        self.options.otel = otel;
        self.inner = (self.format.spec().make)(&self.options);
        self
    }

    /// The format written.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Writes what `step` means in this format; every line written is flushed at once
    /// (unless [`batched`](Writer::batched)).
    pub fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        if !matches!(step, Step::Applied { .. }) {
            return Ok(());
        }
        let wrote = self
            .buffered()
            .write_with(|inner, out| inner.step(step, out))?;
        if wrote && !self.batched {
            self.out.flush()
        } else {
            Ok(())
        }
    }

    /// Ends the output: in `parts` and `pretty`, writes the calls still open; in the UI
    /// stream formats, what closes the stream.
    pub fn finish(&mut self, fold: &Fold) -> io::Result<()> {
        let terminator = self.format.sse_terminator().filter(|_| self.options.sse);
        self.buffered().write_with(|inner, out| {
            inner.finish(fold, out)?;
            match terminator {
                Some(terminator) => write!(out, "data: {terminator}\n\n"),
                None => Ok(()),
            }
        })?;
        self.out.flush()
    }

    /// Ends the `pretty` output with the line counts of the run (`N lines: A applied, …`,
    /// see [`Stats`]) and flushes; writes nothing in the other formats.
    pub fn summary(&mut self, stats: &Stats) -> io::Result<()> {
        let wrote = self
            .buffered()
            .write_with(|inner, out| inner.summary(stats, out))?;
        if wrote { self.out.flush() } else { Ok(()) }
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }

    /// The underlying writer, to take what was written.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    /// The format's writer and the output, through the step buffer.
    fn buffered(&mut self) -> Buffered<'_, W> {
        Buffered {
            inner: &mut *self.inner,
            text: &mut self.text,
            out: &mut self.out,
        }
    }
}

/// Bytes a step's text holds before it goes to the output.
const STEP_BUFFER: usize = 64 * 1024;

/// The output of one step: a buffer in front of the [`Writer`]'s output, written through
/// whenever it fills, so a step of any size costs at most [`STEP_BUFFER`] bytes.
struct Buffered<'a, W: Write> {
    inner: &'a mut dyn FormatWriter,
    text: &'a mut Vec<u8>,
    out: &'a mut W,
}

impl<W: Write> Buffered<'_, W> {
    /// Runs `write` with the format's writer and a [`StepOut`] into this buffer, then
    /// writes what is left in the buffer; whether anything was written.
    fn write_with(
        self,
        write: impl FnOnce(&mut dyn FormatWriter, &mut StepOut<'_>) -> io::Result<()>,
    ) -> io::Result<bool> {
        self.text.clear();
        let mut step = StepOut {
            text: &mut *self.text,
            spill: &mut *self.out,
            wrote: false,
            failed: None,
        };
        write(&mut *self.inner, &mut step)?;
        let wrote = step.wrote;
        if !self.text.is_empty() {
            self.out.write_all(self.text)?;
            self.text.clear();
        }
        Ok(wrote)
    }
}

/// What a [`FormatWriter`] writes one step into: bytes go to a buffer (the fast path:
/// an append), and on to the output whenever the buffer would pass 64 KiB.
pub struct StepOut<'a> {
    text: &'a mut Vec<u8>,
    spill: &'a mut dyn Write,
    wrote: bool,
    /// The first error of a write through [`Bytes`], which returns none.
    failed: Option<io::Error>,
}

impl StepOut<'_> {
    /// The first error of the writes through [`Bytes`] so far, taken.
    pub(crate) fn take_error(&mut self) -> io::Result<()> {
        self.failed.take().map_or(Ok(()), Err)
    }
}

impl Bytes for StepOut<'_> {
    #[inline]
    fn push(&mut self, byte: u8) {
        self.extend_from_slice(&[byte]);
    }

    #[inline]
    fn extend_from_slice(&mut self, bytes: &[u8]) {
        if let Err(error) = self.write_all(bytes) {
            self.failed.get_or_insert(error);
        }
    }
}

impl Write for StepOut<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.wrote = true;
        if self.text.len() + bytes.len() <= STEP_BUFFER {
            self.text.extend_from_slice(bytes);
            return Ok(());
        }
        self.spill.write_all(self.text)?;
        self.text.clear();
        if bytes.len() > STEP_BUFFER {
            return self.spill.write_all(bytes);
        }
        self.text.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
