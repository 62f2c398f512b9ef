#!/usr/bin/env bash
# Runs every fuzz target for RUNS executions each (default 10 million), one after the
# other, seeded with the recorded fixtures cut into pieces of a few lines.
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and a nightly toolchain.
# Usage: scripts/fuzz.sh [TARGET...]   (WORK=dir for corpora and logs, RUNS=n,
# MAX_TIME=seconds per target, 0 for no limit)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10000000}
MAX_TIME=${MAX_TIME:-0}
WORK=$(realpath -m "${WORK:-target/fuzz-work}")
declare -A SEEDS=(
  [claude_code]="claude-code claude-code-transcript"
  [codex_app_server]="codex-app-server"
  [codex_exec]="codex-exec"
  [opencode]="opencode-run opencode-serve opencode-serve-global"
  [event_log]="events"
  [detect]="claude-code claude-code-transcript codex-app-server codex-exec opencode-run opencode-serve opencode-serve-global events"
  [fold]=""
)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(claude_code codex_app_server codex_exec opencode event_log detect fold)
(cd fuzz && cargo +nightly fuzz build -O -s none)
for target in "${targets[@]}"; do
  corpus="$WORK/corpus/$target"
  mkdir -p "$corpus" "$WORK/artifacts/$target"
  for dir in ${SEEDS[$target]}; do
    for file in fixtures/"$dir"/*.jsonl; do
      split -l 4 -a 3 "$file" "$corpus/seed-$dir-$(basename "$file" .jsonl)-"
    done
  done
  echo "==> $target: $RUNS runs"
  start=$(date +%s)
  status=0
  (cd fuzz && cargo +nightly fuzz run -O -s none "$target" "$corpus" -- \
      -runs="$RUNS" -max_total_time="$MAX_TIME" -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$WORK/artifacts/$target/") > "$WORK/$target.log" 2>&1 || status=$?
  grep -E "^(stat::|Done|==[0-9]+== ERROR|thread .* panicked)" "$WORK/$target.log" || true
  echo "==> $target: exit $status, $(( $(date +%s) - start )) s"
done
