//! Prints the throughput table: each dialect and the whole stream, the pipeline and the
//! adapters against the two baselines, on the same bytes (best of `TOOLNORM_BENCH_RUNS`,
//! default 5). Stream size: `TOOLNORM_BENCH_MB` (default 200).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use toolnorm_adapters::Format;

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
    floor: Duration,
    value: Duration,
    adapter: Duration,
    pipeline: Duration,
    updates: Duration,
    diagnostics: u64,
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let runs = std::env::var("TOOLNORM_BENCH_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(5);
    let streams = common::streams(common::bench_bytes());
    let mut rows = Vec::new();
    for stream in &streams {
        let bytes = &stream.bytes;
        let (floor, _) = best(runs, || common::floor(bytes));
        let (value, _) = best(runs, || common::value_round_trip(bytes));
        let (adapter, _) = best(runs, || common::adapter(stream.dialect, bytes));
        let (pipeline, diagnostics) = best(runs, || common::pipeline(bytes, Format::Parts));
        let (updates, _) = best(runs, || common::pipeline(bytes, Format::Updates));
        rows.push(Row {
            name: stream.dialect.to_string(),
            bytes: bytes.len(),
            lines: stream.lines,
            floor,
            value,
            adapter,
            pipeline,
            updates,
            diagnostics,
        });
    }
    let sum = |get: fn(&Row) -> Duration| rows.iter().map(get).sum::<Duration>();
    let total = Row {
        name: "all".to_owned(),
        bytes: rows.iter().map(|row| row.bytes).sum(),
        lines: rows.iter().map(|row| row.lines).sum(),
        floor: sum(|row| row.floor),
        value: sum(|row| row.value),
        adapter: sum(|row| row.adapter),
        pipeline: sum(|row| row.pipeline),
        updates: sum(|row| row.updates),
        diagnostics: rows.iter().map(|row| row.diagnostics).sum(),
    };
    rows.push(total);
    let mbps = |bytes: usize, time: Duration| bytes as f64 / 1e6 / time.as_secs_f64();
    println!(
        "{:<17} {:>7} {:>9} | {:>7} {:>7} {:>7} {:>8} {:>8} | {:>7} {:>7} | {:>6} {:>6} | diag",
        "stream",
        "MB",
        "events",
        "floor",
        "value",
        "adapter",
        "pipeline",
        "updates",
        "Mev/s",
        "Mev/s",
        "/floor",
        "/value"
    );
    println!(
        "{:<17} {:>7} {:>9} | {:>7} {:>7} {:>7} {:>8} {:>8} | {:>7} {:>7} | {:>6} {:>6} |",
        "", "", "", "MB/s", "MB/s", "MB/s", "MB/s", "MB/s", "value", "pipeline", "pipe", "pipe"
    );
    for row in &rows {
        let events = |time: Duration| row.lines as f64 / 1e6 / time.as_secs_f64();
        println!(
            "{:<17} {:>7.1} {:>9} | {:>7.0} {:>7.0} {:>7.0} {:>8.0} {:>8.0} | {:>7.2} {:>7.2} | {:>6.2} {:>6.2} | {}",
            row.name,
            row.bytes as f64 / 1e6,
            row.lines,
            mbps(row.bytes, row.floor),
            mbps(row.bytes, row.value),
            mbps(row.bytes, row.adapter),
            mbps(row.bytes, row.pipeline),
            mbps(row.bytes, row.updates),
            events(row.value),
            events(row.pipeline),
            row.floor.as_secs_f64() / row.pipeline.as_secs_f64(),
            row.value.as_secs_f64() / row.pipeline.as_secs_f64(),
            row.diagnostics,
        );
    }
}
