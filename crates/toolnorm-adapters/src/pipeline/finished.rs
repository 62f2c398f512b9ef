//! The calls already finished and dropped from memory, remembered in bounded space.
//!
//! When finished calls are evicted from the fold, a late event for one of them must still
//! be reported as "already finished" rather than start a new call. Keeping every finished
//! id would grow with the stream; instead the last [`WINDOW`] finished calls are kept as
//! 64-bit keyed hashes of their ids (with their final state), oldest forgotten first:
//! about 1.5 MiB at most, however long the stream.

use std::collections::HashMap;
use std::collections::VecDeque;
use std::hash::{BuildHasher, RandomState};

use toolnorm::ToolState;

/// How many finished calls are remembered.
pub const WINDOW: usize = 1 << 16;

/// The last [`WINDOW`] finished calls.
#[derive(Debug, Default)]
pub struct Finished {
    hasher: RandomState,
    states: HashMap<u64, ToolState>,
    order: VecDeque<u64>,
}

impl Finished {
    /// The final state of `id`, if it finished recently.
    pub fn get(&self, id: &str) -> Option<ToolState> {
        if self.states.is_empty() {
            return None;
        }
        self.states.get(&self.hasher.hash_one(id)).copied()
    }

    /// Remembers that `id` finished in `state`, forgetting the oldest when full.
    pub fn insert(&mut self, id: &str, state: ToolState) {
        let key = self.hasher.hash_one(id);
        if self.states.insert(key, state).is_some() {
            return;
        }
        self.order.push_back(key);
        if self.order.len() > WINDOW
            && let Some(oldest) = self.order.pop_front()
        {
            self.states.remove(&oldest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_last_window_of_calls() {
        let mut finished = Finished::default();
        for call in 0..WINDOW + 10 {
            finished.insert(&format!("call_{call}"), ToolState::Complete);
        }
        assert_eq!(finished.get("call_0"), None);
        assert_eq!(finished.get("call_9"), None);
        assert_eq!(finished.get("call_10"), Some(ToolState::Complete));
        assert_eq!(
            finished.get(&format!("call_{}", WINDOW + 9)),
            Some(ToolState::Complete)
        );
        assert_eq!(finished.states.len(), WINDOW);
        assert_eq!(finished.order.len(), WINDOW);
    }

    #[test]
    fn a_call_finished_twice_is_kept_once() {
        let mut finished = Finished::default();
        finished.insert("a", ToolState::Error);
        finished.insert("a", ToolState::Error);
        assert_eq!(finished.order.len(), 1);
        assert_eq!(finished.get("a"), Some(ToolState::Error));
        assert_eq!(finished.get("b"), None);
    }
}
