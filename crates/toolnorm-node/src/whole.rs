//! A whole stream read on a thread of its own: its parts are sent as JSON text in
//! batches of about 256 KiB, which JavaScript parses while the next batch is read, so
//! reading and parsing share two cores.

use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;

use toolnorm_adapters::{Diagnostic, Dialect, Format, NormalizerBuilder, OtelOptions, Stats};

use crate::Error;
use crate::run::Run;

/// Batches read ahead of JavaScript, at most.
const BATCHES_AHEAD: usize = 2;

/// The input, read in chunks of this size; between them the reading stops if nothing
/// receives its batches any more.
const CHUNK: usize = 1 << 16;

/// What a stream ended with, once its parts were sent.
pub(crate) struct Ended {
    /// The diagnostics, in input order.
    pub diagnostics: Vec<Diagnostic>,
    /// The counts.
    pub stats: Stats,
    /// The dialect read, if any line was of a known one.
    pub dialect: Option<Dialect>,
}

/// A stream being read in the background.
pub(crate) struct Background {
    /// The batches, until all are received or the reading is ended.
    batches: Option<Receiver<String>>,
    reader: Option<JoinHandle<Result<Ended, Error>>>,
}

impl Background {
    /// Starts reading `data` as `--format <format>` does (`otel` made as `otel` says).
    pub(crate) fn start(
        builder: NormalizerBuilder,
        data: Vec<u8>,
        format: Format,
        otel: OtelOptions,
    ) -> Self {
        let (sender, batches) = mpsc::sync_channel(BATCHES_AHEAD);
        let reader = std::thread::spawn(move || {
            let mut run = Run::batched(builder, format, otel, sender.clone());
            for chunk in data.chunks(CHUNK) {
                run.feed(chunk)?;
                if run.abandoned() {
                    break;
                }
            }
            run.end()?;
            let rest = run.take()?;
            if rest.json != "[]" {
                // Nothing receives it when the reading was ended early: nothing to send.
                let _ended = sender.send(rest.json);
            }
            Ok(Ended {
                diagnostics: rest.diagnostics,
                stats: run.normalizer().stats(),
                dialect: run.normalizer().dialect(),
            })
        });
        Background {
            batches: Some(batches),
            reader: Some(reader),
        }
    }

    /// The next batch of parts (a JSON array's text), waiting for it; `None` once all
    /// were given.
    pub(crate) fn next_batch(&mut self) -> Option<String> {
        let batch = self.batches.as_ref()?.recv().ok();
        if batch.is_none() {
            self.batches = None;
        }
        batch
    }

    /// Ends the reading (early, if batches are left: they are dropped) and gives what the
    /// stream ended with.
    pub(crate) fn end(&mut self) -> Result<Ended, Error> {
        self.batches = None;
        let reader = self.reader.take().ok_or(Error::Finished)?;
        reader.join().map_err(|_| Error::Reader)?
    }
}

impl Drop for Background {
    /// Never ended: the receiving end goes, so the reader stops at its next batch, on
    /// its own thread.
    fn drop(&mut self) {
        self.batches = None;
    }
}
