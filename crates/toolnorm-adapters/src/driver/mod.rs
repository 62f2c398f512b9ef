//! [`Driver`]: the loop every host runs over one stream (the command line, the Node addon,
//! the Python extension): feed the bytes to a [`Normalizer`], hold the diagnostics of
//! lines no dialect claimed until the dialect is known, hand each step to a [`Sink`],
//! and end the input.

mod ahead;

use std::io::{self, BufRead, Write};

use toolnorm::Fold;

use crate::diagnostic::{Diagnostic, DiagnosticKind};
use crate::emit::Writer;
use crate::pipeline::{Ahead, Normalizer, Stats, Step};

/// How many `undetected-dialect` diagnostics are held, at most, while the dialect is not
/// known (the rest are counted).
pub const HELD: usize = 4096;

/// How much of the start of the input is kept, to say what it looks like when no line
/// was an event of a known dialect ([`unrecognized_input`](crate::unrecognized_input)).
pub const HEAD: usize = 1 << 16;

/// Where a [`Driver`] hands the steps of a stream.
pub trait Sink {
    /// An applied change (diagnostics go to [`diagnostic`](Sink::diagnostic)). After
    /// the first error, no more steps come.
    fn step(&mut self, step: &Step<'_>) -> io::Result<()>;

    /// A diagnostic, in input order: at once, or, for the lines of no known dialect, once
    /// the dialect is known.
    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        let _ = diagnostic;
    }

    /// `count` diagnostics of lines of no known dialect that were held past [`HELD`]
    /// and only counted; by default one diagnostic that says how many.
    fn more_undetected(&mut self, count: u64) {
        self.diagnostic(&Diagnostic::general(
            DiagnosticKind::UndetectedDialect,
            format!("{count} more line(s) of no known dialect"),
        ));
    }

    /// The end of the input: the fold (the calls still open) and the line counts.
    fn finish(&mut self, fold: &Fold, stats: &Stats) -> io::Result<()> {
        let _ = (fold, stats);
        Ok(())
    }

    /// A chunk of the input was pushed and its steps written: what is buffered goes out
    /// now (before the driver reads, and maybe waits for, more input).
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Sink for Writer<W> {
    fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        Writer::step(self, step)
    }

    fn flush(&mut self) -> io::Result<()> {
        Writer::flush(self)
    }

    fn finish(&mut self, fold: &Fold, stats: &Stats) -> io::Result<()> {
        Writer::finish(self, fold)?;
        self.summary(stats)
    }
}

/// How a stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// Read to its end.
    Read,
    /// No line was an event of a known dialect (none was claimed, or the dialects that
    /// claimed some understood none of the first lines): the held diagnostics were
    /// dropped (say so with [`Driver::unrecognized`]).
    Unrecognized,
}

/// Runs one stream through a [`Normalizer`] into a [`Sink`].
///
/// ```
/// use toolnorm_adapters::{Driver, Format, Normalizer, StreamEnd, Writer};
///
/// let stream = concat!(
///     r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}"#, "\n",
/// );
/// let writer = Writer::new(Format::Parts, Vec::new());
/// let mut driver = Driver::new(Normalizer::builder().build(), writer);
/// driver.read(&mut stream.as_bytes()).unwrap();
/// assert_eq!(driver.finish(), StreamEnd::Read);
/// let parts = String::from_utf8(driver.into_sink().into_inner()).unwrap();
/// assert!(parts.contains(r#""state":"started""#));
/// ```
pub struct Driver<S: Sink> {
    normalizer: Normalizer,
    sink: S,
    /// Whether diagnostics of lines of no known dialect wait for the dialect.
    hold: bool,
    held: Vec<Diagnostic>,
    /// Held diagnostics beyond [`HELD`], counted only.
    unheld: u64,
    /// The first [`HEAD`] bytes of the input.
    head: Vec<u8>,
    /// The last byte fed, if any.
    last: Option<u8>,
    /// The first error of the sink.
    error: Option<io::Error>,
}

impl<S: Sink> Driver<S> {
    /// A driver of `normalizer` into `sink`, holding the diagnostics of lines of no known
    /// dialect until the dialect is known.
    pub fn new(normalizer: Normalizer, sink: S) -> Self {
        Driver {
            normalizer,
            sink,
            hold: true,
            held: Vec::new(),
            unheld: 0,
            head: Vec::new(),
            last: None,
            error: None,
        }
    }

    /// Whether the diagnostics of lines of no known dialect wait until the dialect is
    /// known (the default), or go to the sink at once.
    #[must_use]
    pub fn hold_undetected(mut self, hold: bool) -> Self {
        self.hold = hold;
        self
    }

    /// Feeds a chunk of the input (cut anywhere).
    pub fn push(&mut self, chunk: &[u8]) {
        self.push_ahead(chunk, &mut Ahead::none());
    }

    /// Feeds a chunk of the input whose lines were read ahead.
    fn push_ahead(&mut self, chunk: &[u8], ahead: &mut Ahead<'_>) {
        let room = HEAD.saturating_sub(self.head.len()).min(chunk.len());
        self.head
            .extend_from_slice(chunk.get(..room).unwrap_or_default());
        if let Some(last) = chunk.last() {
            self.last = Some(*last);
        }
        let mut handler = Handler {
            sink: &mut self.sink,
            hold: self.hold,
            held: &mut self.held,
            unheld: &mut self.unheld,
            error: &mut self.error,
        };
        self.normalizer
            .push_ahead(chunk, ahead, &mut |step| handler.step(&step));
        if self.normalizer.dialect().is_some() {
            handler.release();
        }
        if self.error.is_none()
            && let Err(error) = self.sink.flush()
        {
            self.error = Some(error);
        }
    }

    /// Feeds the whole of `input`, chunk by chunk; the error reading it, if any.
    pub fn read(&mut self, input: &mut dyn BufRead) -> io::Result<()> {
        loop {
            if let Some(end) = self.push_chunk(input) {
                return end;
            }
        }
    }

    /// Feeds the next chunk of `input`; the end of the input (read to its end, or the
    /// error reading it), if it ended.
    fn push_chunk(&mut self, input: &mut dyn BufRead) -> Option<io::Result<()>> {
        let chunk = loop {
            match input.fill_buf() {
                Ok([]) => return Some(Ok(())),
                Ok(chunk) => break chunk,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Some(Err(error)),
            }
        };
        let length = chunk.len();
        self.push(chunk);
        input.consume(length);
        None
    }

    /// Ends the last line fed, if it is not ended, before another file is joined to the
    /// stream (so that its last line is not joined to the next file's first).
    pub fn end_line(&mut self) {
        if self.last.is_some_and(|byte| byte != b'\n') {
            self.push(b"\n");
        }
    }

    /// Ends the input: the last line without newline and what the adapter held go to the
    /// sink, then the held diagnostics (or, when no dialect was ever known, none), then
    /// the sink's [`finish`](Sink::finish).
    pub fn finish(&mut self) -> StreamEnd {
        let mut handler = Handler {
            sink: &mut self.sink,
            hold: self.hold,
            held: &mut self.held,
            unheld: &mut self.unheld,
            error: &mut self.error,
        };
        self.normalizer.finish(&mut |step| handler.step(&step));
        let hopeless = self.normalizer.dialect().is_none() && !handler.held.is_empty();
        if hopeless {
            handler.held.clear();
            *handler.unheld = 0;
        } else {
            handler.release();
        }
        if self.error.is_none()
            && let Err(error) = self
                .sink
                .finish(self.normalizer.fold(), &self.normalizer.stats())
        {
            self.error = Some(error);
        }
        match hopeless {
            true => StreamEnd::Unrecognized,
            false => StreamEnd::Read,
        }
    }

    /// The first error of the sink, taken.
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    /// The start of the input (its first [`HEAD`] bytes).
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The message for an input that ended [`StreamEnd::Unrecognized`], given how the
    /// caller names a dialect (`` `--provider` ``): [`unrecognized_input`](crate::unrecognized_input)
    /// of [`head`](Driver::head), saying too which dialects its lines looked like, when
    /// some claimed lines but understood none ([`Normalizer::rejected`]).
    pub fn unrecognized(&self, name_a_dialect: &str) -> String {
        crate::diagnostic::unrecognized_input_rejecting(
            &self.head,
            name_a_dialect,
            self.normalizer.rejected(),
        )
    }

    /// The normalizer (its dialect and counts).
    pub fn normalizer(&self) -> &Normalizer {
        &self.normalizer
    }

    /// The normalizer, to end its audit copy.
    pub fn normalizer_mut(&mut self) -> &mut Normalizer {
        &mut self.normalizer
    }

    /// The sink.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// The sink, to take what it holds.
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    /// The sink, the stream done.
    pub fn into_sink(self) -> S {
        self.sink
    }
}

/// The driver's state a step reaches, borrowed apart from the normalizer.
struct Handler<'a, S: Sink> {
    sink: &'a mut S,
    hold: bool,
    held: &'a mut Vec<Diagnostic>,
    unheld: &'a mut u64,
    error: &'a mut Option<io::Error>,
}

impl<S: Sink> Handler<'_, S> {
    fn step(&mut self, step: &Step<'_>) {
        match step {
            Step::Diagnostic(diagnostic) => self.diagnostic(diagnostic),
            Step::Applied { .. } => {
                if self.error.is_none()
                    && let Err(error) = self.sink.step(step)
                {
                    *self.error = Some(error);
                }
            }
        }
    }

    /// A diagnostic: held while it waits for the dialect, else released with the held
    /// ones before it.
    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        if self.hold && diagnostic.kind == DiagnosticKind::UndetectedDialect {
            if self.held.len() < HELD {
                self.held.push(diagnostic.clone());
            } else {
                *self.unheld += 1;
            }
            return;
        }
        self.release();
        self.sink.diagnostic(diagnostic);
    }

    /// Hands the held diagnostics to the sink.
    fn release(&mut self) {
        for diagnostic in self.held.drain(..) {
            self.sink.diagnostic(&diagnostic);
        }
        if *self.unheld > 0 {
            self.sink.more_undetected(*self.unheld);
            *self.unheld = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts what it is handed.
    #[derive(Default)]
    struct Counted {
        steps: usize,
        diagnostics: Vec<DiagnosticKind>,
        finished: bool,
    }

    impl Sink for Counted {
        fn step(&mut self, _: &Step<'_>) -> io::Result<()> {
            self.steps += 1;
            Ok(())
        }

        fn diagnostic(&mut self, diagnostic: &Diagnostic) {
            self.diagnostics.push(diagnostic.kind);
        }

        fn finish(&mut self, _: &Fold, _: &Stats) -> io::Result<()> {
            self.finished = true;
            Ok(())
        }
    }

    const NOT_AN_AGENT: &[u8] = b"{\"hello\":1}\n{\"hello\":2}";

    #[test]
    fn a_stream_of_no_known_dialect_drops_what_it_held() {
        let mut driver = Driver::new(Normalizer::builder().build(), Counted::default());
        driver.read(&mut &NOT_AN_AGENT[..]).unwrap();
        assert_eq!(driver.finish(), StreamEnd::Unrecognized);
        assert_eq!(driver.head(), NOT_AN_AGENT);
        let counted = driver.into_sink();
        assert!(counted.diagnostics.is_empty());
        assert!(counted.finished);
    }

    #[test]
    fn without_holding_every_diagnostic_is_handed_over_at_once() {
        let normalizer = Normalizer::builder().build();
        let mut driver = Driver::new(normalizer, Counted::default()).hold_undetected(false);
        driver.push(NOT_AN_AGENT);
        assert_eq!(driver.finish(), StreamEnd::Read);
        let counted = driver.into_sink();
        assert_eq!(counted.steps, 0);
        assert!(!counted.diagnostics.is_empty());
        assert!(
            counted
                .diagnostics
                .iter()
                .all(|kind| *kind == DiagnosticKind::UndetectedDialect)
        );
    }

    /// Bytes, and how often they were flushed, and what had been written at each flush.
    #[derive(Default)]
    struct Flushes {
        bytes: Vec<u8>,
        flushed_at: Vec<usize>,
    }

    impl Write for Flushes {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.bytes.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            self.flushed_at.push(self.bytes.len());
            Ok(())
        }
    }

    #[test]
    fn a_batched_writer_is_flushed_once_a_chunk_and_no_later() {
        let call = |id: &str| {
            format!(
                "{{\"type\":\"toolCallStarted\",\"id\":\"{id}\",\"name\":\"Bash\",\"kind\":\"bash\",\"title\":\"ls\"}}\n"
            )
        };
        let chunk = format!("{}{}{}", call("a"), call("b"), call("c"));
        for batched in [false, true] {
            let writer = Writer::new(crate::Format::Updates, Flushes::default()).batched(batched);
            let mut driver = Driver::new(Normalizer::builder().build(), writer);
            driver.push(chunk.as_bytes());
            let out = driver.into_sink().into_inner();
            let written = out.bytes.len();
            assert_eq!(out.bytes.iter().filter(|byte| **byte == b'\n').count(), 3);
            // Each update flushed at once (then the chunk's end), or the chunk's three
            // together: either way all of it is out before the next chunk is read.
            assert_eq!(out.flushed_at.last(), Some(&written));
            assert_eq!(out.flushed_at.len(), if batched { 1 } else { 4 });
        }
    }

    #[test]
    fn a_joined_file_starts_on_its_own_line() {
        let line = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#;
        let writer = Writer::new(crate::Format::Parts, Vec::new());
        let mut driver = Driver::new(Normalizer::builder().build(), writer);
        driver.push(line.as_bytes());
        driver.end_line();
        driver.push(line.replace("t1", "t2").as_bytes());
        assert_eq!(driver.finish(), StreamEnd::Read);
        let parts = String::from_utf8(driver.into_sink().into_inner()).unwrap();
        assert_eq!(parts.lines().count(), 2, "{parts}");
    }
}
