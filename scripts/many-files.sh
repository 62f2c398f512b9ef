#!/usr/bin/env bash
# `toolnorm normalize DIR` over a folder of a few thousand session files: files/s and
# MB/s with 1 and 2 threads (`--threads`), best of RUNS, and the speedup. The folder is
# built from the recorded fixtures: copies of every `fixtures/*/*.jsonl`, round robin,
# each with fresh session ids, in subfolders of 100 files.
# Wall times depend on the machine's load: the cores and the load are printed too.
#
#   scripts/many-files.sh [FILES] [RUNS]   (default: 3000 files, best of 5)
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-3000}
runs=${2:-5}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --locked -q -p toolnorm-cli
bin=$CARGO_TARGET_DIR/release/toolnorm
dir=$(mktemp -d /tmp/toolnorm-many.XXXXXX)
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$files" <<'PY'
import glob, os, sys
out, count = sys.argv[1], int(sys.argv[2])
fixtures = sorted(glob.glob("fixtures/*/*.jsonl"))
texts = [open(path, encoding="utf-8").read() for path in fixtures]
for n in range(count):
    # The fixtures' ids are normalized to 00000000-0000-4000-8000-…: each copy its own.
    text = texts[n % len(texts)].replace("00000000-0000-4000-8000-", f"{n:08x}-0000-4000-8000-")
    folder = os.path.join(out, f"{n // 100:03}")
    os.makedirs(folder, exist_ok=True)
    name = os.path.basename(fixtures[n % len(fixtures)])
    with open(os.path.join(folder, f"{n:05}-{name}"), "w", encoding="utf-8") as f:
        f.write(text)
PY

bytes=$(find "$dir" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
load() { uptime | sed 's/.*load average: //'; }
echo "cores: $(nproc)   load average before: $(load)"
printf '%d files, %.1f MB, from %d fixtures\n' "$files" "$(echo "$bytes / 1000000" | bc -l)" \
  "$(ls fixtures/*/*.jsonl | wc -l)"

# The best wall time, in seconds, of `runs` runs with $1 threads.
best() {
  local best="" start end seconds
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$bin" normalize --threads "$1" "$dir" >/dev/null
    end=$(date +%s%N)
    seconds=$(echo "($end - $start) / 1000000000" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$seconds < $best" | bc -l)" = 1 ]; then best=$seconds; fi
  done
  echo "$best"
}

one=$(best 1)
two=$(best 2)
for pair in "1 $one" "2 $two"; do
  read -r threads seconds <<<"$pair"
  printf '%s thread(s): %.3f s   %.0f files/s   %.1f MB/s\n' "$threads" "$seconds" \
    "$(echo "$files / $seconds" | bc -l)" "$(echo "$bytes / 1000000 / $seconds" | bc -l)"
done
printf 'speedup, 2 threads over 1: %.2fx\n' "$(echo "$one / $two" | bc -l)"
echo "load average after: $(load)"
