#!/usr/bin/env bash
# Build and test figures from a clean target directory: a clean
# `cargo test --workspace --no-run` (wall and CPU seconds), the test run, target/ size,
# integration-test binaries and units compiled, and the slowest units (cargo --timings).
# Wall times depend on the machine's load, so the cores and the load are printed too;
# CPU seconds, sizes and counts depend on it much less.
#
#   scripts/build-figures.sh [TARGET_DIR]   (default: a fresh directory under /tmp,
#                                            removed at the end; a given one is kept)
set -euo pipefail
cd "$(dirname "$0")/.."
keep=${1:+yes}
target=${1:-$(mktemp -d /tmp/toolnorm-figures.XXXXXX)}
rm -rf "$target"
export CARGO_TARGET_DIR=$target
messages=$(mktemp /tmp/toolnorm-figures-messages.XXXXXX)

load() { uptime | sed 's/.*load average: //'; }
echo "cores: $(nproc)   load average before: $(load)"
TIMEFORMAT='%R %U %S'
build=$( { time cargo test --workspace --locked --no-run --timings \
  --message-format=json >"$messages" 2>/dev/null; } 2>&1 )
read -r wall user sys <<<"$build"
echo "clean test build (cargo test --workspace --no-run): ${wall} s wall, $(echo "$user + $sys" | bc) s CPU"
echo "target/ after the build: $(du -sb "$target" | awk '{printf "%.2f GB", $1/1e9}')"
run=$( { time cargo test --workspace --locked -q >/dev/null 2>&1; } 2>&1 ) \
  || { echo "cargo test --workspace failed" >&2; exit 1; }
read -r wall user sys <<<"$run"
echo "test run, once built (cargo test --workspace): ${wall} s wall, $(echo "$user + $sys" | bc) s CPU"
echo "units compiled: $(grep -c '"reason":"compiler-artifact"' "$messages")" \
  "  integration-test binaries: $(grep '"reason":"compiler-artifact"' "$messages" \
  | grep -c '"kind":\["test"\]')"
echo "target/ after the tests: $(du -sb "$target" | awk '{printf "%.2f GB", $1/1e9}')" \
  "(debug/deps $(du -sh "$target/debug/deps" | cut -f1)," \
  "debug/incremental $(du -sh "$target/debug/incremental" 2>/dev/null | cut -f1))"
python3 - "$target/cargo-timings/cargo-timing.html" <<'PY'
import json, re, sys
html = open(sys.argv[1]).read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
total = sum(u["duration"] for u in units)
print(f"sum of unit times: {total:.0f} s; slowest units:")
for u in sorted(units, key=lambda u: -u["duration"])[:8]:
    print(f"  {u['duration']:6.1f} s {100 * u['duration'] / total:4.1f} %  {u['name']} {u.get('target', '')}")
PY
echo "load average after: $(load)"
rm -f "$messages"
[ -n "$keep" ] || rm -rf "$target"
