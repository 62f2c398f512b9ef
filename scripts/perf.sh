#!/usr/bin/env bash
# Prints the performance figures: peak RSS of `toolnorm normalize` on streams of growing
# size and on one huge tool output, with and without a cap, in every JSON format (FORMATS
# names fewer), as a Markdown table; then the throughput table (`cargo bench`).
# Streams are generated into SCRATCH (default target/perf, under CARGO_TARGET_DIR when
# set), never committed.
# Usage: scripts/perf.sh [rss|bench|all]   (TOOLNORM_BENCH_MB sets the bench stream size)
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-target}")
SCRATCH=$(realpath -m "${SCRATCH:-$TARGET/perf}")
what=${1:-all}
mkdir -p "$SCRATCH"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB"

rss() { # peak RSS in MB of: toolnorm normalize ARGS...
  /usr/bin/time -f %M "$TARGET/release/toolnorm" normalize "$@" > /dev/null 2> "$SCRATCH/stderr" || true
  echo "$(( $(tail -n 1 "$SCRATCH/stderr") / 1024 ))"
}

if [ "$what" != bench ]; then
  cargo build --quiet --release -p toolnorm-cli
  cargo build --quiet --release -p toolnorm-adapters --example perf_stream
  gen=$TARGET/release/examples/perf_stream
  formats=(${FORMATS:-parts updates events acp ai-sdk ag-ui})
  row() { # a table row: LABEL, then the peak RSS in every format of: ARGS...
    local label=$1 format cells=""
    shift
    for format in "${formats[@]}"; do cells+=" $(rss --format "$format" "$@") MB |"; done
    echo "| $label |$cells"
  }
  printf '\n| peak RSS, Claude Code input |'; printf ' `%s` |' "${formats[@]}"
  printf '\n| --- |'; printf ' ---: |%.0s' "${formats[@]}"; echo
  for mb in 50 500; do
    file="$SCRATCH/claude-$mb.jsonl"
    [ -f "$file" ] || $gen claude-code "$mb" "$file"
    row "$mb MB stream" "$file"
  done
  big="$SCRATCH/output-100.jsonl"
  [ -f "$big" ] || $gen big-output 100 "$big"
  row "one 100 MB tool output (a 100 MB line)" "$big"
  row "the same, \`--output-cap 1048576\`" --output-cap 1048576 "$big"
fi
if [ "$what" != rss ]; then
  echo
  cargo bench --quiet -p toolnorm-adapters --bench report
fi
