#!/usr/bin/env bash
# Prints the performance figures: peak RSS of `toolnorm normalize` on streams of growing
# size and on one huge tool output, then the throughput table (`cargo bench`).
# Streams are generated into SCRATCH (default target/perf), never committed.
# Usage: scripts/perf.sh [rss|bench|all]   (TOOLNORM_BENCH_MB sets the bench stream size)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=$(realpath -m "${SCRATCH:-target/perf}")
what=${1:-all}
mkdir -p "$SCRATCH"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB"

rss() { # peak RSS in MB of: toolnorm normalize ARGS...
  /usr/bin/time -f %M target/release/toolnorm normalize "$@" > /dev/null 2> "$SCRATCH/stderr" || true
  echo "$(( $(tail -n 1 "$SCRATCH/stderr") / 1024 ))"
}

if [ "$what" != bench ]; then
  cargo build --quiet --release -p toolnorm-cli
  cargo build --quiet --release -p toolnorm-adapters --example perf_stream
  gen=target/release/examples/perf_stream
  printf '\n%-34s %8s %8s\n' "stream (claude-code)" parts updates
  for mb in 50 500; do
    file="$SCRATCH/claude-$mb.jsonl"
    [ -f "$file" ] || $gen claude-code "$mb" "$file"
    printf '%-34s %6s MB %5s MB\n' "$mb MB, peak RSS" "$(rss --format parts "$file")" "$(rss --format updates "$file")"
  done
  big="$SCRATCH/output-100.jsonl"
  [ -f "$big" ] || $gen big-output 100 "$big"
  printf '\n%-34s %8s\n' "one 100 MB tool output" "peak RSS"
  printf '%-34s %6s MB\n' "parts" "$(rss --format parts "$big")"
  printf '%-34s %6s MB\n' "updates" "$(rss --format updates "$big")"
  printf '%-34s %6s MB\n' "parts, --output-cap 1048576" "$(rss --format parts --output-cap 1048576 "$big")"
fi
if [ "$what" != rss ]; then
  echo
  cargo bench --quiet -p toolnorm-adapters --bench report
fi
