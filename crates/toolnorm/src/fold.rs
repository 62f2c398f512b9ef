//! The projection: canonical events folded into parts.
//!
//! [`Fold`] consumes events in order and keeps one call per id, in first-seen order.
//! Every event that applies reports the new snapshot of its part ([`Update`]), so a UI
//! can stream changes; every event that does not apply becomes a typed [`Error`] and
//! leaves the existing part untouched. [`replay`] folds a whole log and gives exactly the
//! parts that live folding gave.
//!
//! Duplicates are idempotent: an event that changes nothing is reported as
//! [`Outcome::Unchanged`], so folding a log twice gives the same parts as folding it once.

use std::collections::{BTreeMap, HashMap};

use crate::dynamic::{AnyToolCall, Applied, Rejected};
use crate::error::Error;
use crate::event::ToolEvent;
use crate::lifecycle::{DEFAULT_OUTPUT_CAP, ToolCall};
use crate::part::{NormalizedToolPart, ToolKind};

/// What an applied event did to its part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The event started a new part.
    Created,
    /// The event changed an existing part.
    Changed,
    /// The event repeated what the part already held (an exact duplicate).
    Unchanged,
}

/// An applied event and the part it touched.
#[derive(Debug)]
pub struct Update<'a> {
    /// What the event did.
    pub outcome: Outcome,
    /// The call after the event.
    pub call: &'a AnyToolCall,
}

impl Update<'_> {
    /// The new snapshot of the part.
    pub fn part(&self) -> NormalizedToolPart {
        self.call.to_part()
    }
}

/// The fold of an event stream into parts, keyed by call id in first-seen order.
#[derive(Debug, Clone)]
pub struct Fold {
    /// Each call's place in `calls`, by id.
    index: HashMap<String, u64>,
    /// The calls in first-seen order. Keyed by a sequence number rather than held in an
    /// ordered map by id, so that removing a call costs the same however many are open.
    calls: BTreeMap<u64, AnyToolCall>,
    /// The place of the next new call.
    next: u64,
    output_cap: usize,
}

impl Default for Fold {
    fn default() -> Self {
        Fold::new()
    }
}

impl Fold {
    /// An empty fold with the default cap on partial output.
    pub fn new() -> Self {
        Fold::with_output_cap(DEFAULT_OUTPUT_CAP)
    }

    /// An empty fold whose calls keep at most `output_cap` bytes of partial output.
    pub fn with_output_cap(output_cap: usize) -> Self {
        Fold {
            index: HashMap::new(),
            calls: BTreeMap::new(),
            next: 0,
            output_cap,
        }
    }

    /// Applies one event.
    pub fn apply(&mut self, event: ToolEvent) -> Result<Update<'_>, Error> {
        let Some(place) = self.index.get(event.id()) else {
            return self.create(event);
        };
        let Some(slot) = self.calls.get_mut(place) else {
            return Err(Error::UnknownCall {
                id: event.id().to_owned(),
                event: Box::new(event),
            });
        };
        let call = std::mem::replace(slot, placeholder());
        match call.apply(event) {
            Ok(Applied { call, changed }) => {
                *slot = call;
                let outcome = if changed {
                    Outcome::Changed
                } else {
                    Outcome::Unchanged
                };
                Ok(Update {
                    outcome,
                    call: slot,
                })
            }
            Err(Rejected { call, error }) => {
                *slot = *call;
                Err(error)
            }
        }
    }

    fn create(&mut self, event: ToolEvent) -> Result<Update<'_>, Error> {
        let ToolEvent::ToolCallStarted(started) = event else {
            return Err(Error::UnknownCall {
                id: event.id().to_owned(),
                event: Box::new(event),
            });
        };
        let call = AnyToolCall::start(started, self.output_cap);
        let place = self.next;
        self.next += 1;
        self.index.insert(call.id().to_owned(), place);
        let call = self.calls.entry(place).or_insert(call);
        Ok(Update {
            outcome: Outcome::Created,
            call,
        })
    }

    /// The call with this id.
    pub fn get(&self, id: &str) -> Option<&AnyToolCall> {
        self.calls.get(self.index.get(id)?)
    }

    /// Removes a call (e.g. once a terminal part was written), keeping the order of the rest.
    ///
    /// Later events for that id are then reported as [`Error::UnknownCall`].
    pub fn remove(&mut self, id: &str) -> Option<AnyToolCall> {
        let place = self.index.remove(id)?;
        self.calls.remove(&place)
    }

    /// The calls, in first-seen order.
    pub fn calls(&self) -> impl Iterator<Item = &AnyToolCall> {
        self.calls.values()
    }

    /// Snapshots of every part, in first-seen order.
    pub fn parts(&self) -> Vec<NormalizedToolPart> {
        self.calls.values().map(AnyToolCall::to_part).collect()
    }

    /// How many calls the fold holds.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether the fold holds no call.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
}

/// A cheap stand-in while a call is moved through a transition (no allocation).
fn placeholder() -> AnyToolCall {
    AnyToolCall::Started(ToolCall::start(
        String::new(),
        String::new(),
        ToolKind::Unknown,
    ))
}

/// The result of replaying a log: the parts and every event that did not apply.
#[derive(Debug, Default)]
pub struct Replay {
    /// The parts, in first-seen order.
    pub parts: Vec<NormalizedToolPart>,
    /// What did not apply, in log order.
    pub diagnostics: Vec<Error>,
}

/// Folds a whole event log from scratch.
pub fn replay(events: impl IntoIterator<Item = ToolEvent>) -> Replay {
    let mut replaying = Replaying::default();
    for event in events {
        replaying.feed(Ok(event));
    }
    replaying.finish()
}

/// A replay in progress: a fresh fold and what did not apply so far ([`replay`] and
/// [`replay_log`](crate::replay_log) both feed one).
#[derive(Debug, Default)]
pub(crate) struct Replaying {
    fold: Fold,
    diagnostics: Vec<Error>,
}

impl Replaying {
    /// Applies one event, or records why there is none (a bad line).
    pub(crate) fn feed(&mut self, event: Result<ToolEvent, Error>) {
        if let Err(error) = event.and_then(|event| self.fold.apply(event).map(drop)) {
            self.diagnostics.push(error);
        }
    }

    /// The parts and the diagnostics.
    pub(crate) fn finish(self) -> Replay {
        Replay {
            parts: self.fold.parts(),
            diagnostics: self.diagnostics,
        }
    }
}
