//! Lines read ahead: the part of reading a line that needs nothing of the stream before
//! it (one parse of its bytes), done for a batch of lines on another thread while the
//! lines before them are applied ([`Driver::read_ahead`](crate::Driver::read_ahead)).
//!
//! A dialect whose row names a [`ReadAhead`](crate::dialects::read_ahead::ReadAhead)
//! reads ahead. What the scanner read of a line
//! is handed to the adapter with that very line (the same bytes in the same batch); a
//! line that comes otherwise (joined from two reads, repaired, replayed after
//! detection) is read as before. Reading ahead changes where a line is parsed, never
//! what it means: a scanner is a pure function of the line's bytes, the one the adapter
//! runs when nothing was read ahead.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};

use crate::dialects::read_ahead::{Scanned, Scanner};
use crate::read::lines::trim_cr;

/// A line read ahead: where its bytes lie (address and length), and what was read.
type Line<'a> = (usize, usize, Scanned<'a>);

/// How many lines the reader ahead sends at once.
const SENT_LINES: usize = 32;

/// The lines of a batch read ahead, in input order, as the thread reading them sends
/// them.
pub(crate) struct Ahead<'a> {
    /// Where the batch lies: bytes elsewhere were not read ahead.
    batch: Range<usize>,
    /// Lines received, not asked for yet.
    lines: VecDeque<Line<'a>>,
    /// Where the lines come from, and the address of the line asked for last (the reader
    /// ahead skips the lines up to it); none: nothing is read ahead.
    incoming: Option<(Receiver<Vec<Line<'a>>>, &'a AtomicUsize)>,
}

impl<'a> Ahead<'a> {
    /// Nothing read ahead.
    pub(crate) fn none() -> Self {
        Ahead {
            batch: 0..0,
            lines: VecDeque::new(),
            incoming: None,
        }
    }

    /// The lines of `batch` as [`read_lines`] sends them through `incoming`.
    pub(crate) fn receiving(
        batch: &'a [u8],
        incoming: Receiver<Vec<Line<'a>>>,
        reached: &'a AtomicUsize,
    ) -> Self {
        let start = batch.as_ptr() as usize;
        Ahead {
            batch: start..start + batch.len(),
            lines: VecDeque::new(),
            incoming: Some((incoming, reached)),
        }
    }

    /// What was read ahead of `bytes`, when they are the very bytes read (the same place
    /// in the same batch) and the reader ahead got to them first: never waited for.
    /// Lines of the batch read ahead before them, never asked for, are dropped.
    pub(crate) fn take(&mut self, bytes: &[u8]) -> Option<Scanned<'a>> {
        let at = bytes.as_ptr() as usize;
        if !self.batch.contains(&at) {
            return None;
        }
        let (incoming, reached) = self.incoming.as_ref()?;
        reached.store(at, Ordering::Relaxed);
        loop {
            while let Some((start, length, _)) = self.lines.front() {
                if *start > at {
                    return None;
                }
                if *start == at && *length == bytes.len() {
                    return self.lines.pop_front().map(|(_, _, scanned)| scanned);
                }
                self.lines.pop_front();
            }
            let received = incoming.try_recv().ok()?;
            self.lines.extend(received);
        }
    }
}

/// Reads the lines of `batch` ended by a newline with `scanner`, as
/// [`Lines`](crate::read::lines::Lines) hands them over (without the newline, nor a `\r`
/// before it), and sends them in order to `out`, a few at a time; skips the lines the
/// reader of the batch has `reached` already. Ends when the batch is read or nobody
/// receives any more.
pub(crate) fn read_lines<'a>(
    scanner: Scanner,
    batch: &'a [u8],
    reached: &AtomicUsize,
    out: SyncSender<Vec<Line<'a>>>,
) {
    let mut lines = Vec::with_capacity(SENT_LINES);
    let mut rest = batch;
    while let Some(newline) = memchr::memchr(b'\n', rest) {
        let (line, after) = rest.split_at(newline);
        rest = after.get(1..).unwrap_or_default();
        let line = trim_cr(line);
        let start = line.as_ptr() as usize;
        if start <= reached.load(Ordering::Relaxed) {
            continue;
        }
        lines.push((start, line.len(), scanner(line)));
        if lines.len() == SENT_LINES {
            let full = std::mem::replace(&mut lines, Vec::with_capacity(SENT_LINES));
            if out.send(full).is_err() {
                return;
            }
        }
    }
    if !lines.is_empty() {
        let _ = out.send(lines);
    }
}

#[cfg(test)]
mod tests {
    use std::marker::PhantomData;
    use std::sync::mpsc::sync_channel;

    use super::*;

    fn nothing(line: &[u8]) -> Scanned<'_> {
        // A stand-in scanner: what it read is only seen through `take`.
        let _ = line;
        Scanned::Nothing(PhantomData)
    }

    /// The batch's lines all read ahead, then asked for.
    fn read_first(batch: &[u8], reached: &AtomicUsize, ask: impl FnOnce(&mut Ahead<'_>)) {
        let (out, incoming) = sync_channel(batch.len());
        read_lines(nothing, batch, reached, out);
        ask(&mut Ahead::receiving(batch, incoming, reached));
    }

    #[test]
    fn only_the_very_bytes_read_ahead_are_given() {
        let batch = b"{\"a\":1}\r\n\n{\"b\":2}\n{\"partial\"";
        let reached = AtomicUsize::new(0);
        read_first(batch, &reached, |ahead| {
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
            assert!(ahead.lines.is_empty());
        });
    }

    #[test]
    fn a_line_cut_otherwise_is_not_given() {
        let batch = b"{\"a\":1}\n{\"b\":2}\n";
        let reached = AtomicUsize::new(0);
        read_first(batch, &reached, |ahead| {
            assert!(
                ahead.take(&batch[..5]).is_none(),
                "same start, other length"
            );
            // The first line was dropped on the way to the second.
            assert!(ahead.take(&batch[8..15]).is_some());
        });
    }

    #[test]
    fn lines_the_reader_reached_are_not_read_ahead() {
        let batch = b"1\n2\n3\n4\n";
        let reached = AtomicUsize::new(batch[2..].as_ptr() as usize);
        let (out, incoming) = sync_channel(8);
        read_lines(nothing, batch, &reached, out);
        let lines: Vec<usize> = incoming
            .iter()
            .flatten()
            .map(|(_, length, _)| length)
            .collect();
        assert_eq!(lines.len(), 2, "lines 3 and 4 only");
        let reached = AtomicUsize::new(0);
        read_first(batch, &reached, |ahead| {
            assert!(ahead.take(&batch[2..3]).is_some());
            assert_eq!(
                reached.load(Ordering::Relaxed),
                batch[2..].as_ptr() as usize
            );
        });
    }

    #[test]
    fn nothing_is_waited_for() {
        let batch = b"1\n2\n";
        let reached = AtomicUsize::new(0);
        let (_out, incoming) = sync_channel(1);
        let mut ahead = Ahead::receiving(batch, incoming, &reached);
        assert!(ahead.take(&batch[..1]).is_none());
        assert!(Ahead::none().take(&batch[..1]).is_none());
    }
}
