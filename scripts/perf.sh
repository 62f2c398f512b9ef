#!/usr/bin/env bash
# Prints the performance figures: peak RSS of `toolnorm normalize` on streams of growing
# size and on one huge tool output, with and without a cap, in every JSON format (FORMATS
# names fewer), as a Markdown table; then the throughput tables (`cargo bench`), then the
# per-line cost of `--format updates` (the `latency` bench).
# `instructions` prints the same ratios to the floor as the `report` bench, counted in
# instructions (valgrind's callgrind) instead of time: figures a loaded machine does not
# move. Each source's stream (bench and tool-dense, INSTR_MB megabytes, default 2) goes
# through `toolnorm normalize --format F` for every JSON format and through the floor
# (`perf_stream floor`); the instructions of a one-line stream (start-up: arguments,
# rules) are taken off both. TOOLNORM sets the toolnorm binary to count (default: the
# release build); INSTR_KINDS the streams (default `bench dense`), FORMATS the formats.
# Streams are generated into SCRATCH (default target/perf, under CARGO_TARGET_DIR when
# set), never committed.
# `streamed` times one call whose output streams in many small chunks, in every format.
# `big-outputs` gives the peak RSS of one huge output in a recording of each source.
# Usage: scripts/perf.sh [rss|bench|latency|instructions|streamed|big-outputs|all]   (TOOLNORM_BENCH_MB sets
# the bench stream size)
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

if [ "$what" = instructions ]; then
  cargo build --quiet --release -p toolnorm-cli
  cargo build --quiet --release -p toolnorm-adapters --example perf_stream
  gen=$TARGET/release/examples/perf_stream
  toolnorm=${TOOLNORM:-$TARGET/release/toolnorm}
  mb=${INSTR_MB:-2}
  formats=(${FORMATS:-parts updates events acp ai-sdk ag-ui otel})
  # count CMD...: the instructions callgrind counts for CMD, whatever its exit status (a
  # stream's first line alone may be no event toolnorm reads: exit 3).
  count() {
    { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 > /dev/null || true; } \
      | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
  }
  echo "instructions (callgrind), $mb MB streams; each figure: floor instructions / instructions"
  echo "(\`<\` marks one under its target: 0.4 for parts, 0.3 for the other formats)"
  for kind in ${INSTR_KINDS:-bench dense}; do
    printf '\n%-24s %9s %7s' "$kind stream" "lines" "Mi floor"
    printf ' %8s' "${formats[@]}"
    echo
    floor_sum=0
    declare -A run_sum=() start=()
    for source in $($gen sources); do
      name=$source
      [ "$kind" = dense ] && name="dense:$source"
      file="$SCRATCH/instr-$kind-$source-$mb.jsonl"
      [ -f "$file" ] || $gen "$name" "$mb" "$file" 2> /dev/null
      # Start-up (arguments, the source's rules, its first line), taken off each source's
      # figures: a reader compiles only the rules of its own provider.
      head -n 1 "$file" > "$SCRATCH/instr-one.jsonl"
      start[floor]=$(count "$gen" floor "$SCRATCH/instr-one.jsonl" -)
      for format in "${formats[@]}"; do
        start[$format]=$(count "$toolnorm" normalize --format "$format" "$SCRATCH/instr-one.jsonl")
      done
      floor=$(( $(count "$gen" floor "$file" -) - ${start[floor]} ))
      floor_sum=$(( floor_sum + floor ))
      printf '%-24s %9s %7.0f' "$source" "$(wc -l < "$file")" "$(awk -v f="$floor" 'BEGIN { print f / 1048576 }')"
      for format in "${formats[@]}"; do
        run=$(( $(count "$toolnorm" normalize --format "$format" "$file") - ${start[$format]} ))
        run_sum[$format]=$(( ${run_sum[$format]:-0} + run ))
        target=0.3
        [ "$format" = parts ] && target=0.4
        awk -v f="$floor" -v r="$run" -v t="$target" \
          'BEGIN { x = f / r; printf " %7.2f%s", x, (x < t ? "<" : " ") }'
      done
      echo
    done
    printf '%-24s %9s %7.0f' "all" "" "$(awk -v f="$floor_sum" 'BEGIN { print f / 1048576 }')"
    for format in "${formats[@]}"; do
      target=0.3
      [ "$format" = parts ] && target=0.4
      awk -v f="$floor_sum" -v r="${run_sum[$format]}" -v t="$target" \
        'BEGIN { x = f / r; printf " %7.2f%s", x, (x < t ? "<" : " ") }'
    done
    echo
  done
  exit 0
fi
if [ "$what" = big-outputs ]; then
  # One huge output (BIG_MB megabytes, default 100) in a recording of each source, where
  # the agent writes it (`perf_stream big-output:SOURCE`): toolnorm's peak RSS in every
  # format, as a multiple of the output's size (`<` marks one over the 1.5 target).
  cargo build --quiet --release -p toolnorm-cli
  cargo build --quiet --release -p toolnorm-adapters --example perf_stream
  gen=$TARGET/release/examples/perf_stream
  toolnorm=${TOOLNORM:-$TARGET/release/toolnorm}
  mb=${BIG_MB:-100}
  formats=(${FORMATS:-parts updates events acp ai-sdk ag-ui otel})
  echo "peak RSS / output size, one $mb MB output (\`<\` marks one over 1.5)"
  printf '| source | written |'; printf ' `%s` |' "${formats[@]}"
  printf '\n| --- | ---: |'; printf ' ---: |%.0s' "${formats[@]}"; echo
  for source in $($gen sources); do
    file="$SCRATCH/big-$source-$mb.jsonl"
    if [ ! -f "$file" ]; then
      $gen "big-output:$source" "$mb" "$file" 2> "$SCRATCH/stderr" \
        || { echo "| $source | $(cat "$SCRATCH/stderr") |"; continue; }
      sed -n 's/.*written \([0-9]*\) times.*/\1/p' "$SCRATCH/stderr" > "$file.copies"
    fi
    printf '| %s | %s× |' "$source" "$(cat "$file.copies")"
    for format in "${formats[@]}"; do
      /usr/bin/time -f %M -o "$SCRATCH/time" "$toolnorm" normalize --format "$format" "$file" \
        > /dev/null 2>&1 || true
      awk -v k="$(tail -n 1 "$SCRATCH/time")" -v mb="$mb" \
        'BEGIN { x = k * 1024 / (mb * 1000000); printf " %.2f%s |", x, (x > 1.5 ? "<" : "") }'
    done
    echo
  done
  exit 0
fi
if [ "$what" = streamed ]; then
  # One call whose output streams in 100-byte lines (an event log, one `outputAppended`
  # a line), at two sizes: the CPU time of each format, which grows with the size only
  # when the cost of a chunk does not grow with the output before it.
  cargo build --quiet --release -p toolnorm-cli
  cargo build --quiet --release -p toolnorm-adapters --example perf_stream
  toolnorm=${TOOLNORM:-$TARGET/release/toolnorm}
  formats=(${FORMATS:-parts events acp ai-sdk ag-ui otel})
  printf '\n| one call streaming its output |'; printf ' `%s` |' "${formats[@]}"
  printf '\n| --- |'; printf ' ---: |%.0s' "${formats[@]}"; echo
  for mb in ${STREAMED_MB:-2 8}; do
    file="$SCRATCH/streamed-$mb.jsonl"
    [ -f "$file" ] || "$TARGET/release/examples/perf_stream" streamed-output "$mb" "$file"
    printf '| %s MB, %s chunks (CPU s) |' "$mb" "$(($(wc -l < "$file") - 2))"
    for format in "${formats[@]}"; do
      /usr/bin/time -f '%U %S' -o "$SCRATCH/time" "$toolnorm" normalize --format "$format" "$file" > /dev/null
      printf ' %s |' "$(awk '{ printf "%.2f", $1 + $2 }' "$SCRATCH/time")"
    done
    echo
  done
  exit 0
fi
if [ "$what" = latency ]; then
  cargo bench --quiet -p toolnorm-adapters --bench latency
  exit 0
fi
if [ "$what" != bench ]; then
  cargo build --quiet --release -p toolnorm-cli
  cargo build --quiet --release -p toolnorm-adapters --example perf_stream
  gen=$TARGET/release/examples/perf_stream
  formats=(${FORMATS:-parts updates events acp ai-sdk ag-ui otel})
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
  echo
  cargo bench --quiet -p toolnorm-adapters --bench latency
fi
