//! The calls already finished and dropped from memory, remembered in bounded space.
//!
//! When finished calls are evicted (a [`Fold`](crate::Fold) built with
//! [`evict_finished`](crate::FoldBuilder::evict_finished)), a late event for one of them
//! must still be reported as already finished rather than start a new call. Keeping every
//! finished id would grow with the stream; instead the last [`FINISHED_WINDOW`] finished
//! calls are kept as 64-bit keyed hashes of their ids (with their final state), oldest
//! forgotten first: about 1.5 MiB at most, however long the stream.

use std::collections::VecDeque;

use foldhash::HashMap;
use foldhash::quality::RandomState;
use std::hash::BuildHasher;

use crate::part::ToolState;

/// How many finished calls a [`FinishedCalls`] remembers.
pub const FINISHED_WINDOW: usize = 1 << 16;

/// The last [`FINISHED_WINDOW`] finished calls, by id, with their final state.
///
/// Ids are kept as keyed 64-bit hashes, not as strings (foldhash's quality hasher, seeded
/// at random: fast on short ids, of the statistical quality this needs): two ids collide
/// with a chance of about one in 2^64, so a lookup may, that rarely, name an id that
/// never finished.
///
/// ```
/// use toolnorm::{FINISHED_WINDOW, FinishedCalls, ToolState};
///
/// let mut finished = FinishedCalls::new();
/// finished.insert("call_0", ToolState::Complete);
/// for n in 1..=FINISHED_WINDOW {
///     finished.insert(&format!("call_{n}"), ToolState::Error);
/// }
/// assert_eq!(finished.get("call_0"), None, "the oldest is forgotten first");
/// assert_eq!(finished.get("call_1"), Some(ToolState::Error));
/// assert_eq!(finished.len(), FINISHED_WINDOW);
/// ```
#[derive(Debug, Clone, Default)]
pub struct FinishedCalls {
    hasher: RandomState,
    states: HashMap<u64, ToolState>,
    order: VecDeque<u64>,
}

impl FinishedCalls {
    /// An empty window.
    pub fn new() -> Self {
        FinishedCalls::default()
    }

    /// The final state of `id`, if it is one of the last calls that finished.
    pub fn get(&self, id: &str) -> Option<ToolState> {
        if self.states.is_empty() {
            return None;
        }
        self.states.get(&self.hasher.hash_one(id)).copied()
    }

    /// Remembers that `id` finished in `state`, forgetting the oldest call when full.
    /// An id already remembered keeps its place and takes the new state.
    pub fn insert(&mut self, id: &str, state: ToolState) {
        let key = self.hasher.hash_one(id);
        if self.states.insert(key, state).is_some() {
            return;
        }
        self.order.push_back(key);
        if self.order.len() > FINISHED_WINDOW
            && let Some(oldest) = self.order.pop_front()
        {
            self.states.remove(&oldest);
        }
    }

    /// How many finished calls are remembered.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether no finished call is remembered.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_last_window_of_calls() {
        let mut finished = FinishedCalls::default();
        for call in 0..FINISHED_WINDOW + 10 {
            finished.insert(&format!("call_{call}"), ToolState::Complete);
        }
        assert_eq!(finished.get("call_0"), None);
        assert_eq!(finished.get("call_9"), None);
        assert_eq!(finished.get("call_10"), Some(ToolState::Complete));
        assert_eq!(
            finished.get(&format!("call_{}", FINISHED_WINDOW + 9)),
            Some(ToolState::Complete)
        );
        assert_eq!(finished.states.len(), FINISHED_WINDOW);
        assert_eq!(finished.len(), FINISHED_WINDOW);
    }

    #[test]
    fn a_call_finished_twice_is_kept_once() {
        let mut finished = FinishedCalls::default();
        finished.insert("a", ToolState::Complete);
        finished.insert("a", ToolState::Error);
        assert_eq!(finished.len(), 1);
        assert_eq!(finished.get("a"), Some(ToolState::Error));
        assert_eq!(finished.get("b"), None);
        assert!(!finished.is_empty() && FinishedCalls::new().is_empty());
    }
}
