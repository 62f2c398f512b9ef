#!/usr/bin/env bash
# Runs every fuzz target for RUNS executions each (default 10 million), one after the
# other, seeded with the recorded fixtures cut into pieces of a few lines.
# Needs cargo-fuzz (`cargo install cargo-fuzz`). cargo-fuzz passes nightly-only flags: with
# a nightly toolchain installed it is used, else the stable one with RUSTC_BOOTSTRAP=1
# (no sanitizer is used, `-s none`, so stable's standard library is enough).
# Usage: scripts/fuzz.sh [TARGET...]   (WORK=dir for corpora and logs, RUNS=n,
# MAX_TIME=seconds per target, 0 for no limit)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10000000}
MAX_TIME=${MAX_TIME:-0}
WORK=$(realpath -m "${WORK:-target/fuzz-work}")
# Targets: `dialect:<name>` for every dialect of the dialect table (the `dialect`
# fuzz target with TOOLNORM_FUZZ_DIALECT=<name>), `detect` and `fold`. Every target is
# seeded with every fixture; libFuzzer keeps what reaches new code.
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  while read -r name; do targets+=("dialect:$name"); done \
    < <(cargo run --quiet --locked -p toolnorm-cli -- dialects --names)
  targets+=(detect fold)
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz() { cargo +nightly fuzz "$@"; }
else
  fuzz() { RUSTC_BOOTSTRAP=1 cargo fuzz "$@"; }
fi
(cd fuzz && fuzz build -O -s none)
for target in "${targets[@]}"; do
  binary=${target%%:*}
  export TOOLNORM_FUZZ_DIALECT=${target#*:}
  target=${target/:/-}
  corpus="$WORK/corpus/$target"
  mkdir -p "$corpus" "$WORK/artifacts/$target"
  if [ "$binary" != fold ]; then
    for file in fixtures/*/*.jsonl; do
      dir=$(basename "$(dirname "$file")")
      split -l 4 -a 3 "$file" "$corpus/seed-$dir-$(basename "$file" .jsonl)-"
    done
  fi
  echo "==> $target: $RUNS runs"
  start=$(date +%s)
  status=0
  (cd fuzz && fuzz run -O -s none "$binary" "$corpus" -- \
      -runs="$RUNS" -max_total_time="$MAX_TIME" -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="$WORK/artifacts/$target/") > "$WORK/$target.log" 2>&1 || status=$?
  grep -E "^(stat::|Done|==[0-9]+== ERROR|thread .* panicked)" "$WORK/$target.log" || true
  echo "==> $target: exit $status, $(( $(date +%s) - start )) s"
done
