//! Throughput of each adapter and of the whole pipeline, with the two baselines, on a
//! stream built from the recorded fixtures (`TOOLNORM_BENCH_MB`, default 200 MB in all).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::LazyLock;

use divan::counter::{BytesCount, ItemsCount};
use divan::{Bencher, black_box};
use toolnorm_adapters::Format;

static STREAMS: LazyLock<Vec<common::Stream>> =
    LazyLock::new(|| common::streams(common::bench_bytes(), common::Kind::Bench));

/// The sources, by name, as bench arguments.
const DIALECTS: &[&str] = &[
    "claude-code",
    "claude-transcript",
    "codex-app-server",
    "codex-exec",
    "codex-rollout",
    "opencode",
    "acp",
    "gemini-cli",
    "gemini-session",
    "events",
];

fn stream(name: &str) -> &'static common::Stream {
    STREAMS.iter().find(|stream| stream.name == name).unwrap()
}

fn counted(bencher: Bencher<'_, '_>, name: &str, work: fn(&common::Stream) -> u64) {
    let stream = stream(name);
    bencher
        .counter(BytesCount::new(stream.bytes.len()))
        .counter(ItemsCount::new(stream.lines))
        .bench(|| work(black_box(stream)));
}

#[divan::bench(args = DIALECTS, sample_count = 3, sample_size = 1)]
fn floor_ignored_any(bencher: Bencher<'_, '_>, name: &str) {
    counted(bencher, name, |stream| common::floor(&stream.bytes));
}

#[divan::bench(args = DIALECTS, sample_count = 3, sample_size = 1)]
fn value_round_trip(bencher: Bencher<'_, '_>, name: &str) {
    counted(bencher, name, |stream| {
        common::value_round_trip(&stream.bytes)
    });
}

#[divan::bench(args = DIALECTS, sample_count = 3, sample_size = 1)]
fn adapter(bencher: Bencher<'_, '_>, name: &str) {
    counted(bencher, name, |stream| {
        common::adapter(stream.dialect, &stream.bytes)
    });
}

#[divan::bench(args = DIALECTS, sample_count = 3, sample_size = 1)]
fn pipeline_parts(bencher: Bencher<'_, '_>, name: &str) {
    counted(bencher, name, |stream| {
        common::pipeline(&stream.bytes, Format::Parts)
    });
}

#[divan::bench(args = DIALECTS, sample_count = 3, sample_size = 1)]
fn pipeline_updates(bencher: Bencher<'_, '_>, name: &str) {
    counted(bencher, name, |stream| {
        common::pipeline(&stream.bytes, Format::Updates)
    });
}

fn main() {
    divan::main();
}
