//! Prints the per-line cost of `--format updates`: each source's bench stream fed to the
//! normalizer one line at a time, as a live agent writes it, every update written and
//! flushed to `/dev/null` (a `write(2)` per update, as the command makes), the time of
//! each line taken from before its push to after its last update was flushed. Prints the
//! percentiles in µs, over all lines and over the lines that gave an update. Stream size:
//! `TOOLNORM_LATENCY_MB` (default 20) for each source.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::cell::Cell;
use std::fs::File;
use std::io::BufWriter;
use std::time::Instant;

use common::Kind;
use toolnorm_adapters::{Format, Normalizer, Step, Writer};

/// The per-line times of `stream` in `updates` mode, in ns, with whether the line gave
/// an update.
fn per_line(stream: &common::Stream) -> Vec<(u64, bool)> {
    let mut normalizer = Normalizer::builder().evict_finished(true).build();
    let sink = File::create("/dev/null").unwrap();
    let mut writer = Writer::new(Format::Updates, BufWriter::with_capacity(1 << 16, sink));
    let mut times = Vec::with_capacity(usize::try_from(stream.lines).unwrap());
    let updated = Cell::new(false);
    let mut on_step = |step: Step<'_>| {
        if matches!(step, Step::Applied { .. }) {
            updated.set(true);
        }
        writer.step(&step).unwrap();
    };
    for line in stream.bytes.split_inclusive(|&byte| byte == b'\n') {
        let start = Instant::now();
        normalizer.push(line, &mut on_step);
        let elapsed = start.elapsed();
        times.push((
            u64::try_from(elapsed.as_nanos()).unwrap(),
            updated.replace(false),
        ));
    }
    normalizer.finish(&mut on_step);
    times
}

/// The `p`-th percentile of sorted `times`, in µs.
fn percentile(times: &[u64], p: f64) -> f64 {
    if times.is_empty() {
        return 0.0;
    }
    let rank = ((times.len() as f64 - 1.0) * p / 100.0).round() as usize;
    times[rank.min(times.len() - 1)] as f64 / 1e3
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let bytes = std::env::var("TOOLNORM_LATENCY_MB")
        .ok()
        .and_then(|mb| mb.parse::<usize>().ok())
        .unwrap_or(20)
        * 1_000_000;
    println!("--format updates, per input line, µs (line pushed, its updates written and flushed)");
    println!(
        "{:<18} {:>8} | {:>6} {:>6} {:>7} {:>8} | {:>8} {:>6} {:>6} {:>7}",
        "stream", "lines", "p50", "p99", "p99.9", "max", "updated", "p50", "p99", "p99.9"
    );
    for source in common::SOURCES {
        let stream = common::source_stream(source, Kind::Bench, bytes);
        let times = per_line(&stream);
        let mut all: Vec<u64> = times.iter().map(|(time, _)| *time).collect();
        let mut updated: Vec<u64> = times
            .iter()
            .filter(|(_, updated)| *updated)
            .map(|(time, _)| *time)
            .collect();
        all.sort_unstable();
        updated.sort_unstable();
        println!(
            "{:<18} {:>8} | {:>6.1} {:>6.1} {:>7.1} {:>8.0} | {:>8} {:>6.1} {:>6.1} {:>7.1}",
            stream.name,
            all.len(),
            percentile(&all, 50.0),
            percentile(&all, 99.0),
            percentile(&all, 99.9),
            percentile(&all, 100.0),
            updated.len(),
            percentile(&updated, 50.0),
            percentile(&updated, 99.0),
            percentile(&updated, 99.9),
        );
    }
}
