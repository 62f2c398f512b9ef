//! Writes the streams the performance figures are measured on (see `scripts/perf.sh`).
//!
//! `perf_stream DIALECT MB OUT`: a stream of one dialect (`claude-code`, …) built from the
//! recorded fixtures, repeated with fresh call ids, sessions interleaved.
//! `perf_stream claude-stream-json MB OUT`: the same from Claude Code's `stream-json`
//! recordings only (no transcripts), as `scripts/peer-bench.sh` uses.
//! `perf_stream floor FILE -`: parses each line of FILE into `IgnoredAny` (the floor
//! of the throughput figures), for instruction counts of the same bytes.
//! `perf_stream big-output MB OUT`: a Claude Code session with one call whose output is a
//! single MB-megabyte string (one line of that size).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/common/mod.rs"]
mod common;

use std::io::Write;

use toolnorm_adapters::Dialect;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [what, mb, out] = args.as_slice() else {
        eprintln!("usage: perf_stream DIALECT|claude-stream-json|big-output MB OUT");
        std::process::exit(2);
    };
    if what == "floor" {
        let bytes = std::fs::read(mb).expect("reading FILE");
        println!("{} lines", common::floor(&bytes));
        return;
    }
    let bytes = mb.parse::<usize>().expect("MB is a number") * 1_000_000;
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
    } else if what == "claude-stream-json" {
        let stream = common::stream_of(Dialect::CLAUDE_CODE, common::CLAUDE_STREAM_JSON, bytes);
        file.write_all(&stream.bytes).unwrap();
    } else {
        let dialect = Dialect::from_name(what).expect("a dialect name");
        let stream = common::dialect_stream(dialect, bytes);
        file.write_all(&stream.bytes).unwrap();
    }
    file.flush().unwrap();
}
