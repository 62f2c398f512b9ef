//! [`Driver::read_ahead`]: a second thread reads the input in batches of whole lines and
//! parses each batch's lines while the batch before it is applied (see
//! `pipeline/ahead.rs`).

use std::io::{self, BufRead};
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::thread;

use super::{Driver, Sink};
use crate::dialects::read_ahead::Scanner;
use crate::pipeline::{Ahead, Filled, ScannedBatch};

/// The input a batch gathers, at most, before its lines are read ahead (unless a line is
/// longer).
const BATCH: usize = 1 << 17;

/// The read size that says more input is waiting: a read that gives less is all the
/// input had for now (a live stream), and ends the batch rather than wait for more.
const FULL_READ: usize = 1 << 16;

/// How many batches read ahead may wait for the thread applying them.
const BATCHES_AHEAD: usize = 1;

/// A batch read ahead, with the end of the input when it is the last.
struct Batch {
    lines: ScannedBatch,
    end: Option<io::Result<()>>,
}

impl<S: Sink> Driver<S> {
    /// Feeds the whole of `input`, as [`read`](Driver::read) does, reading ahead when it
    /// can: once the stream's dialect is known, and when it is one whose lines parse
    /// apart from the stream (Claude Code's, Qwen Code's), a second thread reads the
    /// input in batches of whole lines (up to 128 KiB, or what a live stream has for
    /// now) and parses each batch's lines while the batch before it is applied. The
    /// steps, diagnostics and their order are those of [`read`](Driver::read); only the
    /// time differs. On one core, or for other dialects, it is [`read`](Driver::read).
    ///
    /// A batch ends at a read that gives less than 64 KiB: give it a reader that reads
    /// that much when the input has it (`BufReader::with_capacity(1 << 16, …)`), so that
    /// a file goes in large batches and a live stream's lines go at once.
    pub fn read_ahead(&mut self, input: &mut (dyn BufRead + Send)) -> io::Result<()> {
        let one_core = thread::available_parallelism().map_or(true, |cores| cores.get() < 2);
        // Until the dialect is known to read ahead, chunk by chunk.
        let scanner = loop {
            if let Some(scanner) = self.normalizer.read_ahead().filter(|_| !one_core) {
                break scanner;
            }
            if let Some(end) = self.push_chunk(input) {
                return end;
            }
        };
        thread::scope(|scope| {
            let (out, batches) = sync_channel(BATCHES_AHEAD);
            let (give_back, given_back) = channel();
            scope.spawn(move || read_batches(input, scanner, &out, &given_back));
            for Batch { mut lines, end } in batches {
                lines.with_dependent_mut(|filled, scanned| {
                    let bytes = filled.bytes();
                    self.push_ahead(bytes, &mut Ahead::of(bytes, std::mem::take(scanned)));
                });
                if let Some(end) = end {
                    return end;
                }
                // Its buffer is filled again (unless the reader has stopped).
                let _ = give_back.send(lines.into_owner());
            }
            // The reader stops without the input's end only when it panics, which the
            // scope passes on.
            Ok(())
        })
    }
}

/// Reads `input` in batches of whole lines (at most [`BATCH`] bytes, or what a short
/// read gave; a line longer than a batch is cut), reads each batch's lines ahead with
/// `scanner` and sends the batch to `out`, the last with the end of the input. Fills
/// again the buffers `given_back`. Ends at the end of the input, or when nobody
/// receives the batches.
fn read_batches(
    input: &mut (dyn BufRead + Send),
    scanner: Scanner,
    out: &SyncSender<Batch>,
    given_back: &Receiver<Filled>,
) {
    let mut batch = Filled::default();
    loop {
        let end = fill(input, &mut batch);
        let cut = match end {
            Some(_) => batch.filled,
            None => memchr::memrchr(b'\n', batch.bytes()).map_or(0, |newline| newline + 1),
        };
        // A line longer than a batch goes on as it comes: the line splitter holds it.
        let cut = if cut == 0 && batch.filled >= BATCH {
            batch.filled
        } else {
            cut
        };
        if cut == 0 && end.is_none() {
            // A line not ended yet, and nothing before it: read on.
            continue;
        }
        let mut next = given_back.try_recv().unwrap_or_default();
        start_with(&mut next, batch.bytes().get(cut..).unwrap_or_default());
        batch.filled = cut;
        let last = end.is_some();
        let lines = ScannedBatch::scan(batch, scanner);
        if out.send(Batch { lines, end }).is_err() || last {
            return;
        }
        batch = next;
    }
}

/// Reads more of `input` into `batch`, after what it holds, until [`BATCH`] bytes, a
/// short read, or the end of the input; the end, if the input ended (read to its end,
/// or an error reading it).
fn fill(input: &mut (dyn BufRead + Send), batch: &mut Filled) -> Option<io::Result<()>> {
    if batch.buffer.len() < BATCH {
        batch.buffer.resize(BATCH, 0);
    }
    while batch.filled < BATCH {
        let spare = batch.buffer.get_mut(batch.filled..).unwrap_or_default();
        let length = match input.read(spare) {
            Ok(0) => return Some(Ok(())),
            Ok(length) => length,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Some(Err(error)),
        };
        batch.filled += length;
        if length < FULL_READ {
            break;
        }
    }
    None
}

/// Makes `batch` hold `carried` (the unended line of the batch before) and nothing else.
fn start_with(batch: &mut Filled, carried: &[u8]) {
    if batch.buffer.len() < carried.len() {
        batch.buffer.resize(carried.len(), 0);
    }
    if let Some(start) = batch.buffer.get_mut(..carried.len()) {
        start.copy_from_slice(carried);
    }
    batch.filled = carried.len();
}
