//! Several sessions in one stream: call ids unique only within a session.

use foldhash::HashMap;
use std::borrow::Cow;

use serde_json::Value;
use toolnorm::{ToolError, meta};

use super::{Ending, Facts};

/// The sessions of a stream, for call ids that are unique only within one.
///
/// A stream may hold several sessions (a `codex exec` run, then `codex exec resume`;
/// files concatenated; the threads or child sessions of one run, interleaved), and a
/// provider may number its calls afresh in each (`item_0`). Sessions are numbered from 1
/// in the order they first appear. A call keeps its raw id as its part id unless a call of
/// another session already has that id (finished, or left open by a run that ended): then
/// it gets the part id `<id>~<n>`, `n` the number of its session, with the raw id in
/// `metadata.rawId`, and its session's later events for that raw id go to that part. Lines
/// that name no session belong to the session named last.
#[derive(Debug, Default)]
pub(super) struct Sessions {
    /// The session the lines belong to now, and its number.
    pub(super) current: Option<(String, u32)>,
    /// Session id → its number (the latest run's, for a session begun again).
    numbers: HashMap<String, u32>,
    /// How many sessions (or runs of one) began so far.
    count: u32,
    /// Raw id → the number of the session whose call has it as its part id, for calls
    /// first sighted in a session other than the first (the first owns every other id).
    /// Only the ids a call still has (open, or remembered as finished) matter: the others
    /// are pruned from time to time (see [`Facts::prune_owners`]).
    owners: HashMap<String, u32>,
    /// The size of `owners` that makes the next sighting prune it.
    prune_at: usize,
    /// Session number → raw id → part id, for the calls that had to be renamed.
    renamed: HashMap<u32, HashMap<String, String>>,
}

impl Sessions {
    /// The number of the current session (1 before any session is named).
    fn number(&self) -> u32 {
        self.current.as_ref().map_or(1, |(_, number)| *number)
    }

    /// Whether the lines belong to session `id` now.
    fn is_current(&self, id: &str) -> bool {
        self.current
            .as_ref()
            .is_some_and(|(current, _)| current == id)
    }

    /// The part id of a call the current session renamed.
    fn renamed(&self, raw: &str) -> Option<&String> {
        if self.renamed.is_empty() {
            return None;
        }
        self.renamed.get(&self.number())?.get(raw)
    }
}

impl Facts<'_> {
    /// The lines from here on belong to session `id`: a new session the first time the
    /// stream names it, else the one it named before (sessions may interleave). Calls carry
    /// their session in `metadata.sessionId`.
    pub fn session(&mut self, id: &str) {
        let sessions = &mut self.tracker.sessions;
        if sessions.is_current(id) {
            return;
        }
        let number = match sessions.numbers.get(id) {
            Some(number) => *number,
            None => {
                sessions.count += 1;
                sessions.numbers.insert(id.to_owned(), sessions.count);
                sessions.count
            }
        };
        sessions.current = Some((id.to_owned(), number));
    }

    /// The lines from here on belong to session `id` if the stream began it before (the
    /// runs of several streams merged line by line); a session never begun changes nothing.
    pub fn back_to_session(&mut self, id: &str) {
        let sessions = &mut self.tracker.sessions;
        if sessions.is_current(id) {
            return;
        }
        if let Some(number) = sessions.numbers.get(id) {
            sessions.current = Some((id.to_owned(), *number));
        }
    }

    /// A new session (or a new run of one, such as `codex exec resume`) begins with this
    /// line: its calls are numbered afresh, even when it names a session seen before.
    pub fn begin_session(&mut self, id: &str) {
        let sessions = &mut self.tracker.sessions;
        sessions.count += 1;
        sessions.numbers.insert(id.to_owned(), sessions.count);
        sessions.current = Some((id.to_owned(), sessions.count));
    }

    /// A new run begins whose session the stream names only at its end, or not at all (a
    /// Copilot CLI stream's `result` line): its calls are numbered afresh as a new
    /// session's are, and carry no `metadata.sessionId`.
    pub fn begin_unnamed_session(&mut self) {
        let sessions = &mut self.tracker.sessions;
        // The lines before any session was named were session 1's.
        sessions.count = sessions.count.max(1) + 1;
        sessions.current = Some((String::new(), sessions.count));
    }

    /// The run of session `session` (the current one when `None`) ended with calls still
    /// open (a stream's last line says the run was interrupted): each of them fails with
    /// `error`. A call of another session is left as it is.
    pub fn fail_open_calls_of_session(
        &mut self,
        line: u64,
        session: Option<&str>,
        error: &ToolError,
        ending: &Ending,
    ) {
        let session = match (session, &self.tracker.sessions.current) {
            (Some(session), _) => Some(session.to_owned()),
            (None, Some((session, _))) if !session.is_empty() => Some(session.clone()),
            (None, _) => None,
        };
        for id in self.sink.open_ids() {
            let call_session = self
                .sink
                .call(&id)
                .and_then(|call| call.metadata().get(meta::SESSION_ID))
                .and_then(Value::as_str);
            if call_session == session.as_deref() {
                self.fail_part(line, &id, error.clone(), ending.clone());
            }
        }
    }

    /// The part id of a raw call id in the current session.
    pub(super) fn part_id<'i>(&self, raw: &'i str) -> Cow<'i, str> {
        match self.tracker.sessions.renamed(raw) {
            None => Cow::Borrowed(raw),
            Some(id) => Cow::Owned(id.clone()),
        }
    }

    /// Whether `raw` is the id of a call of another session: a sighting of it in the
    /// current session is a call of its own (see [`Facts::session`]).
    pub fn is_other_sessions(&self, raw: &str) -> bool {
        let sessions = &self.tracker.sessions;
        sessions.count >= 2
            && sessions.renamed(raw).is_none()
            && !self.owns(raw)
            && self.is_used(raw)
    }

    /// Whether the current session owns raw id `raw` (the first session owns every id
    /// no later one claimed).
    fn owns(&self, raw: &str) -> bool {
        let sessions = &self.tracker.sessions;
        sessions.owners.get(raw).copied().unwrap_or(1) == sessions.number()
    }

    /// Whether a call has raw id `raw` as its part id (open, or finished).
    fn is_used(&self, raw: &str) -> bool {
        self.sink.finished(raw).is_some() || self.sink.call(raw).is_some()
    }

    /// The part id for a sighting of `raw`: itself, or `<raw>~<n>` when a call of another
    /// session already has it.
    pub(super) fn sighted_id(&mut self, raw: &str) -> Option<String> {
        let sessions = &self.tracker.sessions;
        if sessions.count < 2 {
            return None;
        }
        if let Some(id) = sessions.renamed(raw) {
            return Some(id.clone());
        }
        if self.owns(raw) {
            return None;
        }
        let number = self.tracker.sessions.number();
        if !self.is_used(raw) {
            // Unused so far: this session's own.
            if self.tracker.sessions.owners.len() >= self.tracker.sessions.prune_at {
                // Before the insertion: the call of this sighting does not exist yet.
                self.prune_owners();
            }
            let sessions = &mut self.tracker.sessions;
            sessions.owners.insert(raw.to_owned(), number);
            return None;
        }
        let id = format!("{raw}~{number}");
        let sessions = &mut self.tracker.sessions;
        sessions
            .renamed
            .entry(number)
            .or_default()
            .insert(raw.to_owned(), id.clone());
        Some(id)
    }

    /// Forgets the owners of the raw ids no call has any more (neither open nor
    /// remembered as finished by the fold), so that `owners` does not grow with the
    /// stream. Their entries decide nothing: an id no call has is not another session's
    /// ([`Facts::is_other_sessions`]), and its next sighting makes it the sighting
    /// session's own whatever the entry said ([`Facts::sighted_id`]). Runs when the map
    /// has doubled since the last time, so each sighting pays for it a constant amount.
    fn prune_owners(&mut self) {
        let mut owners = std::mem::take(&mut self.tracker.sessions.owners);
        owners.retain(|raw, _| self.is_used(raw));
        let sessions = &mut self.tracker.sessions;
        sessions.prune_at = (owners.len() * 2).max(MIN_PRUNE);
        owners.shrink_to(sessions.prune_at);
        sessions.owners = owners;
    }
}

/// The smallest `owners` that is pruned.
const MIN_PRUNE: usize = 1 << 12;
