//! Lines read ahead: the part of reading a line that needs nothing of the stream before
//! it (one parse of its bytes), done for a whole batch of lines on another thread while
//! the batch before it is applied ([`Driver::read_ahead`](crate::Driver::read_ahead)).
//!
//! A dialect whose row names a [`ReadAhead`](crate::dialects::read_ahead::ReadAhead)
//! reads ahead. What the scanner read of a line is handed to the adapter with that very
//! line (the same bytes in the same batch); a line that comes otherwise (joined from two
//! batches, repaired, replayed after detection) is read as before. Reading ahead changes
//! where a line is parsed, never what it means: a scanner is a pure function of the
//! line's bytes, the one the adapter runs when nothing was read ahead.

use std::iter::Peekable;
use std::ops::Range;

use self_cell::self_cell;

use crate::dialects::read_ahead::{Scanned, Scanner};
use crate::read::lines::trim_cr;
use crate::read::surrogates;

/// A line read ahead: where its bytes lie (address and length), and what was read.
type Line<'a> = (usize, usize, Scanned<'a>);

/// The lines of a batch read ahead, in input order.
pub(crate) type ScannedLines<'a> = Vec<Line<'a>>;

/// A batch's buffer: its bytes, the first `filled` of which were read.
#[derive(Default)]
pub(crate) struct Filled {
    /// The buffer (its length is its size; the bytes past `filled` are not the input's).
    pub buffer: Vec<u8>,
    /// How many of its bytes were read.
    pub filled: usize,
}

impl Filled {
    /// The bytes read.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.buffer.get(..self.filled).unwrap_or_default()
    }
}

self_cell!(
    /// A batch of the input and its lines read ahead, held together so that they go
    /// together to the thread that applies them.
    pub(crate) struct ScannedBatch {
        owner: Filled,
        #[not_covariant]
        dependent: ScannedLines,
    }
);

impl ScannedBatch {
    /// Reads the lines of `batch` with `scanner` ([`scan_lines`]).
    pub(crate) fn scan(batch: Filled, scanner: Scanner) -> Self {
        ScannedBatch::new(batch, |batch| scan_lines(scanner, batch.bytes()))
    }
}

/// The lines of a batch read ahead, asked for in input order by the thread applying
/// them.
pub(crate) struct Ahead<'a> {
    /// Where the batch lies: bytes elsewhere were not read ahead.
    batch: Range<usize>,
    /// Lines not asked for yet.
    lines: Peekable<std::vec::IntoIter<Line<'a>>>,
}

impl<'a> Ahead<'a> {
    /// Nothing read ahead.
    pub(crate) fn none() -> Self {
        Ahead {
            batch: 0..0,
            lines: Vec::new().into_iter().peekable(),
        }
    }

    /// The lines of `batch`, read ahead.
    pub(crate) fn of(batch: &'a [u8], lines: ScannedLines<'a>) -> Self {
        let start = batch.as_ptr() as usize;
        Ahead {
            batch: start..start + batch.len(),
            lines: lines.into_iter().peekable(),
        }
    }

    /// What was read ahead of `bytes`, when they are the very bytes read (the same place
    /// in the same batch). Lines of the batch before them, never asked for, are dropped.
    pub(crate) fn take(&mut self, bytes: &[u8]) -> Option<Scanned<'a>> {
        let at = bytes.as_ptr() as usize;
        if !self.batch.contains(&at) {
            return None;
        }
        while let Some((start, length, _)) = self.lines.peek() {
            if *start > at {
                return None;
            }
            if *start == at && *length == bytes.len() {
                return self.lines.next().map(|(_, _, scanned)| scanned);
            }
            self.lines.next();
        }
        None
    }
}

/// Reads the lines of `batch` ended by a newline with `scanner`, as
/// [`Lines`](crate::read::lines::Lines) hands them over (without the newline, nor a `\r`
/// before it); skips those with a lone surrogate's escape (read once repaired): a line
/// read ahead needs no repair.
pub(crate) fn scan_lines(scanner: Scanner, batch: &[u8]) -> ScannedLines<'_> {
    let mut lines = Vec::new();
    let mut rest = batch;
    while let Some(newline) = memchr::memchr(b'\n', rest) {
        let (line, after) = rest.split_at(newline);
        rest = after.get(1..).unwrap_or_default();
        let line = trim_cr(line);
        if surrogates::is_whole(line) {
            lines.push((line.as_ptr() as usize, line.len(), scanner(line)));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use std::marker::PhantomData;

    use super::*;

    fn nothing(line: &[u8]) -> Scanned<'_> {
        // A stand-in scanner: what it read is only seen through `take`.
        let _ = line;
        Scanned::Nothing(PhantomData)
    }

    /// The batch's lines all read ahead, then asked for.
    fn read_first(batch: &[u8], ask: impl FnOnce(&mut Ahead<'_>)) {
        ask(&mut Ahead::of(batch, scan_lines(nothing, batch)));
    }

    #[test]
    fn only_the_very_bytes_read_ahead_are_given() {
        let batch = b"{\"a\":1}\r\n\n{\"b\":2}\n{\"partial\"";
        read_first(batch, |ahead| {
            // The same bytes copied elsewhere are not the line read ahead, and drop nothing.
            let copy = batch.to_vec();
            assert!(ahead.take(&copy[10..17]).is_none());
            // The first line, without its `\r`.
            assert!(ahead.take(&batch[..7]).is_some());
            assert!(ahead.take(&batch[..7]).is_none(), "given once");
            // The blank line is skipped when the next one is asked for.
            assert!(ahead.take(&batch[10..17]).is_some());
            // The unfinished last line was not read.
            assert!(ahead.take(&batch[18..]).is_none());
            assert!(ahead.lines.peek().is_none());
        });
    }

    #[test]
    fn a_line_cut_otherwise_is_not_given() {
        let batch = b"{\"a\":1}\n{\"b\":2}\n";
        read_first(batch, |ahead| {
            assert!(
                ahead.take(&batch[..5]).is_none(),
                "same start, other length"
            );
            // The first line was dropped on the way to the second.
            assert!(ahead.take(&batch[8..15]).is_some());
        });
    }

    #[test]
    fn a_line_with_a_lone_surrogate_is_not_read_ahead() {
        let batch = b"{\"a\":\"\\ud83d\"}\n{\"b\":\"\\ud83d\\ude00\"}\n";
        read_first(batch, |ahead| {
            assert!(ahead.take(&batch[..14]).is_none());
            assert!(ahead.take(&batch[15..35]).is_some(), "a pair is whole");
        });
    }

    #[test]
    fn a_batch_gives_back_its_buffer() {
        let mut buffer = b"1\n2\n3".to_vec();
        buffer.resize(16, 0);
        let mut batch = ScannedBatch::scan(Filled { buffer, filled: 5 }, nothing);
        batch.with_dependent_mut(|filled, lines| {
            assert_eq!(filled.bytes(), b"1\n2\n3");
            assert_eq!(lines.len(), 2, "the unended line is not read ahead");
        });
        assert_eq!(batch.into_owner().buffer.len(), 16);
    }

    #[test]
    fn nothing_is_given_without_lines() {
        let batch = b"1\n2\n";
        assert!(Ahead::none().take(&batch[..1]).is_none());
        assert!(Ahead::of(batch, Vec::new()).take(&batch[..1]).is_none());
    }
}
