//! Detection: the first lines wait until a dialect claims one, and that dialect then has
//! to understand one of the lines before the stream is read as its own.
//!
//! A dialect claims a line on evidence the line carries (its keys, its `type`), but a
//! file of an agent toolnorm does not read can carry the same evidence: a line of
//! another agent with a `type` of `turn.begin` looks like a Codex event, a `user` record
//! like a Claude Code one. So a claim only puts the dialect **on trial**: from the
//! claimed line on, each line is read by a normalizer of that dialect of its own, and
//! the first line it *understands* (one that gives an event, or that it knows and skips
//! without a word) confirms it; the stream is then read as that dialect from its first
//! line. A line it *misses* is one that gives no event and only says it is not one of
//! its events (`unknown-event`, `malformed-event`, `foreign-dialect`). When the
//! [`DETECTION_WINDOW`] lines from the claimed one are all missed (or the input ends
//! first), the dialect is **rejected** for this stream: its claims no longer count, and
//! the waiting lines are detected again without it. A stream no dialect is confirmed for
//! is of no known dialect (`toolnorm normalize` exits with status 3), rather than read
//! with a notice per line.
//!
//! A dialect named with [`NormalizerBuilder::dialect`](super::NormalizerBuilder::dialect)
//! (`--provider`) is read without a trial.

use super::Ahead;
use super::{Core, DETECTION_WINDOW, Normalizer, Stage, Step};
use crate::Dialect;
use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::dialects;

/// The lines of a stream whose dialect is not known yet.
#[derive(Default)]
pub(super) struct Detection {
    /// The lines read so far, waiting for the dialect.
    buffered: Vec<(u64, Vec<u8>)>,
    /// The dialect on trial, when one claimed a line.
    trial: Option<Trial>,
}

/// A dialect that claimed a line, reading the lines from that one on, until it
/// understands one.
struct Trial {
    dialect: Dialect,
    /// A normalizer of that dialect alone, whose counts tell what each line gave.
    normalizer: Box<Normalizer>,
    /// The lines it has read (none understood).
    lines: usize,
}

/// What a dialect on trial made of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// The line gave an event, or is one the dialect knows and skips.
    Understood,
    /// The line gave nothing but a word that it is not one of the dialect's events (or
    /// no event at all: not JSON, cut short).
    Missed,
}

impl Trial {
    fn new(dialect: Dialect) -> Self {
        Trial {
            dialect,
            normalizer: Box::new(Normalizer::builder().dialect(dialect).build()),
            lines: 0,
        }
    }

    /// Reads one line; what the dialect made of it.
    fn read(&mut self, line: u64, bytes: &[u8]) -> Verdict {
        let core = &mut self.normalizer.core;
        let before = core.stats.events;
        let mut understood = false;
        let mut said = false;
        core.read_line(line, bytes, &mut Ahead::none(), &mut |step| {
            if let Step::Diagnostic(diagnostic) = step {
                match diagnostic.kind {
                    // Not one of its events.
                    DiagnosticKind::UnknownEvent
                    | DiagnosticKind::MalformedEvent
                    | DiagnosticKind::ForeignDialect => said = true,
                    // About the bytes, whatever the dialect.
                    DiagnosticKind::LoneSurrogate => {}
                    // No event at all.
                    DiagnosticKind::InvalidJson
                    | DiagnosticKind::TruncatedLine
                    | DiagnosticKind::UndetectedDialect
                    | DiagnosticKind::Io => said = true,
                    // One of its events, about a call it does not hold.
                    DiagnosticKind::UnknownCall | DiagnosticKind::Rejected => understood = true,
                }
            }
        });
        self.lines += 1;
        match understood || !said || core.stats.events > before {
            true => Verdict::Understood,
            false => Verdict::Missed,
        }
    }
}

/// The dialect a line says it belongs to, among those not rejected in this stream: the
/// first row of the table that claims it.
fn claimant(bytes: &[u8], rejected: &[Dialect]) -> Option<Dialect> {
    dialects::claimant(bytes, rejected)
}

impl Core {
    /// One line of a stream whose dialect is not known yet (read at once when it is).
    pub(super) fn detect(
        &mut self,
        line: u64,
        bytes: &[u8],
        ahead: &mut Ahead<'_>,
        on_step: &mut dyn FnMut(Step<'_>),
    ) {
        let Stage::Detecting(detection) = &mut self.stage else {
            self.read_line(line, bytes, ahead, on_step);
            return;
        };
        if detection.trial.is_none() {
            match claimant(bytes, &self.rejected) {
                Some(dialect) => detection.trial = Some(Trial::new(dialect)),
                None => {
                    detection.buffered.push((line, bytes.to_vec()));
                    if detection.buffered.len() >= DETECTION_WINDOW {
                        self.flush_detection(on_step);
                    }
                    return;
                }
            }
        }
        let Some(trial) = detection.trial.as_mut() else {
            return;
        };
        match trial.read(line, bytes) {
            Verdict::Understood => {
                let dialect = trial.dialect;
                self.start(dialect, on_step);
                // The line that told the dialect is read where it lies, not from a copy
                // (a huge payload in it shares the line).
                self.read_line(line, bytes, ahead, on_step);
            }
            Verdict::Missed => {
                detection.buffered.push((line, bytes.to_vec()));
                if trial.lines >= DETECTION_WINDOW {
                    self.reject(on_step);
                }
            }
        }
    }

    /// The dialect on trial understood none of its lines: it is rejected for this
    /// stream, and the waiting lines are detected again without it.
    fn reject(&mut self, on_step: &mut dyn FnMut(Step<'_>)) {
        let Stage::Detecting(detection) = &mut self.stage else {
            return;
        };
        let Some(trial) = detection.trial.take() else {
            return;
        };
        self.rejected.push(trial.dialect);
        for (line, bytes) in std::mem::take(&mut detection.buffered) {
            self.detect(line, &bytes, &mut Ahead::none(), on_step);
        }
    }

    /// Starts the adapter for `dialect` and replays the buffered lines through it.
    pub(super) fn start(&mut self, dialect: Dialect, on_step: &mut dyn FnMut(Step<'_>)) {
        let Some(entry) = dialects::entry(dialect) else {
            return;
        };
        let ready = super::ready((entry.adapter)(&self.adapter_options), &self.setup);
        self.read_ahead = entry.read_ahead;
        let buffered = match std::mem::replace(&mut self.stage, ready) {
            Stage::Detecting(detection) => detection.buffered,
            Stage::Ready(..) => Vec::new(),
        };
        for (line, bytes) in buffered {
            self.read_line(line, &bytes, &mut Ahead::none(), on_step);
        }
    }

    /// The input ended while the dialect is not known: a dialect on trial is rejected
    /// (it understood none of its lines), and every line still waiting is reported.
    pub(super) fn end_detection(&mut self, on_step: &mut dyn FnMut(Step<'_>)) {
        while let Stage::Detecting(Detection { trial: Some(_), .. }) = &self.stage {
            self.reject(on_step);
        }
        self.flush_detection(on_step);
    }

    /// Detection failed (window full or input ended): every buffered line is reported.
    fn flush_detection(&mut self, on_step: &mut dyn FnMut(Step<'_>)) {
        let Stage::Detecting(detection) = &mut self.stage else {
            return;
        };
        let lines = std::mem::take(&mut detection.buffered);
        for (line, bytes) in lines {
            let message = match serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
                Err(error) => crate::read::json::classify(&bytes, &error)
                    .map_or_else(|| error.to_string(), |invalid| invalid.message),
                Ok(_) => match dialects::detect_line(&bytes) {
                    Some(dialect) if self.rejected.contains(&dialect) => format!(
                        "not an event of any known dialect: it looks like {} `{dialect}` \
                         event, but none of the first lines is one (use --provider to name \
                         the dialect)",
                        super::article(dialect.as_str())
                    ),
                    _ => "not an event of any known dialect (use --provider to name it)".to_owned(),
                },
            };
            self.diagnostics.push(Diagnostic::at(
                line,
                DiagnosticKind::UndetectedDialect,
                message,
            ));
            self.classify(0);
            self.report(Some((line, &bytes)), on_step);
        }
    }
}
