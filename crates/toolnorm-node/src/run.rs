//! One run of the normalizer: input in, the steps written as JSON text by the library's
//! [`Writer`] (as `toolnorm normalize` writes them) and the diagnostics collected.

use std::sync::mpsc::SyncSender;

use toolnorm::Fold;
use toolnorm_adapters::{
    Diagnostic, Driver, Format, Normalizer, NormalizerBuilder, OtelOptions, Sink, Stats, Step,
    Writer,
};

use crate::Error;

/// What a call gave: the parts (or part snapshots) as one JSON array, and the
/// diagnostics, in input order.
pub(crate) struct Output {
    /// `[part,part,…]`: the lines the command writes, joined by commas.
    pub json: String,
    /// The diagnostics reported.
    pub diagnostics: Vec<Diagnostic>,
}

/// A normalizer with what it has written since the last [`Output`], run by the
/// library's [`Driver`] (every diagnostic handed over at once).
pub(crate) struct Run {
    driver: Driver<Collected>,
    finished: bool,
}

/// What the driver hands over: the lines of the format, and the diagnostics.
struct Collected {
    /// `Parts` or `Updates`.
    writer: Writer<Lines>,
    diagnostics: Vec<Diagnostic>,
}

impl Sink for Collected {
    fn step(&mut self, step: &Step<'_>) -> std::io::Result<()> {
        self.writer.step(step)
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        self.diagnostics.push(diagnostic.clone());
    }

    fn finish(&mut self, fold: &Fold, stats: &Stats) -> std::io::Result<()> {
        Sink::finish(&mut self.writer, fold, stats)
    }
}

/// The lines written, kept until taken or, in batches, sent as they fill.
struct Lines {
    text: Vec<u8>,
    batches: Option<SyncSender<String>>,
    /// Batches were sent and nothing receives them any more.
    abandoned: bool,
}

/// The lines sent at a time, in batches (about 256 KiB).
const BATCH: usize = 1 << 18;

impl std::io::Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.text.extend_from_slice(bytes);
        // A raw newline only ends a line (JSON escapes those in strings), so text that
        // ends with one holds whole lines.
        if self.text.len() >= BATCH
            && self.text.ends_with(b"\n")
            && let Some(batches) = &self.batches
            && !self.abandoned
        {
            let batch = json_array(&self.text).map_err(std::io::Error::other)?;
            self.text.clear();
            self.abandoned = batches.send(batch).is_err();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Run {
    /// A run writing `format` (`Parts` or `Updates`).
    pub(crate) fn new(builder: NormalizerBuilder, format: Format) -> Self {
        Run::with(builder, format, OtelOptions::default(), None)
    }

    /// A run writing `format` that sends what it writes to `batches`, as the text of a
    /// JSON array each time about 256 KiB of lines is written; what is left is taken.
    pub(crate) fn batched(
        builder: NormalizerBuilder,
        format: Format,
        otel: OtelOptions,
        batches: SyncSender<String>,
    ) -> Self {
        Run::with(builder, format, otel, Some(batches))
    }

    fn with(
        builder: NormalizerBuilder,
        format: Format,
        otel: OtelOptions,
        batches: Option<SyncSender<String>>,
    ) -> Self {
        let lines = Lines {
            text: Vec::new(),
            batches,
            abandoned: false,
        };
        let collected = Collected {
            writer: Writer::new(format, lines).otel(otel),
            diagnostics: Vec::new(),
        };
        Run {
            driver: Driver::new(builder.build(), collected).hold_undetected(false),
            finished: false,
        }
    }

    /// Whether batches were sent and nothing receives them any more.
    pub(crate) fn abandoned(&mut self) -> bool {
        self.driver.sink_mut().writer.get_mut().abandoned
    }

    /// Feeds a chunk (cut anywhere); what its complete lines gave.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<Output, Error> {
        self.feed(chunk)?;
        self.take()
    }

    /// Ends the input: a last line without newline, what the adapter held, and in
    /// `parts` the calls still open.
    pub(crate) fn finish(&mut self) -> Result<Output, Error> {
        self.end()?;
        self.take()
    }

    /// Reads a chunk (cut anywhere), writing what its complete lines gave.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        if self.finished {
            return Err(Error::Finished);
        }
        self.driver.push(chunk);
        Ok(())
    }

    /// Ends the input, writing what the end gave (in `parts`, the calls still open).
    pub(crate) fn end(&mut self) -> Result<(), Error> {
        if self.finished {
            return Err(Error::Finished);
        }
        self.finished = true;
        self.driver.finish();
        Ok(())
    }

    /// The normalizer (its dialect and counts).
    pub(crate) fn normalizer(&self) -> &Normalizer {
        self.driver.normalizer()
    }

    /// What was written and reported since the last call.
    pub(crate) fn take(&mut self) -> Result<Output, Error> {
        if let Some(error) = self.driver.take_error() {
            return Err(Error::Write(error));
        }
        let collected = self.driver.sink_mut();
        let lines = collected.writer.get_mut();
        let json = json_array(&lines.text)?;
        lines.text.clear();
        Ok(Output {
            json,
            diagnostics: std::mem::take(&mut collected.diagnostics),
        })
    }
}

/// JSON lines as one JSON array: each line is one JSON value and holds no raw newline
/// (JSON escapes it in strings), so the newlines between them become commas.
fn json_array(lines: &[u8]) -> Result<String, Error> {
    let mut array = Vec::with_capacity(lines.len() + 2);
    array.push(b'[');
    array.extend_from_slice(lines.strip_suffix(b"\n").unwrap_or(lines));
    for byte in &mut array {
        if *byte == b'\n' {
            *byte = b',';
        }
    }
    array.push(b']');
    Ok(String::from_utf8(array)?)
}
