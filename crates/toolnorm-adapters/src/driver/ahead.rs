//! [`Driver::read_ahead`]: the input read in batches of whole lines; while a batch is
//! applied, a second thread parses the lines after the one being applied (see
//! `pipeline/ahead.rs`).

use std::io::{self, BufRead};
use std::sync::atomic::AtomicUsize;
use std::sync::mpsc::sync_channel;
use std::thread;

use super::{Driver, Sink};
use crate::dialects::read_ahead::Scanner;
use crate::pipeline::{self, Ahead};

/// The input a batch gathers, at most, before it is applied (unless a line is longer).
const BATCH: usize = 1 << 20;

/// A batch smaller than this is applied without a second thread (a live stream's few
/// lines): starting one would cost more than it saves.
const SHARED_BATCH: usize = 1 << 16;

/// The read size that says more input is waiting: a read that gives less is all the
/// input had for now (a live stream), and ends the batch rather than wait for more.
const FULL_READ: usize = 1 << 16;

/// How many sends of lines the second thread may be ahead by.
const SENDS_AHEAD: usize = 4;

impl<S: Sink> Driver<S> {
    /// Feeds the whole of `input`, as [`read`](Driver::read) does, reading ahead when it
    /// can: once the stream's dialect is known, and when it is one whose lines parse
    /// apart from the stream (Claude Code's, Qwen Code's), the input goes in batches of
    /// whole lines (up to 1 MiB, or what a live stream has for now), and while a batch
    /// is applied, a second thread parses its next lines. The steps, diagnostics and
    /// their order are those of [`read`](Driver::read); only the time differs. On one
    /// core, or for other dialects, it is [`read`](Driver::read).
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
        let mut batches = Batches::default();
        let mut applied = 0;
        loop {
            let end = batches.fill(input, applied);
            let read = batches.read();
            applied = match end {
                Some(_) => read.len(),
                None => memchr::memrchr(b'\n', read).map_or(0, |newline| newline + 1),
            };
            // A line longer than a batch goes on as it comes: the line splitter holds it.
            if applied == 0 && read.len() >= BATCH {
                applied = read.len();
            }
            let batch = read.get(..applied).unwrap_or_default();
            match batch.len() < SHARED_BATCH {
                true => self.push(batch),
                false => self.apply_read_ahead(scanner, batch),
            }
            if let Some(end) = end {
                return end;
            }
        }
    }

    /// Applies `batch` while a second thread parses the lines after the one applied.
    fn apply_read_ahead(&mut self, scanner: Scanner, batch: &[u8]) {
        let reached = AtomicUsize::new(0);
        thread::scope(|scope| {
            let (out, incoming) = sync_channel(SENDS_AHEAD);
            let reached = &reached;
            scope.spawn(move || pipeline::read_lines(scanner, batch, reached, out));
            // Dropped when the batch is applied: the second thread, if still reading,
            // stops at its next send.
            let mut ahead = Ahead::receiving(batch, incoming, reached);
            self.push_ahead(batch, &mut ahead);
        });
    }
}

/// The input's batches: one buffer that reads go straight into (not through the
/// reader's own buffer, which would copy every byte once more on the thread that applies
/// the lines), and how much of it was read.
#[derive(Default)]
struct Batches {
    buffer: Vec<u8>,
    filled: usize,
}

impl Batches {
    /// The bytes read and not applied yet.
    fn read(&self) -> &[u8] {
        self.buffer.get(..self.filled).unwrap_or_default()
    }

    /// Reads more of `input`, after what is left past `applied` (a line not ended yet),
    /// until [`BATCH`] bytes, a short read, or the end of the input; the end, if the
    /// input ended (read to its end, or an error reading it).
    fn fill(&mut self, input: &mut (dyn BufRead + Send), applied: usize) -> Option<io::Result<()>> {
        let applied = applied.min(self.filled);
        self.buffer.copy_within(applied..self.filled, 0);
        self.filled -= applied;
        if self.buffer.len() < BATCH {
            self.buffer.resize(BATCH, 0);
        }
        while self.filled < BATCH {
            let spare = self.buffer.get_mut(self.filled..).unwrap_or_default();
            let length = match input.read(spare) {
                Ok(0) => return Some(Ok(())),
                Ok(length) => length,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Some(Err(error)),
            };
            self.filled += length;
            if length < FULL_READ {
                break;
            }
        }
        None
    }
}
