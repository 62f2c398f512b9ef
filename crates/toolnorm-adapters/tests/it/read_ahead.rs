//! `Driver::read_ahead` gives what `Driver::read` gives, step for step and diagnostic for
//! diagnostic, on streams large enough to go in batches whose lines are parsed on a
//! second thread: Claude Code's recordings repeated past several batches, with CRLF line
//! ends, a line longer than a batch, lines that are not events, a reader that gives
//! little at a time, and a reader that fails midway.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{self, BufRead, BufReader, Read};
use std::sync::OnceLock;

use proptest::collection::vec;
use proptest::prelude::*;

use toolnorm::Fold;
use toolnorm_adapters::{Diagnostic, Driver, Format, Normalizer, Sink, Stats, Step, Writer};

use crate::common;

/// What a stream gave: the `parts` output, the diagnostics, the counts and the result.
#[derive(Debug, PartialEq)]
struct Given {
    output: String,
    diagnostics: Vec<String>,
    stats: String,
    read: Result<(), String>,
}

/// The `parts` writer, with the diagnostics kept beside it.
struct Recorded {
    writer: Writer<Vec<u8>>,
    diagnostics: Vec<String>,
}

impl Sink for Recorded {
    fn step(&mut self, step: &Step<'_>) -> io::Result<()> {
        self.writer.step(step)
    }

    fn diagnostic(&mut self, diagnostic: &Diagnostic) {
        self.diagnostics.push(format!("{diagnostic:?}"));
    }

    fn finish(&mut self, fold: &Fold, stats: &Stats) -> io::Result<()> {
        self.writer.finish(fold)?;
        self.writer.summary(stats)
    }
}

/// Runs `input` through a driver, read ahead or not.
fn given(input: &mut (dyn BufRead + Send), ahead: bool) -> Given {
    let sink = Recorded {
        writer: Writer::new(Format::Parts, Vec::new()),
        diagnostics: Vec::new(),
    };
    let mut driver = Driver::new(Normalizer::builder().build(), sink);
    let read = match ahead {
        true => driver.read_ahead(input),
        false => driver.read(input),
    };
    driver.finish();
    let stats = driver.normalizer().stats().to_string();
    let sink = driver.into_sink();
    Given {
        output: String::from_utf8(sink.writer.into_inner()).unwrap(),
        diagnostics: sink.diagnostics,
        stats,
        read: read.map_err(|error| error.to_string()),
    }
}

/// Both readings of `bytes`, through a reader made by `reader`, are the same.
fn same_both_ways<'a, R: BufRead + Send>(bytes: &'a [u8], reader: impl Fn(&'a [u8]) -> R) -> Given {
    let plain = given(&mut reader(bytes), false);
    let ahead = given(&mut reader(bytes), true);
    assert_eq!(plain, ahead);
    plain
}

/// Claude Code's stream-json recordings, one after the other, repeated to `size` bytes.
fn claude_stream(size: usize) -> Vec<u8> {
    let files =
        common::recordings_where(|dir| dir == "claude-code" || dir.starts_with("claude-code@"));
    assert!(!files.is_empty());
    let mut stream = Vec::new();
    while stream.len() < size {
        for file in &files {
            let mut text = std::fs::read(file).unwrap();
            if !text.ends_with(b"\n") {
                text.push(b'\n');
            }
            stream.extend_from_slice(&text);
        }
    }
    stream
}

fn file_reader(bytes: &[u8]) -> BufReader<&[u8]> {
    BufReader::with_capacity(1 << 16, bytes)
}

#[test]
fn a_large_stream_reads_the_same() {
    let stream = claude_stream(5 << 20);
    let given = same_both_ways(&stream, file_reader);
    assert!(given.output.lines().count() > 1_000, "{}", given.stats);
}

#[test]
fn crlf_line_ends_read_the_same() {
    let stream = claude_stream(3 << 20);
    let mut crlf = Vec::with_capacity(stream.len() * 2);
    for line in stream.split(|byte| *byte == b'\n') {
        crlf.extend_from_slice(line);
        crlf.extend_from_slice(b"\r\n");
    }
    same_both_ways(&crlf, file_reader);
}

#[test]
fn a_line_longer_than_a_batch_reads_the_same() {
    let mut stream = claude_stream(2 << 20);
    let output = "x".repeat(3 << 20);
    let call = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_big","name":"Bash","input":{"command":"yes"}}]}}"#;
    let result = format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_big","content":"{output}"}}]}}}}"#
    );
    stream.extend_from_slice(format!("{call}\n{result}\n").as_bytes());
    stream.extend_from_slice(&claude_stream(2 << 20));
    let given = same_both_ways(&stream, file_reader);
    assert!(given.output.contains("toolu_big"));
    assert!(given.output.contains(&output[..1 << 16]));
}

#[test]
fn lines_that_are_not_events_read_the_same() {
    let mut stream = claude_stream(2 << 20);
    let middle = stream.len() / 2;
    let middle = middle + stream[middle..].iter().position(|b| *b == b'\n').unwrap() + 1;
    let broken = b"not json\n{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\"\n\n   \n{\"type\":\"mystery\"}\n";
    stream.splice(middle..middle, broken.iter().copied());
    // And a last line without its newline, cut short.
    stream.extend_from_slice(br#"{"type":"assistant","message":"#);
    let given = same_both_ways(&stream, file_reader);
    assert!(given.diagnostics.len() >= 3, "{:?}", given.diagnostics);
}

#[test]
fn lines_with_lone_surrogates_read_the_same() {
    // Every twentieth line a call whose output ends in half an emoji (a lone surrogate's
    // escape, repaired before it is read), so that the second thread meets some of them.
    let stream = claude_stream(3 << 20);
    let mut with_lone = Vec::with_capacity(stream.len() * 2);
    for (at, line) in stream.split(|byte| *byte == b'\n').enumerate() {
        with_lone.extend_from_slice(line);
        with_lone.push(b'\n');
        if at % 20 == 19 {
            let id = format!("toolu_lone_{at}");
            with_lone.extend_from_slice(format!(
                "{{\"type\":\"assistant\",\"message\":{{\"content\":[{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"Bash\",\"input\":{{\"command\":\"echo \\ud83d\\ude00\"}}}}]}}}}\n\
                 {{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"content\":\"cut \\ud83d\"}}]}}}}\n"
            ).as_bytes());
        }
    }
    let given = same_both_ways(&with_lone, file_reader);
    let repaired = given
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.contains("LoneSurrogate"))
        .count();
    assert!(repaired > 100, "{repaired} lines repaired");
    assert!(given.output.contains("cut \u{fffd}"));
    assert!(given.output.contains("echo \u{1f600}"));
}

#[test]
fn a_reader_giving_little_at_a_time_reads_the_same() {
    let stream = claude_stream(2 << 20);
    // 1000 bytes a read: every batch ends at its first read, too small to share.
    same_both_ways(&stream, |bytes| BufReader::with_capacity(1000, bytes));
    // A read a little over 64 KiB, then the rest: batches of every size.
    same_both_ways(&stream, |bytes| Uneven { bytes, reads: 0 });
}

#[test]
fn a_reader_failing_midway_reads_the_same() {
    let stream = claude_stream(3 << 20);
    let failing = |bytes| {
        let left = 2_500_000;
        BufReader::with_capacity(1 << 16, Failing { bytes, left })
    };
    let given = same_both_ways(&stream, failing);
    assert_eq!(given.read, Err("the disk is gone".to_owned()));
}

#[test]
fn other_dialects_read_the_same() {
    let files = common::recordings_where(|dir| dir.starts_with("codex-exec"));
    let mut stream = Vec::new();
    while stream.len() < 2 << 20 {
        for file in &files {
            stream.extend_from_slice(&std::fs::read(file).unwrap());
        }
    }
    same_both_ways(&stream, file_reader);
}

/// A megabyte of Claude Code's recordings, made once.
fn megabyte() -> &'static [u8] {
    static STREAM: OnceLock<Vec<u8>> = OnceLock::new();
    STREAM.get_or_init(|| claude_stream(1 << 20))
}

/// `stream` with `change` made at the place `at` picks: two lines joined, a line cut,
/// half an emoji written in, or a `\r` before a newline.
fn changed(stream: &mut Vec<u8>, change: u8, at: usize) {
    let at = at % stream.len().max(1);
    let next_newline = stream[at..]
        .iter()
        .position(|byte| *byte == b'\n')
        .map(|newline| at + newline);
    match (change % 4, next_newline) {
        (0, Some(newline)) => {
            stream.remove(newline);
        }
        (1, _) => stream.insert(at, b'\n'),
        (2, _) => stream
            .splice(at..at, b"\\ud800".iter().copied())
            .for_each(drop),
        (3, Some(newline)) => stream.insert(newline, b'\r'),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Reads of any sizes, over a stream with lines joined, cut and broken anywhere:
    /// read ahead, the same steps and diagnostics as read on one thread.
    #[test]
    fn any_reads_of_any_broken_stream_read_the_same(
        sizes in vec(1usize..300_000, 1..24),
        changes in vec((any::<u8>(), any::<usize>()), 0..8),
    ) {
        let mut stream = megabyte().to_vec();
        for (change, at) in changes {
            changed(&mut stream, change, at);
        }
        same_both_ways(&stream, |bytes| Sizes { bytes, sizes: &sizes, reads: 0 });
    }
}

/// Reads of the sizes given, in turn.
struct Sizes<'a> {
    bytes: &'a [u8],
    sizes: &'a [usize],
    reads: usize,
}

impl Sizes<'_> {
    fn next_size(&self) -> usize {
        self.sizes[self.reads % self.sizes.len()].min(self.bytes.len())
    }
}

impl Read for Sizes<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let size = self.next_size().min(out.len());
        self.reads += 1;
        out[..size].copy_from_slice(&self.bytes[..size]);
        self.bytes = &self.bytes[size..];
        Ok(size)
    }
}

impl BufRead for Sizes<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(&self.bytes[..self.next_size()])
    }

    fn consume(&mut self, amount: usize) {
        self.reads += 1;
        self.bytes = &self.bytes[amount..];
    }
}

/// Reads of alternating sizes around the 64 KiB that ends a batch.
struct Uneven<'a> {
    bytes: &'a [u8],
    reads: usize,
}

impl Read for Uneven<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let size = [70_000, 65_536, 10, 200_000, 65_535][self.reads % 5];
        self.reads += 1;
        let size = size.min(out.len()).min(self.bytes.len());
        out[..size].copy_from_slice(&self.bytes[..size]);
        self.bytes = &self.bytes[size..];
        Ok(size)
    }
}

impl BufRead for Uneven<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let size = [70_000, 65_536, 10, 200_000, 65_535][self.reads % 5].min(self.bytes.len());
        Ok(&self.bytes[..size])
    }

    fn consume(&mut self, amount: usize) {
        self.reads += 1;
        self.bytes = &self.bytes[amount..];
    }
}

/// Gives `left` bytes, then an error.
struct Failing<'a> {
    bytes: &'a [u8],
    left: usize,
}

impl Read for Failing<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("the disk is gone"));
        }
        let size = out.len().min(self.left).min(self.bytes.len());
        out[..size].copy_from_slice(&self.bytes[..size]);
        self.bytes = &self.bytes[size..];
        self.left -= size;
        Ok(size)
    }
}
