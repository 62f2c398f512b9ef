#!/usr/bin/env bash
# Many small sessions at once: `toolnorm normalize DIR`, `toolnorm stats DIR` and
# `toolnorm index DIR` (a fresh SQLite index each run) over a folder of FILES session
# files, with 1 and 2 threads (`--threads`, `RAYON_NUM_THREADS`), best of RUNS: wall
# time, files/s, MB/s, the speedup, and the CPU time per file. The folder is built from
# the recorded fixtures: copies of every `fixtures/*/*.jsonl`, round robin, each with
# fresh session ids, in subfolders of 100 files.
#
# The per-file overhead is what a file costs beyond its bytes: the same copies are also
# joined into one file per fixture (the same bytes, the same lines, a few hundred files),
# and the difference of the two 1-thread wall times is divided by the difference of the
# file counts.
# Wall times depend on the machine's load: the cores and the load are printed too.
#
#   scripts/many-files.sh [FILES] [RUNS]   (default: 10000 files, best of 5)
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-10000}
runs=${2:-5}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release --locked -q -p toolnorm-cli
bin=$CARGO_TARGET_DIR/release/toolnorm
scratch=$(mktemp -d /tmp/toolnorm-many.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
dir=$scratch/files
joined=$scratch/joined

python3 - "$dir" "$joined" "$files" <<'PY'
import glob, os, sys
out, joined, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
fixtures = sorted(glob.glob("fixtures/*/*.jsonl"))
texts = [open(path, encoding="utf-8").read() for path in fixtures]
os.makedirs(joined)
for n in range(count):
    # The fixtures' ids are normalized (00000000-0000-4000-8000-…, call_mock_…, item_…):
    # each copy its own, so that the copies joined into one file are distinct sessions.
    text = texts[n % len(texts)].replace("00000000-0000-4000-8000-", f"{n:08x}-0000-4000-8000-")
    for prefix in ("_mock_", '"item_', '"prt_', '"evt_', '"ses_', '"msg_', '"turn-'):
        text = text.replace(prefix, f"{prefix}{n:x}x")
    folder = os.path.join(out, f"{n // 100:03}")
    os.makedirs(folder, exist_ok=True)
    name = os.path.basename(fixtures[n % len(fixtures)])
    with open(os.path.join(folder, f"{n:05}-{name}"), "w", encoding="utf-8") as f:
        f.write(text)
    if not text.endswith("\n"):
        text += "\n"
    with open(os.path.join(joined, f"{n % len(texts):04}-{name}"), "a", encoding="utf-8") as f:
        f.write(text)
PY

bytes=$(find "$dir" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
joined_files=$(find "$joined" -type f | wc -l)
load() { uptime | sed 's/.*load average: //'; }
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
echo "load average before: $(load)"
printf '%d files, %.1f MB, from %d fixtures (joined: %d files)\n' "$files" \
  "$(echo "$bytes / 1000000" | bc -l)" "$(ls fixtures/*/*.jsonl | wc -l)" "$joined_files"

# run COMMAND THREADS FOLDER: one run of COMMAND over FOLDER with THREADS threads.
run() {
  case "$1" in
    normalize) "$bin" normalize --threads "$2" "$3" > /dev/null 2>&1 ;;
    stats) RAYON_NUM_THREADS=$2 "$bin" stats "$3" > /dev/null 2>&1 ;;
    index)
      rm -f "$scratch/index.sqlite"*
      RAYON_NUM_THREADS=$2 "$bin" index --db "$scratch/index.sqlite" "$3" > /dev/null 2>&1
      ;;
  esac
}

# best COMMAND THREADS FOLDER: the best wall time, in seconds, of RUNS runs.
best() {
  local best="" start end seconds
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    run "$@" || true
    end=$(date +%s%N)
    seconds=$(echo "($end - $start) / 1000000000" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$seconds < $best" | bc -l)" = 1 ]; then best=$seconds; fi
  done
  echo "$best"
}

# cpu COMMAND FOLDER: user + system seconds of one 1-thread run.
cpu() {
  local TIMEFORMAT='%U %S' times
  times=$( { time run "$1" 1 "$2" 2> /dev/null; } 2>&1 )
  echo "$times" | awk '{print $1 + $2}'
}

printf '\n| command | threads | best wall | files/s | MB/s | CPU per file |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: |\n'
speedups=()
for command in normalize stats index; do
  one=$(best "$command" 1 "$dir")
  two=$(best "$command" 2 "$dir")
  per_file=$(echo "$(cpu "$command" "$dir") * 1000000 / $files" | bc -l)
  for pair in "1 $one" "2 $two"; do
    read -r threads seconds <<<"$pair"
    printf '| %s | %s | %.3f s | %.0f | %.1f | %.0f µs |\n' "$command" "$threads" "$seconds" \
      "$(echo "$files / $seconds" | bc -l)" "$(echo "$bytes / 1000000 / $seconds" | bc -l)" \
      "$per_file"
  done
  joined_one=$(best "$command" 1 "$joined")
  printf '| %s, the same bytes in %d files | 1 | %.3f s | | %.1f | |\n' "$command" "$joined_files" \
    "$joined_one" "$(echo "$bytes / 1000000 / $joined_one" | bc -l)"
  speedups+=("$command $(echo "$one / $two" | bc -l) $(echo "($one - $joined_one) * 1000000 / ($files - $joined_files)" | bc -l)")
done
echo
for line in "${speedups[@]}"; do
  read -r command speedup overhead <<<"$line"
  printf '%s: 2 threads over 1 %.2fx; per-file overhead (1 thread) %.0f µs\n' "$command" \
    "$speedup" "$overhead"
done
echo "load average after: $(load)"
