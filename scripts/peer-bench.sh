#!/usr/bin/env bash
# Compares `toolnorm normalize --format acp` with the Claude Code ACP adapter
# (`@agentclientprotocol/claude-agent-acp`, the one Zed runs) on the same Claude Code
# `stream-json` bytes: the recorded sessions of fixtures/claude-code*/ repeated with fresh
# call ids to MB megabytes. The adapter's own `toAcpNotifications` /
# `streamEventToAcpNotifications` are driven line by line as its agent drives them
# (scripts/peer-bench/drive.mjs). Both run alternately, RUNS times each; the best run
# counts. Prints MB/s of wall-clock time and of CPU time (user + system: less moved by
# other load on the machine), peak RSS and the ratios.
# The Rust peer runs in the same rotation: `claude-code-acp-rs`'s message converter
# driven over the same file (scripts/peer-bench/rust, its own Cargo.lock; RUST_PEER=0
# leaves it out).
# Usage: scripts/peer-bench.sh   (MB, default 50; RUNS, default 5; SCRATCH, default
# target/perf; TOOLNORM, a toolnorm binary to measure instead of the release build;
# STREAM=dense for the stream built from the tool-dense recordings only,
# `perf_stream dense:claude-code`, a call every two or three lines)
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${MB:-50}
RUNS=${RUNS:-5}
SCRATCH=$(realpath -m "${SCRATCH:-target/perf}")
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-target}")
mkdir -p "$SCRATCH"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -z "${TOOLNORM:-}" ]; then
  cargo build --quiet --release -p toolnorm-cli
  TOOLNORM=$TARGET/release/toolnorm
fi
cargo build --quiet --release -p toolnorm-adapters --example perf_stream
(cd scripts/peer-bench && [ -d node_modules/@agentclientprotocol/claude-agent-acp ] || npm ci --no-audit --no-fund --silent)
rust_peer=${RUST_PEER:-1}
if [ "$rust_peer" = 1 ]; then
  cargo build --quiet --release --locked --manifest-path scripts/peer-bench/rust/Cargo.toml \
    --target-dir "$TARGET/peer-bench-rust"
  rust_peer_bin=$TARGET/peer-bench-rust/release/toolnorm-rust-peer
fi
peer_version=$(node -p 'require("./scripts/peer-bench/node_modules/@agentclientprotocol/claude-agent-acp/package.json").version')
if [ "${STREAM:-}" = dense ]; then
  file="$SCRATCH/claude-dense-$MB.jsonl"
  [ -f "$file" ] || "$TARGET/release/examples/perf_stream" dense:claude-code "$MB" "$file"
else
  file="$SCRATCH/claude-stream-json-$MB.jsonl"
  [ -f "$file" ] || "$TARGET/release/examples/perf_stream" claude-stream-json "$MB" "$file"
fi
bytes=$(stat -L -c %s "$file")
echo "input: $file, $bytes bytes, $(wc -l < "$file") lines; node $(node --version), claude-agent-acp $peer_version"

# run NAME CMD...: one timed run; appends "seconds cpu-seconds kilobytes" to
# $SCRATCH/NAME.runs (scripts/peer-bench/measure.py: the wall-clock time around the run,
# and the child's own CPU time and peak RSS as the kernel counts them, in microseconds;
# /usr/bin/time's are in hundredths of a second, 8 % of toolnorm's 0.13 s on 50 MB).
run() {
  local name=$1
  shift
  python3 scripts/peer-bench/measure.py "$SCRATCH/$name.stderr" "$@" >> "$SCRATCH/$name.runs"
}
rm -f "$SCRATCH"/{toolnorm,peer,rust-peer}.runs
for _ in $(seq "$RUNS"); do
  run toolnorm "$TOOLNORM" normalize --format acp "$file"
  run peer node scripts/peer-bench/drive.mjs "$file"
  if [ "$rust_peer" = 1 ]; then run rust-peer "$rust_peer_bin" "$file"; fi
done
frames=$("$TOOLNORM" normalize --format acp "$file" | wc -l)
echo "toolnorm: $frames frames; peer: $(tail -n 1 "$SCRATCH/peer.stderr")"
if [ "$rust_peer" = 1 ]; then echo "rust peer: $(tail -n 1 "$SCRATCH/rust-peer.stderr")"; fi

# best NAME: "MB/s CPU-MB/s RSS-MB": the fastest run by wall clock, by CPU time, and the
# lowest peak RSS.
best() {
  sort -n -k1 "$SCRATCH/$1.runs" | head -n 1 | awk -v b="$bytes" '{printf "%.1f ", b / $1 / 1e6}'
  sort -n -k2 "$SCRATCH/$1.runs" | head -n 1 | awk -v b="$bytes" '{printf "%.1f ", b / $2 / 1e6}'
  sort -n -k3 "$SCRATCH/$1.runs" | head -n 1 | awk '{printf "%.1f", $3 / 1024}'
}
read -r t_speed t_cpu t_rss <<< "$(best toolnorm)"
read -r p_speed p_cpu p_rss <<< "$(best peer)"
printf '\n%-40s %8s %12s %12s\n' "Claude Code stream-json -> ACP, best of $RUNS" "MB/s" "MB/CPU-s" "peak RSS MB"
printf '%-40s %8s %12s %12s\n' "toolnorm normalize --format acp" "$t_speed" "$t_cpu" "$t_rss"
printf '%-40s %8s %12s %12s\n' "claude-agent-acp $peer_version (node)" "$p_speed" "$p_cpu" "$p_rss"
# ratio LABEL SPEED CPU RSS: toolnorm's figures over a peer's.
ratio() {
  awk -v l="$1" -v ts="$t_speed" -v ps="$2" -v tc="$t_cpu" -v pc="$3" -v tr="$t_rss" -v pr="$4" \
    'BEGIN { printf "%-40s %7.1fx %11.1fx %11.2fx\n", l, ts / ps, tc / pc, tr / pr }'
}
ratio "toolnorm / peer" "$p_speed" "$p_cpu" "$p_rss"
if [ "$rust_peer" = 1 ]; then
  read -r r_speed r_cpu r_rss <<< "$(best rust-peer)"
  printf '%-40s %8s %12s %12s\n' "claude-code-acp-rs 0.1.22 (Rust)" "$r_speed" "$r_cpu" "$r_rss"
  ratio "toolnorm / Rust peer" "$r_speed" "$r_cpu" "$r_rss"
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
