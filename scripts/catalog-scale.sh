#!/usr/bin/env bash
# Prints the session catalog's scale figures: a home folder of recorded sessions (every
# agent whose store toolnorm knows, each fixture copied with distinct session and call ids,
# FILES files of about KB kilobytes each; default 10,000 of 100 KB, over 1 GB) is indexed
# (`toolnorm index`), then indexed again with nothing changed and after appending to 10
# files; beside it `toolnorm stats` over the same files, `stats --db` and a text search
# in the index; the index's size and each run's peak RSS; the API of `toolnorm serve`
# over it (a text search, the stats); the same index in PostgreSQL when POSTGRES names a
# server (`eval "$(checks/postgres/start.sh)"; POSTGRES=$TOOLNORM_TEST_POSTGRES`); and,
# side by side on the same folder, the peers when PEERS names a Python venv holding them
# (`pip install claude-code-log agentsview`): claude-code-log's HTML of the Claude part,
# agentsview's sync of every agent (first and again).
# Usage: scripts/catalog-scale.sh   (SCRATCH sets where the home folder is built: default
# target/catalog-scale, under CARGO_TARGET_DIR when set; it is never committed)
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=$(realpath -m "${CARGO_TARGET_DIR:-target}")
SCRATCH=$(realpath -m "${SCRATCH:-$TARGET/catalog-scale}")
files=${FILES:-10000}
kb=${KB:-100}
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB"
cargo build --quiet --release -p toolnorm-cli
toolnorm=$TARGET/release/toolnorm
home=$SCRATCH/home
db=$SCRATCH/index.sqlite
rm -rf "$SCRATCH"
mkdir -p "$home"

python3 - "$home" "$files" "$kb" <<'PY'
import os, sys
home, files, kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# Each store's recordings, and where a copy goes under the home folder.
stores = [
    ("claude-code-transcript", lambda n: f".claude/projects/-work-p{n % 50}/{n:08x}-0000-4000-8000-000000000001.jsonl"),
    ("codex-rollout", lambda n: f".codex/sessions/2026/01/{n % 28 + 1:02d}/rollout-2026-01-01T00-00-00-{n:08x}.jsonl"),
    ("gemini-cli-session", lambda n: f".gemini/tmp/h{n % 50}/chats/session-{n}.jsonl"),
    ("qwen-code-session", lambda n: f".qwen/projects/-work-p{n % 50}/chats/{n}.jsonl"),
    ("pi-session", lambda n: f".pi/agent/sessions/--work-p{n % 50}--/{n}.jsonl"),
    ("copilot-session", lambda n: f".copilot/session-state/{n:08x}/events.jsonl"),
    ("droid-session", lambda n: f".factory/sessions/-work-p{n % 50}/{n}.jsonl"),
]
recordings = []
for folder, place in stores:
    path = os.path.join("fixtures", folder)
    for name in sorted(os.listdir(path)):
        if name.endswith(".jsonl"):
            with open(os.path.join(path, name)) as f:
                text = f.read()
            if text.strip():
                recordings.append((text, place))
total = 0
for n in range(files):
    text, place = recordings[n % len(recordings)]
    copies = []
    size = 0
    r = 0
    while size < kb * 1024:
        # Distinct session and call ids per file and per copy within it.
        copy = (text.replace("00000000-0000-4000-8000-", f"{n:08x}-{r:04x}-4000-8000-")
                    .replace("mock_", f"m{n}r{r}_")
                    .replace("ses_0000000000", f"ses_{n:06d}{r:04d}"))
        copies.append(copy if copy.endswith("\n") else copy + "\n")
        size += len(copy)
        r += 1
    out = os.path.join(home, place(n))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("".join(copies))
    total += size
print(f"home: {files} session files, {total / 1e6:.0f} MB, under {home}")
PY

# run LABEL CMD...: wall seconds and peak RSS of CMD.
run() {
  local label=$1
  shift
  /usr/bin/time -f "%e %M" "$@" > /dev/null 2> "$SCRATCH/time" || true
  local figures
  figures=$(tail -n 1 "$SCRATCH/time")
  printf '%-44s %8s s %8s MB\n' "$label" "${figures% *}" "$(( ${figures#* } / 1024 ))"
  grep -m1 "^toolnorm: indexed" "$SCRATCH/time" | sed 's/^/    /' || true
}
input_mb=$(du -sm "$home" | cut -f1)
printf '%-44s %10s %11s\n' "run" "time" "peak RSS"
run "toolnorm stats (every file, read)" "$toolnorm" stats "$home/.claude" "$home/.codex" "$home/.gemini" "$home/.qwen" "$home/.pi" "$home/.copilot" "$home/.factory"
run "toolnorm index (first: every file)" "$toolnorm" index --db "$db" --home "$home"
run "toolnorm index (again, nothing changed)" "$toolnorm" index --db "$db" --home "$home"
# Append one more copy of itself to 10 files.
mapfile -t appended < <(find "$home/.claude" -name '*.jsonl' | sort)
appended_bytes=0
for file in "${appended[@]:0:10}"; do
  sed 's/m\([0-9]*\)r\([0-9]*\)_/m\1r\2x_/g; s/-4000-8000-/-4000-9000-/g' "$file" > "$file.more"
  appended_bytes=$(( appended_bytes + $(stat -c %s "$file.more") ))
  cat "$file.more" >> "$file"
  rm "$file.more"
done
echo "appended $(( appended_bytes / 1024 )) KB to 10 files"
run "toolnorm index (10 files appended to)" "$toolnorm" index --db "$db" --home "$home"
run "toolnorm stats --db" "$toolnorm" stats --db "$db"
run "toolnorm sessions --db" "$toolnorm" sessions --db "$db"
python3 - "$db" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
start = time.perf_counter()
found = db.execute("SELECT count(*) FROM calls WHERE title LIKE '%notes.txt%'").fetchone()[0]
took = time.perf_counter() - start
print(f"{'text search (titles LIKE %notes.txt%)':<44} {took:8.3f} s   {found} calls")
PY
db_mb=$(du -sm "$db" | cut -f1)
echo "index: ${db_mb} MB for ${input_mb} MB of sessions"

# The API of `toolnorm serve` over the index, as the page asks it.
"$toolnorm" serve --no-watch --db "$db" --port 0 2> "$SCRATCH/serve.log" &
serve_pid=$!
for _ in $(seq 100); do
  grep -q serving "$SCRATCH/serve.log" && break
  sleep 0.1
done
origin=$(grep -o 'http://127.0.0.1:[0-9]*' "$SCRATCH/serve.log")
for route in "/api/sessions?q=notes.txt" "/api/sessions?agent=codex&state=failed" "/api/stats" "/api/stats"; do
  printf '%-44s %8s s\n' "GET $route" "$(curl -s -o /dev/null -w '%{time_total}' "$origin$route")"
done
kill "$serve_pid"

if [ -n "${POSTGRES:-}" ]; then
  run "toolnorm index (PostgreSQL, first)" "$toolnorm" index --db "$POSTGRES" --home "$home"
  run "toolnorm index (PostgreSQL, unchanged)" "$toolnorm" index --db "$POSTGRES" --home "$home"
  run "toolnorm stats --db (PostgreSQL)" "$toolnorm" stats --db "$POSTGRES"
fi

if [ -n "${PEERS:-}" ]; then
  echo "peers: claude-code-log $("$PEERS/bin/claude-code-log" --version | awk '{print $NF}'), $("$PEERS/bin/agentsview" --version | head -n 1 | awk '{print $2}')"
  claude_mb=$(du -sm "$home/.claude" | cut -f1)
  run "toolnorm index (the Claude part, ${claude_mb} MB)" "$toolnorm" index --db "$SCRATCH/claude.sqlite" "$home/.claude/projects"
  run "claude-code-log (HTML, the Claude part)" "$PEERS/bin/claude-code-log" convert --projects-dir "$home/.claude/projects" --all-projects -o "$SCRATCH/claude-code-log"
  run "claude-code-log (again, cached)" "$PEERS/bin/claude-code-log" convert --projects-dir "$home/.claude/projects" --all-projects -o "$SCRATCH/claude-code-log"
  run "agentsview sync (first: every agent)" env HOME="$home" AGENTSVIEW_NO_DAEMON=1 "$PEERS/bin/agentsview" sync
  run "agentsview sync (again, nothing changed)" env HOME="$home" AGENTSVIEW_NO_DAEMON=1 "$PEERS/bin/agentsview" sync
  echo "agentsview database: $(du -sm "$home/.agentsview" | cut -f1) MB"
fi
