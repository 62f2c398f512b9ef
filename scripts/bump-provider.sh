#!/usr/bin/env bash
# Bump one provider's npm package to a new version, and report what moved:
#   1. sync its pinned schema (`toolnorm-codegen sync --pin`, which prints the schema
#      change report) and regenerate toolnorm-wire, when the package pins a schema;
#   2. install the CLI at that version and re-record the fixtures of every source
#      recorded from it (`toolnorm-record all --package`), when the package records any;
#   3. run the fixture goldens, leave each changed golden as a `.snap.new` beside its
#      `.snap`, and summarize the changes of the parts goldens: calls added or removed,
#      states, kinds and titles changed. A version folder's golden is stored only where
#      its output differs from a newer version's (crates/toolnorm-adapters/tests/goldens.toml):
#      a `.snap.new` without a `.snap` is a fixture that shared a golden and now writes
#      its own output (or a new fixture), and the goldens a new recording makes redundant
#      are listed, to be deleted.
# Then review with `cargo insta review` (see docs/src/contributor/recording.md, "Bump a provider").
#
#   scripts/bump-provider.sh PACKAGE VERSION     e.g. scripts/bump-provider.sh @openai/codex 0.172.0
#
# Needs npm and node and the npm registry. TOOLNORM_SCRATCH (default /tmp/toolnorm-record)
# is the recorder's scratch directory; the CLI is installed into $TOOLNORM_SCRATCH/npm.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
package=$1 version=$2
scratch=${TOOLNORM_SCRATCH:-/tmp/toolnorm-record}
snapshots=crates/toolnorm-adapters/tests/snapshots
step() { printf '\n==> %s\n' "$*"; }

# The [packages] table of schemas/PROVENANCE.toml, and the [cli.*] tables of
# fixtures/PROVENANCE.toml, name the packages that pin a schema and that record.
pins_schema=$(awk '/^\[packages\]/ {on = 1; next} /^\[/ {on = 0} on {print $1}' schemas/PROVENANCE.toml \
  | tr -d '"' | grep -Fqx "$package" && echo yes || echo no)
records=$(grep -Fqx "package = \"$package\"" fixtures/PROVENANCE.toml && echo yes || echo no)
[ "$pins_schema$records" != nono ] || { echo "$package pins no schema and records nothing" >&2; exit 2; }

if [ "$pins_schema" = yes ]; then
  step "sync the schema of $package at $version (schema change report)"
  cargo run --quiet --locked -p toolnorm-codegen -- sync --pin "$package@$version"
  step "regenerate toolnorm-wire"
  cargo run --quiet --locked -p toolnorm-codegen -- generate
fi

if [ "$records" = yes ]; then
  step "install $package@$version into $scratch/npm and re-record its sources"
  mkdir -p "$scratch/npm"
  [ -f "$scratch/npm/package.json" ] || echo '{"private": true}' >"$scratch/npm/package.json"
  npm install --prefix "$scratch/npm" --no-audit --no-fund --save-exact "$package@$version"
  cargo build --quiet --locked -p toolnorm-recorder
  "${CARGO_TARGET_DIR:-target}/debug/toolnorm-record" --scratch "$scratch" all --package "$package"
fi

step "fixture goldens"
find "$snapshots" -name '*.snap.new' -delete
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if INSTA_UPDATE=new cargo test --quiet --locked -p toolnorm-adapters --test fixtures >"$log" 2>&1; then
  echo "every golden is unchanged"
else
  python3 - "$snapshots" <<'PY'
import glob, json, os, sys

def read(path):
    """The snapshot's input file and body lines."""
    if not os.path.exists(path):
        return None, []
    text = open(path, encoding="utf-8").read()
    _, header, body = text.split("---\n", 2)
    source = next((l.split(": ", 1)[1] for l in header.splitlines() if l.startswith("input_file:")), "?")
    return source, body.splitlines()

def calls(lines):
    """The parts of a parts golden (a JSON array), by call id."""
    try:
        parts = json.loads("\n".join(lines))
    except ValueError:
        return {}
    return {part.get("id"): part for part in parts if isinstance(part, dict)}

NAMES = {
    "parts": "parts",
    "event_log": "event log",
    "acp_frames": "ACP frames",
    "ai_sdk_chunks": "AI SDK chunks",
    "ag_ui_events": "AG-UI events",
}

changed = sorted(glob.glob(os.path.join(sys.argv[1], "*.snap.new")))
print(f"{len(changed)} goldens changed")
for new_path in changed:
    old_path = new_path[: -len(".new")]
    source, new = read(new_path)
    _, old = read(old_path)
    test = os.path.basename(old_path).split("@")[0]
    kind = next((name for key, name in NAMES.items() if test.endswith(key)), test)
    if not old:
        print(f"  {source} [{kind}]: golden of its own (it shared one before, or is new), {len(new)} lines")
        continue
    if kind != "parts":
        differ = len(set(new) ^ set(old))
        print(f"  {source} [{kind}]: " + (f"{differ} lines differ" if differ else "same lines, reordered"))
        continue
    before, after = calls(old), calls(new)
    notes = []
    for id in sorted(set(after) - set(before), key=str):
        notes.append(f"+call {id} ({after[id].get('name')})")
    for id in sorted(set(before) - set(after), key=str):
        notes.append(f"-call {id} ({before[id].get('name')})")
    for id in sorted(set(before) & set(after), key=str):
        a, b = before[id], after[id]
        for field in ("state", "kind", "title"):
            if a.get(field) != b.get(field):
                notes.append(f"{id} {field}: {a.get(field)!r} -> {b.get(field)!r}")
        rest = {k for k in set(a) | set(b) if a.get(k) != b.get(k)} - {"state", "kind", "title"}
        if rest:
            notes.append(f"{id} also: {', '.join(sorted(rest))}")
    print(f"  {source} [parts]: " + ("; ".join(notes) if notes else "same calls, states and titles"))
PY
  if grep -q ' writes what \| has no calls)' "$log"; then
    echo "Redundant goldens (their fixture now writes what a fixture it shares with writes): git rm them"
    grep ' writes what \| has no calls)' "$log" | sed 's/^/  /'
  fi
  echo "Review: cargo insta review (or accept all: cargo insta accept), then strip"
  echo "assertion_line: sed -i '/^assertion_line:/d' $snapshots/*.snap"
fi

step "changed files"
git status --short schemas generated fixtures "$snapshots" | sed 's/^/  /'
echo "Update the pinned versions in docs/src/contributor/recording.md (Re-recording) if they moved."
