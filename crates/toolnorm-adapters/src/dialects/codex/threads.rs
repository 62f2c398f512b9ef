//! Subagent threads: the call that started each thread, for the calls made in it to carry
//! `metadata.parentToolCallId`.
//!
//! The link is known from the call that starts the agent (a `subAgentActivity` `started`
//! names its thread; a `spawnAgent` collab call names it among its receivers once it
//! completes), or from the thread's own `thread/started`, which names its parent thread
//! (whose one open spawn call not yet linked is then the one; with several open, none is
//! guessed). A call seen in a thread not yet linked (and not a root thread) is remembered;
//! when the link comes, each of those calls still open is given its parent. In a thread
//! that said it is a subagent's and is not linked yet, a call's end waits for the link (or
//! the end of the stream), so that the call is still open to be given its parent.

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use toolnorm::meta;

use super::items::{Outcome, object};
use crate::track::{Ending, Facts};

/// At most this many calls are held per thread whose spawning call is not known yet.
const MAX_WAITING_CALLS: usize = 1024;

/// At most this many threads hold calls whose spawning call is not known yet.
const MAX_WAITING_THREADS: usize = 256;

/// A call's end held for its thread's spawning call: the call, how it ended.
type HeldEnd = (String, Outcome, Ending);

/// The subagent threads of a stream, and the calls waiting for their parent.
#[derive(Default)]
pub(super) struct Threads {
    /// Subagent thread → the call that started it.
    parents: HashMap<String, String>,
    /// Threads that said they have no parent (their calls are no subagent's).
    roots: HashSet<String>,
    /// Threads that said they are a subagent's, whose spawning call is not known yet.
    children: HashSet<String>,
    /// Thread → the calls seen in it before its spawning call was known.
    waiting: HashMap<String, Vec<String>>,
    /// Thread → the ends of its calls held until its spawning call is known.
    held: HashMap<String, Vec<HeldEnd>>,
    /// Thread → its open spawn calls whose spawned thread is not known yet, in order.
    open_spawns: HashMap<String, Vec<String>>,
}

impl Threads {
    /// The call that started `thread`, when known.
    pub(super) fn parent(&self, thread: &str) -> Option<&String> {
        self.parents.get(thread)
    }

    /// A thread started: a root (no `parent`), or a subagent's thread spawned from the
    /// thread `parent`. When `parent` has exactly one open spawn call not yet linked to a
    /// thread, that call started this one.
    pub(super) fn started(
        &mut self,
        line: u64,
        thread: &str,
        parent: Option<&str>,
        out: &mut Facts<'_>,
    ) {
        let Some(parent) = parent else {
            self.roots.insert(thread.to_owned());
            return;
        };
        if self.parents.contains_key(thread) {
            return;
        }
        match self.open_spawns.get(parent).map(Vec::as_slice) {
            Some([call]) => {
                let call = call.clone();
                self.link(line, thread, &call, Some(thread), out);
            }
            _ if self.children.len() < MAX_WAITING_THREADS => {
                self.children.insert(thread.to_owned());
            }
            _ => {}
        }
    }

    /// `thread` was started by `call`: the open calls already seen in the thread get
    /// their parent, and the ends held for it are applied. A thread keeps the first call
    /// that started it. The lines go on in session `back` (the thread of the line read).
    pub(super) fn link(
        &mut self,
        line: u64,
        thread: &str,
        call: &str,
        back: Option<&str>,
        out: &mut Facts<'_>,
    ) {
        if self.parents.contains_key(thread) {
            return;
        }
        self.parents.insert(thread.to_owned(), call.to_owned());
        self.children.remove(thread);
        for spawns in self.open_spawns.values_mut() {
            spawns.retain(|spawn| spawn != call);
        }
        let waiting = self.waiting.remove(thread).unwrap_or_default();
        let held = self.held.remove(thread).unwrap_or_default();
        if waiting.is_empty() && held.is_empty() {
            return;
        }
        // The calls are the thread's: their ids are read in its session.
        out.session(thread);
        for waiting in waiting {
            if waiting != call && out.is_open(&waiting) {
                out.merge_metadata(
                    line,
                    &waiting,
                    object([(meta::PARENT_TOOL_CALL_ID, Value::from(call))]),
                );
            }
        }
        end(line, held, out);
        if let Some(back) = back {
            out.session(back);
        }
    }

    /// A call seen in `thread`: remembered until the thread's spawning call is known,
    /// unless the thread is a root or linked already.
    pub(super) fn seen(&mut self, thread: &str, id: &str) {
        if self.roots.contains(thread) || self.parents.contains_key(thread) {
            return;
        }
        if !self.waiting.contains_key(thread) && self.waiting.len() >= MAX_WAITING_THREADS {
            return;
        }
        let calls = self.waiting.entry(thread.to_owned()).or_default();
        if calls.len() < MAX_WAITING_CALLS && !calls.iter().any(|call| call == id) {
            calls.push(id.to_owned());
        }
    }

    /// A call of `thread` ends: held when the thread is a subagent's whose spawning call
    /// is not known yet (given back otherwise, to be applied now).
    pub(super) fn end(
        &mut self,
        thread: Option<&str>,
        id: &str,
        outcome: Outcome,
        ending: Ending,
    ) -> Option<(Outcome, Ending)> {
        let Some(thread) = thread.filter(|thread| self.children.contains(*thread)) else {
            return Some((outcome, ending));
        };
        let held = self.held.entry(thread.to_owned()).or_default();
        if held.len() >= MAX_WAITING_CALLS {
            return Some((outcome, ending));
        }
        held.retain(|(held, _, _)| held != id);
        held.push((id.to_owned(), outcome, ending));
        None
    }

    /// The stream ended: the ends still held are applied, their calls without a parent.
    pub(super) fn release(&mut self, line: u64, out: &mut Facts<'_>) {
        let mut held: Vec<(String, Vec<HeldEnd>)> = self.held.drain().collect();
        held.sort_by(|(a, _), (b, _)| a.cmp(b));
        for (thread, ends) in held {
            out.session(&thread);
            end(line, ends, out);
        }
    }

    /// A spawn call seen in `thread`: open and not yet linked to the thread it spawned
    /// (`open`), or no longer.
    pub(super) fn spawn_seen(&mut self, thread: &str, call: &str, open: bool) {
        let spawns = self.open_spawns.entry(thread.to_owned()).or_default();
        spawns.retain(|spawn| spawn != call);
        if open {
            spawns.push(call.to_owned());
        }
        if spawns.is_empty() {
            self.open_spawns.remove(thread);
        }
    }
}

/// Applies call ends (of calls still open).
fn end(line: u64, ends: Vec<HeldEnd>, out: &mut Facts<'_>) {
    for (id, outcome, ending) in ends {
        if !out.is_open(&id) {
            continue;
        }
        match outcome {
            Outcome::InProgress => {}
            Outcome::Completed(output) => out.complete(line, &id, output, ending),
            Outcome::Failed(error) => out.fail(line, &id, error, ending),
        }
    }
}
