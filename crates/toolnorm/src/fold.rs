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

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use foldhash::HashMap;

use crate::any_call::{AnyToolCall, Applied, Rejected};
use crate::error::Error;
use crate::event::ToolEvent;
use crate::finished::FinishedCalls;
use crate::lifecycle::DEFAULT_OUTPUT_CAP;
use crate::part::{NormalizedToolPart, ToolState};

/// What an applied event did to its part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
#[non_exhaustive]
pub struct Update<'a> {
    /// What the event did.
    pub outcome: Outcome,
    /// The call after the event.
    ///
    /// When the fold evicts finished calls and this event finished the call, the fold no
    /// longer holds it: this is the last place to read it (until the next event).
    pub call: &'a AnyToolCall,
}

impl Update<'_> {
    /// The new snapshot of the part.
    pub fn part(&self) -> NormalizedToolPart {
        self.call.to_part()
    }
}

/// The fold of an event stream into parts, keyed by call id in first-seen order.
///
/// Feed it events as they come ([`apply`](Self::apply)); each one that applies gives the
/// call's new snapshot, each one that does not gives a typed [`Error`].
///
/// ```
/// use toolnorm::{Fold, Outcome, ToolEvent, ToolState};
///
/// let event = |line: &str| serde_json::from_str::<ToolEvent>(line);
/// let mut fold = Fold::new();
/// let update = fold.apply(event(
///     r#"{"type":"toolCallStarted","id":"c1","name":"Bash","kind":"bash","title":"ls"}"#,
/// )?)?;
/// assert_eq!(update.outcome, Outcome::Created);
/// fold.apply(event(r#"{"type":"outputAppended","id":"c1","offset":0,"chunk":"a.txt\n"}"#)?)?;
/// let update = fold.apply(event(r#"{"type":"toolCallCompleted","id":"c1"}"#)?)?;
/// let part = update.part();
/// assert_eq!(part.state, ToolState::Complete);
/// assert_eq!(part.output, Some("a.txt\n".into()), "the streamed output is the output");
/// assert_eq!(fold.parts(), [part]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Fold {
    /// Each call's place in `calls`, by id.
    index: HashMap<String, u64>,
    /// The calls in first-seen order. Keyed by a sequence number rather than held in an
    /// ordered map by id, so that removing a call costs the same however many are open.
    /// Always `Some` but while an event applies to the call, taken out of its place.
    calls: BTreeMap<u64, Option<AnyToolCall>>,
    /// The place of the next new call.
    next: u64,
    output_cap: usize,
    /// The calls evicted once finished, when the fold evicts them.
    finished: Option<FinishedCalls>,
    /// The call the last event finished and evicted: held until the next event, so that
    /// the event's [`Update`] can lend it without a copy.
    evicted: Option<AnyToolCall>,
}

/// How a [`Fold`] is made: [`Fold::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct FoldBuilder {
    output_cap: usize,
    evict_finished: bool,
}

impl Default for FoldBuilder {
    fn default() -> Self {
        FoldBuilder {
            output_cap: DEFAULT_OUTPUT_CAP,
            evict_finished: false,
        }
    }
}

impl FoldBuilder {
    /// The cap on the partial output each running call keeps, in bytes
    /// ([`DEFAULT_OUTPUT_CAP`] unless set).
    pub fn output_cap(mut self, output_cap: usize) -> Self {
        self.output_cap = output_cap;
        self
    }

    /// Whether calls are dropped from the fold as soon as they are finished (`false`
    /// unless set): the fold then holds only open calls, plus the final state of the last
    /// [`FINISHED_WINDOW`](crate::FINISHED_WINDOW) finished ones, so its memory stays flat
    /// however long the stream. The event that finishes a call still lends it in its
    /// [`Update`]: write it out then. A later event for it is an
    /// [`Error::AlreadyFinished`].
    ///
    /// ```
    /// use toolnorm::{Error, Fold, ToolEvent, ToolState};
    ///
    /// let event = |line: &str| serde_json::from_str::<ToolEvent>(line);
    /// let mut fold = Fold::builder().evict_finished(true).build();
    /// fold.apply(event(
    ///     r#"{"type":"toolCallStarted","id":"c1","name":"Bash","kind":"bash","title":"ls"}"#,
    /// )?)?;
    /// let update = fold.apply(event(r#"{"type":"toolCallCompleted","id":"c1","output":"ok"}"#)?)?;
    /// assert_eq!(update.part().state, ToolState::Complete);
    /// assert!(fold.is_empty(), "finished, written, forgotten");
    /// assert_eq!(fold.finished("c1"), Some(ToolState::Complete));
    ///
    /// let late = fold.apply(event(r#"{"type":"toolCallRunning","id":"c1"}"#)?).unwrap_err();
    /// assert!(matches!(late, Error::AlreadyFinished { state: ToolState::Complete, .. }));
    /// assert_eq!(
    ///     late.to_string(),
    ///     "tool call `c1` already finished (complete): toolCallRunning ignored"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn evict_finished(mut self, evict_finished: bool) -> Self {
        self.evict_finished = evict_finished;
        self
    }

    /// The empty fold.
    pub fn build(self) -> Fold {
        Fold {
            index: HashMap::default(),
            calls: BTreeMap::new(),
            next: 0,
            output_cap: self.output_cap,
            finished: self.evict_finished.then(FinishedCalls::new),
            evicted: None,
        }
    }
}

impl Default for Fold {
    fn default() -> Self {
        Fold::new()
    }
}

impl Fold {
    /// An empty fold with the default cap on partial output, that keeps finished calls.
    pub fn new() -> Self {
        Fold::builder().build()
    }

    /// An empty fold whose calls keep at most `output_cap` bytes of partial output.
    pub fn with_output_cap(output_cap: usize) -> Self {
        Fold::builder().output_cap(output_cap).build()
    }

    /// A fold with other options: the output cap, eviction of finished calls.
    pub fn builder() -> FoldBuilder {
        FoldBuilder::default()
    }

    /// Applies one event: the call's new snapshot, or why the event does not apply.
    ///
    /// An event for an id not yet seen must be a start. An exact duplicate applies and
    /// changes nothing ([`Outcome::Unchanged`]). An event that does not fit the call's state
    /// is an [`Error`] that carries the event, and the fold is left as it was.
    ///
    /// ```
    /// use toolnorm::{Error, Fold, Outcome, Rejection, ToolEvent, ToolState};
    ///
    /// let event = |line: &str| serde_json::from_str::<ToolEvent>(line);
    /// let mut fold = Fold::new();
    /// fold.apply(event(
    ///     r#"{"type":"toolCallStarted","id":"c1","name":"Bash","kind":"bash","title":"ls"}"#,
    /// )?)?;
    /// let failed = r#"{"type":"toolCallFailed","id":"c1","error":{"message":"exit 1"}}"#;
    /// assert_eq!(fold.apply(event(failed)?)?.outcome, Outcome::Changed);
    /// assert_eq!(fold.apply(event(failed)?)?.outcome, Outcome::Unchanged);
    ///
    /// let late = fold.apply(event(r#"{"type":"toolCallCompleted","id":"c1"}"#)?).unwrap_err();
    /// assert!(matches!(
    ///     late,
    ///     Error::Rejected { state: ToolState::Error, reason: Rejection::Terminal, .. }
    /// ));
    /// let ghost = fold.apply(event(r#"{"type":"toolCallRunning","id":"c2"}"#)?).unwrap_err();
    /// assert!(matches!(ghost, Error::UnknownCall { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn apply(&mut self, event: ToolEvent) -> Result<Update<'_>, Error> {
        self.evicted = None;
        let Some(&place) = self.index.get(event.id()) else {
            return self.start(event);
        };
        // Every id of the index has a slot, and a slot is empty only while its call is
        // applied below: an id without a call is a broken fold, reported as unknown.
        let Entry::Occupied(mut slot) = self.calls.entry(place) else {
            debug_assert!(false, "the index holds {} without a slot", event.id());
            return Err(Error::unknown_call(event));
        };
        let Some(call) = slot.get_mut().take() else {
            debug_assert!(false, "the slot of {} is empty", event.id());
            slot.remove();
            return Err(Error::unknown_call(event));
        };
        let (call, outcome) = match call.apply(event) {
            Ok(Applied {
                call,
                changed: true,
            }) => (call, Outcome::Changed),
            Ok(Applied { call, .. }) => (call, Outcome::Unchanged),
            Err(Rejected { call, error }) => {
                *slot.get_mut() = Some(*call);
                return Err(error);
            }
        };
        if let Some(finished) = self.finished.as_mut().filter(|_| call.is_terminal()) {
            slot.remove();
            self.index.remove(call.id());
            finished.insert(call.id(), call.state());
            return Ok(Update {
                outcome,
                call: self.evicted.insert(call),
            });
        }
        Ok(Update {
            outcome,
            call: slot.into_mut().insert(call),
        })
    }

    /// An event for an id the fold does not hold: a start, or a late event.
    fn start(&mut self, event: ToolEvent) -> Result<Update<'_>, Error> {
        if let Some(state) = self.finished(event.id()) {
            return Err(Error::AlreadyFinished {
                id: event.id().to_owned(),
                state,
                event: Box::new(event),
            });
        }
        let ToolEvent::ToolCallStarted(started) = event else {
            return Err(Error::unknown_call(event));
        };
        let call = AnyToolCall::start(started, self.output_cap);
        let place = self.next;
        self.next += 1;
        self.index.insert(call.id().to_owned(), place);
        let call = self.calls.entry(place).or_default().insert(call);
        Ok(Update {
            outcome: Outcome::Created,
            call,
        })
    }

    /// The call with this id, while the fold holds it.
    pub fn get(&self, id: &str) -> Option<&AnyToolCall> {
        self.calls.get(self.index.get(id)?)?.as_ref()
    }

    /// The final state of a call the fold evicted once finished, while it is one of the
    /// last [`FINISHED_WINDOW`](crate::FINISHED_WINDOW) (always `None` when the fold keeps finished calls).
    pub fn finished(&self, id: &str) -> Option<ToolState> {
        self.finished.as_ref()?.get(id)
    }

    /// Drops the call the last event finished and evicted now, rather than at the next
    /// event: a caller done with that event's [`Update`] frees the call (and its output)
    /// at once, so that a huge output is not held while more input is read.
    pub fn drop_evicted(&mut self) {
        self.evicted = None;
    }

    /// Removes a call (e.g. once a terminal part was written), keeping the order of the rest.
    ///
    /// Later events for that id are then reported as [`Error::UnknownCall`]: a removed
    /// call is forgotten, not remembered as finished.
    pub fn remove(&mut self, id: &str) -> Option<AnyToolCall> {
        let place = self.index.remove(id)?;
        self.calls.remove(&place)?
    }

    /// The calls the fold holds, in first-seen order.
    pub fn calls(&self) -> impl Iterator<Item = &AnyToolCall> {
        self.calls.values().flatten()
    }

    /// Snapshots of the parts of the calls the fold holds, in first-seen order.
    pub fn parts(&self) -> Vec<NormalizedToolPart> {
        self.calls().map(AnyToolCall::to_part).collect()
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

/// The result of replaying a log: the parts and every event that did not apply.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Replay {
    /// The parts, in first-seen order.
    pub parts: Vec<NormalizedToolPart>,
    /// What did not apply, in log order.
    pub diagnostics: Vec<Error>,
}

/// Folds a whole event log from scratch: the same parts as folding it live, and every
/// event that did not apply, in log order.
///
/// ```
/// use toolnorm::{ToolEvent, ToolState, replay};
///
/// let log = [
///     r#"{"type":"toolCallStarted","id":"c1","name":"Bash","kind":"bash","title":"ls"}"#,
///     r#"{"type":"toolCallRunning","id":"c2"}"#,
///     r#"{"type":"toolCallCompleted","id":"c1","output":"a.txt"}"#,
/// ];
/// let events = log.map(serde_json::from_str::<ToolEvent>);
/// let replayed = replay(events.into_iter().collect::<Result<Vec<_>, _>>()?);
/// assert_eq!(replayed.parts.len(), 1);
/// assert_eq!(replayed.parts[0].state, ToolState::Complete);
/// assert_eq!(
///     replayed.diagnostics[0].to_string(),
///     "toolCallRunning for tool call `c2`, which was never started"
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{ToolCallCompleted, ToolCallStarted};
    use crate::part::ToolKind;
    use serde_json::{Value, json};

    fn started(id: &str) -> ToolEvent {
        ToolCallStarted {
            id: id.into(),
            name: "Bash".into(),
            kind: ToolKind::Bash,
            title: "ls".into(),
            input: Value::Null.into(),
            metadata: None,
            at: None,
        }
        .into()
    }

    fn completed(id: &str) -> ToolEvent {
        ToolCallCompleted {
            id: id.into(),
            output: Some(json!("ok").into()),
            input: None,
            title: None,
            elapsed_ms: None,
            at: None,
        }
        .into()
    }

    fn evicting() -> Fold {
        Fold::builder().evict_finished(true).build()
    }

    #[test]
    fn the_event_that_finishes_a_call_lends_it_until_the_next_event() {
        let mut fold = evicting();
        fold.apply(started("a")).unwrap();
        fold.apply(started("b")).unwrap();
        let update = fold.apply(completed("a")).unwrap();
        assert_eq!(update.outcome, Outcome::Changed);
        assert_eq!(update.call.state(), ToolState::Complete);
        assert_eq!(update.part().output.as_deref(), Some(&json!("ok")));
        assert!(fold.get("a").is_none() && !fold.index.contains_key("a"));
        assert_eq!(fold.evicted.as_ref().map(AnyToolCall::id), Some("a"));
        assert_eq!(fold.finished("a"), Some(ToolState::Complete));
        assert_eq!(fold.len(), 1);
        fold.apply(completed("b")).unwrap();
        assert_eq!(fold.evicted.as_ref().map(AnyToolCall::id), Some("b"));
        assert!(fold.apply(completed("b")).is_err());
        assert!(fold.evicted.is_none(), "the last finished call is dropped");
        fold.apply(started("c")).unwrap();
        fold.apply(completed("c")).unwrap();
        assert_eq!(fold.evicted.as_ref().map(AnyToolCall::id), Some("c"));
        fold.drop_evicted();
        assert!(fold.evicted.is_none());
        assert_eq!(fold.finished("c"), Some(ToolState::Complete));
        assert!(fold.is_empty() && fold.calls.is_empty() && fold.index.is_empty());
    }

    #[test]
    fn a_fold_that_keeps_finished_calls_remembers_none() {
        let mut fold = Fold::new();
        fold.apply(started("a")).unwrap();
        fold.apply(completed("a")).unwrap();
        assert_eq!(fold.finished("a"), None);
        assert!(fold.get("a").is_some_and(AnyToolCall::is_terminal));
        assert!(fold.evicted.is_none());
        assert!(matches!(
            fold.apply(completed("a")).map(|update| update.outcome),
            Ok(Outcome::Unchanged)
        ));
    }

    #[test]
    fn the_builder_sets_the_output_cap() {
        let mut fold = Fold::builder().output_cap(2).build();
        fold.apply(started("a")).unwrap();
        let chunk = crate::event::OutputAppended {
            id: "a".into(),
            offset: 0,
            chunk: "abc".into(),
            at: None,
        };
        let part = fold.apply(chunk.into()).unwrap().part();
        let metadata = part.metadata.unwrap();
        assert_eq!(metadata[crate::meta::PARTIAL_OUTPUT], "ab");
        assert_eq!(metadata[crate::meta::OUTPUT_CAP_BYTES], 2);
    }
}
