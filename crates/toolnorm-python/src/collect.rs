//! The normalizer's steps, collected while the GIL is released: the parts (as `--format
//! parts` writes them) or the updates (as `--format updates` does) as the text of a JSON
//! array, the command's lines joined by commas, which Python's `json.loads` makes into
//! dicts (for a whole stream, a batch at a time, sent as it fills); and the diagnostics in
//! the order `toolnorm normalize` writes them on stderr (the library's [`Driver`] holds
//! those of lines of no known dialect as the command does).

use std::io::{self, Write};
use std::sync::mpsc::SyncSender;

use toolnorm::Fold;
use toolnorm_adapters::{
    Diagnostic, Driver, Format, Normalizer, OtelOptions, Sink, Stats, Step, StreamEnd, Writer,
};

/// The parts text handed over at a time, when batches are asked for (about 256 KiB).
const BATCH: usize = 1 << 18;

/// The steps of one stream, as owned values, until taken.
pub(crate) struct Collector {
    driver: Driver<Collected>,
}

/// What a [`Driver`] hands over: the lines of the format, and the diagnostics.
struct Collected {
    writer: Writer<Lines>,
    /// Diagnostics released, not yet taken.
    diagnostics: Vec<Diagnostic>,
}

impl Sink for Collected {
    fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        self.writer.step(step)
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        self.diagnostics.push(diagnostic.clone());
    }

    fn finish(&mut self, fold: &Fold, stats: &Stats) -> io::Result<()> {
        Sink::finish(&mut self.writer, fold, stats)
    }
}

/// The JSON lines written, until taken or, in batches, sent as they fill.
struct Lines {
    text: Vec<u8>,
    handover: Handover,
}

/// How a collector hands its parts text over.
enum Handover {
    /// When taken.
    Taken,
    /// Sent each time [`BATCH`] bytes are collected.
    Batches(SyncSender<Vec<u8>>),
    /// Batches were sent, and nothing receives them any more.
    Abandoned,
}

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.text.extend_from_slice(bytes);
        // A raw newline only ends a line (JSON escapes those in strings), so text that
        // ends with one holds whole lines.
        if self.text.len() >= BATCH
            && self.text.ends_with(b"\n")
            && let Handover::Batches(batches) = &self.handover
        {
            let batch = json_array(&std::mem::take(&mut self.text));
            if batches.send(batch).is_err() {
                self.handover = Handover::Abandoned;
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What one stream ended with.
pub(crate) enum Ending {
    /// Read to its end.
    Read,
    /// No line was an event of a known dialect: the message that says so.
    Unrecognized(String),
}

impl Collector {
    /// A collector of `format` (`Format::Parts` or `Format::Updates`) over `normalizer`.
    pub(crate) fn new(normalizer: Normalizer, format: Format) -> Self {
        Collector::with(normalizer, format, OtelOptions::default(), Handover::Taken)
    }

    /// A collector that sends the parts text to `batches` (a JSON array each) each time
    /// about 256 KiB of it is collected, until the receiving end is gone.
    pub(crate) fn batched(
        normalizer: Normalizer,
        written: crate::normalize::Written,
        batches: SyncSender<Vec<u8>>,
    ) -> Self {
        let otel = OtelOptions {
            content: written.otel_content,
            session_id: None,
        };
        Collector::with(normalizer, written.format, otel, Handover::Batches(batches))
    }

    fn with(normalizer: Normalizer, format: Format, otel: OtelOptions, handover: Handover) -> Self {
        let lines = Lines {
            text: Vec::new(),
            handover,
        };
        let collected = Collected {
            writer: Writer::new(format, lines).otel(otel),
            diagnostics: Vec::new(),
        };
        Collector {
            driver: Driver::new(normalizer, collected),
        }
    }

    /// The normalizer (its dialect and counts).
    pub(crate) fn normalizer(&self) -> &Normalizer {
        self.driver.normalizer()
    }

    /// Whether batches were sent and nothing receives them any more.
    pub(crate) fn abandoned(&mut self) -> bool {
        matches!(
            self.driver.sink_mut().writer.get_mut().handover,
            Handover::Abandoned
        )
    }

    /// Feeds `chunk` to the normalizer, collecting its steps.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.driver.push(chunk);
    }

    /// Ends the input, collecting the last steps and, for parts, the calls still open.
    pub(crate) fn finish(&mut self) -> Ending {
        match self.driver.finish() {
            StreamEnd::Read => Ending::Read,
            StreamEnd::Unrecognized => {
                Ending::Unrecognized(self.driver.unrecognized("`provider=`"))
            }
        }
    }

    /// The parts or updates (a JSON array's text) and the diagnostics collected since the
    /// last take; the error of a part that did not serialize.
    pub(crate) fn take(&mut self) -> Result<(Vec<u8>, Vec<Diagnostic>), String> {
        if let Some(error) = self.driver.take_error() {
            return Err(format!("writing a part: {error}"));
        }
        let collected = self.driver.sink_mut();
        let lines = std::mem::take(&mut collected.writer.get_mut().text);
        Ok((
            json_array(&lines),
            std::mem::take(&mut collected.diagnostics),
        ))
    }
}

/// JSON lines as one JSON array: each line is one JSON value and holds no raw newline
/// (JSON escapes it in strings), so the newlines between them become commas.
fn json_array(lines: &[u8]) -> Vec<u8> {
    let mut array = Vec::with_capacity(lines.len() + 2);
    array.push(b'[');
    array.extend_from_slice(lines.strip_suffix(b"\n").unwrap_or(lines));
    for byte in &mut array {
        if *byte == b'\n' {
            *byte = b',';
        }
    }
    array.push(b']');
    array
}
