#!/usr/bin/env bash
# Builds the command and the addon in release, writes the bench streams (the five dialect
# streams of the throughput table of the book's performance page, 40 MB each, by the perf_stream example) into
# SCRATCH (default target/perf), and runs bench/throughput.mjs on them.
# Usage: packages/node/bench/run.sh   (TOOLNORM_BENCH_MB: the total, default 200; RUNS)
set -euo pipefail
cd "$(dirname "$0")/../../.."
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
SCRATCH=$(realpath -m "${SCRATCH:-target/perf}")
mb=$(( ${TOOLNORM_BENCH_MB:-200} / 5 ))
mkdir -p "$SCRATCH"
# The command and the addon in one cargo run (see packages/node/scripts/build.mjs).
npm run --silent --prefix packages/node build -- -p toolnorm-cli
cargo build --quiet --release --locked -p toolnorm-adapters --example perf_stream
streams=()
for dialect in claude-code codex-app-server codex-exec opencode events; do
  file="$SCRATCH/$dialect-$mb.jsonl"
  [ -f "$file" ] || "$target/release/examples/perf_stream" "$dialect" "$mb" "$file"
  streams+=("$file")
done
TOOLNORM="$target/release/toolnorm" node packages/node/bench/throughput.mjs "${streams[@]}"
