//! The normalizer's steps, collected while the GIL is released: the parts (as `--format
//! parts` writes them) or the updates (as `--format updates` does) as the text of a JSON
//! array, the command's lines joined by commas, which Python's `json.loads` makes into
//! dicts (for a whole stream, a batch at a time, sent as it fills); and the diagnostics in
//! the order `toolnorm normalize` writes them on stderr.

use std::sync::mpsc::SyncSender;

use toolnorm::PartView;
use toolnorm_adapters::{Diagnostic, DiagnosticKind, Normalizer, Step};

/// How many `undetected-dialect` diagnostics are held, at most, while the dialect is not
/// known (the rest are counted), as the command holds them.
const HELD: usize = 4096;

/// How much of the start of the input is kept, to say what it looks like.
const HEAD: usize = 1 << 16;

/// The parts text handed over at a time, when batches are asked for (about 256 KiB).
const BATCH: usize = 1 << 18;

/// What is collected of each applied change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Collect {
    /// One part per call, when it is terminal; the open ones at the end.
    Parts,
    /// One part snapshot per change.
    Updates,
}

/// The steps of one stream, as owned values, until taken.
pub(crate) struct Collector {
    collect: Collect,
    /// Parts or updates not yet taken: `[part,part,…` (the `]` added when taken), or
    /// nothing.
    parts: Vec<u8>,
    /// The first error serializing a part (none: a part's keys are strings).
    error: Option<String>,
    /// Diagnostics released, not yet taken.
    diagnostics: Vec<Diagnostic>,
    /// `undetected-dialect` diagnostics held while the dialect is not known.
    held: Vec<Diagnostic>,
    /// Held diagnostics beyond [`HELD`], counted only.
    unheld: u64,
    /// The start of the input.
    head: Vec<u8>,
    /// How the parts text is handed over.
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

/// What one stream ended with.
pub(crate) enum Ending {
    /// Read to its end.
    Read,
    /// No line was an event of a known dialect: the message that says so.
    Unrecognized(String),
}

impl Collector {
    pub(crate) fn new(collect: Collect) -> Self {
        Collector {
            collect,
            parts: Vec::new(),
            error: None,
            diagnostics: Vec::new(),
            held: Vec::new(),
            unheld: 0,
            head: Vec::new(),
            handover: Handover::Taken,
        }
    }

    /// A collector that sends the parts text to `batches` (a JSON array each) each time
    /// about 256 KiB of it is collected, until the receiving end is gone.
    pub(crate) fn batched(collect: Collect, batches: SyncSender<Vec<u8>>) -> Self {
        Collector {
            handover: Handover::Batches(batches),
            ..Collector::new(collect)
        }
    }

    /// Whether batches were sent and nothing receives them any more.
    pub(crate) fn abandoned(&self) -> bool {
        matches!(self.handover, Handover::Abandoned)
    }

    /// Feeds `chunk` to `normalizer`, collecting its steps.
    pub(crate) fn push(&mut self, normalizer: &mut Normalizer, chunk: &[u8]) {
        let room = HEAD.saturating_sub(self.head.len()).min(chunk.len());
        self.head
            .extend_from_slice(chunk.get(..room).unwrap_or_default());
        normalizer.push(chunk, &mut |step| self.step(&step));
        if normalizer.dialect().is_some() {
            self.release();
        }
    }

    /// Ends the input, collecting the last steps and, for parts, the calls still open.
    pub(crate) fn finish(&mut self, normalizer: &mut Normalizer) -> Ending {
        normalizer.finish(&mut |step| self.step(&step));
        if self.collect == Collect::Parts {
            let open = normalizer.fold().calls().filter(|call| !call.is_terminal());
            for call in open {
                self.part(&call.part_view());
            }
        }
        if normalizer.dialect().is_none() && !self.held.is_empty() {
            self.held.clear();
            self.unheld = 0;
            return Ending::Unrecognized(unrecognized(&self.head));
        }
        self.release();
        Ending::Read
    }

    /// The parts or updates (a JSON array's text) and the diagnostics collected since the
    /// last take; the error of a part that did not serialize.
    pub(crate) fn take(&mut self) -> Result<(Vec<u8>, Vec<Diagnostic>), String> {
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        let mut parts = std::mem::take(&mut self.parts);
        match parts.is_empty() {
            true => parts.extend_from_slice(b"[]"),
            false => parts.push(b']'),
        }
        Ok((parts, std::mem::take(&mut self.diagnostics)))
    }

    /// Adds a part to the array, as the command writes it; sends the array when it is a
    /// batch.
    fn part(&mut self, part: &PartView<'_>) {
        let separator = if self.parts.is_empty() { b'[' } else { b',' };
        self.parts.push(separator);
        if let Err(error) = serde_json::to_writer(&mut self.parts, part)
            && self.error.is_none()
        {
            self.error = Some(format!("writing a part: {error}"));
        }
        if self.parts.len() >= BATCH
            && self.error.is_none()
            && let Handover::Batches(batches) = &self.handover
        {
            self.parts.push(b']');
            let batch = std::mem::replace(&mut self.parts, Vec::with_capacity(2 * BATCH));
            if batches.send(batch).is_err() {
                self.handover = Handover::Abandoned;
            }
        }
    }

    fn step(&mut self, step: &Step<'_>) {
        match step {
            Step::Applied { update, .. } => {
                if self.collect == Collect::Updates || update.call.is_terminal() {
                    self.part(&update.call.part_view());
                }
            }
            Step::Diagnostic(diagnostic) => self.diagnostic(diagnostic),
        }
    }

    /// A diagnostic, held while it waits for the dialect to be known.
    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        if diagnostic.kind == DiagnosticKind::UndetectedDialect {
            if self.held.len() < HELD {
                self.held.push(diagnostic.clone());
            } else {
                self.unheld += 1;
            }
            return;
        }
        self.release();
        self.diagnostics.push(diagnostic.clone());
    }

    /// Releases the held diagnostics; those past [`HELD`] as one that counts them.
    fn release(&mut self) {
        self.diagnostics.append(&mut self.held);
        if self.unheld > 0 {
            self.diagnostics.push(Diagnostic::general(
                DiagnosticKind::UndetectedDialect,
                format!("{} more line(s) of no known dialect", self.unheld),
            ));
            self.unheld = 0;
        }
    }
}

/// The message for an input of which no line is an event toolnorm reads.
fn unrecognized(head: &[u8]) -> String {
    toolnorm_adapters::unrecognized_input(head, "`provider=`")
}
