//! What a dialect reads of a line ahead of it, on another thread
//! ([`Driver::read_ahead`](crate::Driver::read_ahead)): the part of reading a line that
//! needs nothing of the stream before it (one parse of its bytes), and how its adapter
//! takes it with the line.

use std::marker::PhantomData;

use crate::adapter::Adapter;
use crate::track::Facts;

/// What a dialect's reader read of one line ahead of it.
pub(crate) enum Scanned<'a> {
    /// Claude Code's one scan of a line.
    #[cfg(feature = "claude-code")]
    ClaudeCode(super::claude_code::Prescan<'a>),
    /// Nothing read (a scanner that reads nothing of this line).
    #[allow(dead_code)]
    Nothing(PhantomData<&'a [u8]>),
}

/// Reads one line ahead: a pure function of its bytes.
pub(crate) type Scanner = for<'a> fn(&'a [u8]) -> Scanned<'a>;

/// How a dialect reads ahead: the scanner, and how its adapter reads a line with what
/// was read of it (an adapter that is not the dialect's own reads the line as it is).
#[derive(Clone, Copy)]
pub(crate) struct ReadAhead {
    /// Reads a line ahead.
    pub scan: Scanner,
    /// Has `adapter` read a line with what `scan` read of it.
    pub line: for<'a> fn(&mut dyn Adapter, u64, &'a [u8], Scanned<'a>, &mut Facts<'_>),
}
