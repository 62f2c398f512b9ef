//! Writes the streams the performance figures are measured on (see `scripts/perf.sh`).
//!
//! `perf_stream SOURCE MB OUT`: the stream of one source of the bench stream
//! (`claude-code`, `codex-exec`, …) built from the recorded fixtures, repeated with fresh
//! call ids, sessions interleaved; `perf_stream dense:SOURCE MB OUT`: the same from its
//! tool-dense sessions only.
//! `perf_stream claude-stream-json MB OUT`: the same from Claude Code's `stream-json`
//! recordings only (no transcripts), as `scripts/peer-bench.sh` uses.
//! `perf_stream sources`: the names of the sources, one a line.
//! `perf_stream floor FILE -`: parses each line of FILE into `IgnoredAny` (the floor
//! of the throughput figures), for instruction counts of the same bytes.
//! `perf_stream big-output MB OUT`: a Claude Code session with one call whose output is a
//! single MB-megabyte string (one line of that size).
//! `perf_stream big-output:SOURCE MB OUT`: a recording of SOURCE with one call's string
//! output replaced by MB megabytes of text wherever it is written (the recording's name
//! and how many times on stderr); exits 1 when
//! none of its recordings has an output that can be so replaced.
//! `perf_stream streamed-output MB OUT`: an event log of one call whose output streams in
//! lines of about 100 bytes, MB megabytes of them, each its own `outputAppended`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/common/mod.rs"]
mod common;

use std::io::Write;

use toolnorm_adapters::Dialect;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().is_some_and(|what| what == "sources") {
        for source in common::SOURCES {
            println!("{}", source.name);
        }
        return;
    }
    let [what, mb, out] = args.as_slice() else {
        eprintln!(
            "usage: perf_stream [dense:|big-output:]SOURCE|claude-stream-json|big-output|streamed-output MB OUT, \
             or sources"
        );
        std::process::exit(2);
    };
    if what == "floor" {
        let bytes = std::fs::read(mb).expect("reading FILE");
        println!("{} lines", common::floor(&bytes));
        return;
    }
    let bytes = mb.parse::<usize>().expect("MB is a number") * 1_000_000;
    if let Some(name) = what.strip_prefix("big-output:") {
        let source = common::source(name).expect("a source name");
        let Some(big) = common::big_output_of(source, bytes) else {
            eprintln!("{name}: no recording with an output that can be replaced");
            std::process::exit(1);
        };
        std::fs::write(out, big.bytes).expect("writing OUT");
        let recording = big.recording.strip_prefix(common::fixtures_dir());
        let recording = recording.unwrap_or(&big.recording).display();
        eprintln!(
            "{name}: {recording}, the output written {} times",
            big.copies
        );
        return;
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(out).expect("creating OUT"));
    if what == "big-output" {
        let fixture = common::fixtures_dir().join("claude-code/shell-ok.jsonl");
        let text = std::fs::read_to_string(fixture).unwrap();
        let output = "x".repeat(bytes);
        for (index, line) in text.lines().enumerate() {
            // Line 4 holds the tool result: its content becomes the big output.
            let line = if index == 3 {
                line.replacen("\"hello from the shell\"", &format!("\"{output}\""), 1)
            } else {
                line.to_owned()
            };
            writeln!(file, "{line}").unwrap();
        }
    } else if what == "streamed-output" {
        let event = |value: serde_json::Value| format!("{value}\n");
        let mut written = 0;
        let start = serde_json::json!({"type": "toolCallStarted", "id": "c1", "name": "Bash",
            "kind": "bash", "title": "make", "input": {"command": "make"}});
        file.write_all(event(start).as_bytes()).unwrap();
        let mut offset = 0;
        for line in 0.. {
            if written >= bytes {
                break;
            }
            let chunk = format!("{line:08} {}\n", "compiling a unit of the build ".repeat(3));
            let appended = event(serde_json::json!({"type": "outputAppended", "id": "c1",
                "offset": offset, "chunk": chunk}));
            offset += chunk.len();
            written += appended.len();
            file.write_all(appended.as_bytes()).unwrap();
        }
        let end = serde_json::json!({"type": "toolCallCompleted", "id": "c1"});
        file.write_all(event(end).as_bytes()).unwrap();
    } else if what == "claude-stream-json" {
        let stream = common::stream_of(
            "claude-stream-json",
            Dialect::CLAUDE_CODE,
            common::CLAUDE_STREAM_JSON,
            common::Kind::Bench,
            bytes,
        );
        file.write_all(&stream.bytes).unwrap();
    } else {
        let (kind, name) = match what.strip_prefix("dense:") {
            Some(name) => (common::Kind::Dense, name),
            None => (common::Kind::Bench, what.as_str()),
        };
        let source = common::source(name).expect("a source name");
        let stream = common::source_stream(source, kind, bytes);
        file.write_all(&stream.bytes).unwrap();
        eprintln!(
            "{}: {} lines, {:.1} calls per 40 lines",
            what,
            stream.lines,
            stream.density()
        );
    }
    file.flush().unwrap();
}
