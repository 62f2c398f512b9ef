//! Prints the throughput tables: every source (each dialect, and the session files of
//! Claude Code and Gemini CLI apart) through the adapter and the whole pipeline in every
//! JSON format, against the two baselines on the same bytes, on the bench stream and on
//! the tool-dense one (best of `TOOLNORM_BENCH_RUNS`, default 5). Stream size:
//! `TOOLNORM_BENCH_MB` (default 200) for each of the two.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::Kind;
use toolnorm_adapters::Format;

/// The formats measured, each with its target (a fraction of the floor's throughput).
const FORMATS: &[(Format, f64)] = &[
    (Format::Parts, 0.4),
    (Format::Updates, 0.3),
    (Format::Events, 0.3),
    (Format::Acp, 0.3),
    (Format::AiSdk, 0.3),
    (Format::AgUi, 0.3),
    (Format::Otel, 0.3),
];

fn best<T>(runs: usize, mut work: impl FnMut() -> T) -> (Duration, T) {
    let mut best = None;
    for _ in 0..runs {
        let start = Instant::now();
        let value = std::hint::black_box(work());
        let elapsed = start.elapsed();
        if best.as_ref().is_none_or(|(time, _)| elapsed < *time) {
            best = Some((elapsed, value));
        }
    }
    best.unwrap()
}

struct Row {
    name: String,
    bytes: usize,
    lines: u64,
    calls: u64,
    floor: Duration,
    value: Duration,
    adapter: Duration,
    /// One per [`FORMATS`].
    formats: Vec<Duration>,
    diagnostics: u64,
}

fn measure(stream: &common::Stream, runs: usize) -> Row {
    let bytes = &stream.bytes;
    let (floor, _) = best(runs, || common::floor(bytes));
    let (value, _) = best(runs, || common::value_round_trip(bytes));
    let (adapter, _) = best(runs, || common::adapter(stream.dialect, bytes));
    let mut diagnostics = 0;
    let formats = FORMATS
        .iter()
        .map(|(format, _)| {
            let (time, found) = best(runs, || common::pipeline(bytes, *format));
            diagnostics = diagnostics.max(found);
            time
        })
        .collect();
    Row {
        name: stream.name.to_owned(),
        bytes: bytes.len(),
        lines: stream.lines,
        calls: stream.calls,
        floor,
        value,
        adapter,
        formats,
        diagnostics,
    }
}

fn total(rows: &[Row]) -> Row {
    let sum = |get: &dyn Fn(&Row) -> Duration| rows.iter().map(get).sum::<Duration>();
    Row {
        name: "all".to_owned(),
        bytes: rows.iter().map(|row| row.bytes).sum(),
        lines: rows.iter().map(|row| row.lines).sum(),
        calls: rows.iter().map(|row| row.calls).sum(),
        floor: sum(&|row| row.floor),
        value: sum(&|row| row.value),
        adapter: sum(&|row| row.adapter),
        formats: (0..FORMATS.len())
            .map(|index| sum(&|row| row.formats[index]))
            .collect(),
        diagnostics: rows.iter().map(|row| row.diagnostics).sum(),
    }
}

fn print(kind: Kind, rows: &[Row]) {
    let mbps = |bytes: usize, time: Duration| bytes as f64 / 1e6 / time.as_secs_f64();
    println!(
        "\n{} stream: MB/s of the floor, then each run's throughput as a fraction of the \
         floor's (`<` marks one under its target: 0.4 for parts and the whole stream, 0.3 \
         for the other formats)",
        kind.as_str()
    );
    print!(
        "{:<18} {:>6} {:>8} {:>7} | {:>6} {:>6} | {:>6} {:>7}",
        "stream", "MB", "lines", "calls/40", "floor", "parts", "value", "adapter"
    );
    for (format, _) in FORMATS {
        print!(" {:>8}", format.as_str());
    }
    println!(" | diag");
    for row in rows {
        let ratio = |time: Duration| row.floor.as_secs_f64() / time.as_secs_f64();
        let all = row.name == "all";
        print!(
            "{:<18} {:>6.1} {:>8} {:>8.1} | {:>6.0} {:>6.0} | {:>6.2} {:>7.2}",
            row.name,
            row.bytes as f64 / 1e6,
            row.lines,
            row.calls as f64 * 40.0 / row.lines.max(1) as f64,
            mbps(row.bytes, row.floor),
            mbps(row.bytes, row.formats[0]),
            ratio(row.value),
            ratio(row.adapter),
        );
        for (time, (_, target)) in row.formats.iter().zip(FORMATS) {
            let target = if all { 0.4 } else { *target };
            let ratio = ratio(*time);
            let mark = if ratio < target { "<" } else { " " };
            print!(" {ratio:>7.2}{mark}");
        }
        println!(" | {}", row.diagnostics);
    }
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let runs = std::env::var("TOOLNORM_BENCH_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(5);
    for kind in [Kind::Bench, Kind::Dense] {
        let mut rows: Vec<Row> = common::streams(common::bench_bytes(), kind)
            .iter()
            .map(|stream| measure(stream, runs))
            .collect();
        rows.push(total(&rows));
        print(kind, &rows);
    }
}
