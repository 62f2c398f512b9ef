//! The normalizer's steps, collected as owned values while the GIL is released: the
//! parts (as `--format parts` writes them) or the updates (as `--format updates` does),
//! and the diagnostics in the order `toolnorm normalize` writes them on stderr.

use toolnorm::NormalizedToolPart;
use toolnorm_adapters::{Diagnostic, DiagnosticKind, Normalizer, Step};

/// How many `undetected-dialect` diagnostics are held, at most, while the dialect is not
/// known (the rest are counted), as the command holds them.
const HELD: usize = 4096;

/// How much of the start of the input is kept, to say what it looks like.
const HEAD: usize = 1 << 16;

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
    /// Parts or updates not yet taken.
    parts: Vec<NormalizedToolPart>,
    /// Diagnostics released, not yet taken.
    diagnostics: Vec<Diagnostic>,
    /// `undetected-dialect` diagnostics held while the dialect is not known.
    held: Vec<Diagnostic>,
    /// Held diagnostics beyond [`HELD`], counted only.
    unheld: u64,
    /// The start of the input.
    head: Vec<u8>,
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
            diagnostics: Vec::new(),
            held: Vec::new(),
            unheld: 0,
            head: Vec::new(),
        }
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
            self.parts.extend(open.map(|call| call.to_part()));
        }
        if normalizer.dialect().is_none() && !self.held.is_empty() {
            self.held.clear();
            self.unheld = 0;
            return Ending::Unrecognized(unrecognized(&self.head));
        }
        self.release();
        Ending::Read
    }

    /// The parts or updates and the diagnostics collected since the last take.
    pub(crate) fn take(&mut self) -> (Vec<NormalizedToolPart>, Vec<Diagnostic>) {
        (
            std::mem::take(&mut self.parts),
            std::mem::take(&mut self.diagnostics),
        )
    }

    fn step(&mut self, step: &Step<'_>) {
        match step {
            Step::Applied { update, .. } => {
                if self.collect == Collect::Updates || update.call.is_terminal() {
                    self.parts.push(update.call.to_part());
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
