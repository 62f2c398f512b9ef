#!/usr/bin/env bash
# The Python package's figures: throughput of `toolnorm.normalize` beside the command's
# on the bench stream (each dialect's 40 MB of scripts/perf.sh, built by the
# `perf_stream` example), then the Dask example with 1 and 2 workers over the folder
# of scripts/many-files.sh. Release builds; a venv with requirements.txt in
# $CARGO_TARGET_DIR/python-venv.
#
#   crates/toolnorm-python/scripts/perf.sh [RUNS] [FILES]   (default: best of 5, 3000 files)
set -euo pipefail
cd "$(dirname "$0")/../../.."
runs=${1:-5}
files=${2:-3000}
# Absolute: maturin builds from the package's folder, where a relative path would name
# another target folder (and build everything again there).
export CARGO_TARGET_DIR=$(realpath -m "${CARGO_TARGET_DIR:-target}")
target=$CARGO_TARGET_DIR
venv=$target/python-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r crates/toolnorm-python/requirements.txt
cargo build --release --locked -q -p toolnorm-cli
cargo build --release --locked -q -p toolnorm-adapters --example perf_stream
(cd crates/toolnorm-python && VIRTUAL_ENV=$venv "$venv/bin/maturin" develop --release --locked --quiet)
scratch=$target/perf-python
mkdir -p "$scratch"
streams=()
for dialect in claude-code codex-app-server codex-exec opencode events; do
  [ -f "$scratch/$dialect.jsonl" ] || "$target/release/examples/perf_stream" "$dialect" 40 "$scratch/$dialect.jsonl"
  streams+=("$scratch/$dialect.jsonl")
done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$venv/bin/python" crates/toolnorm-python/scripts/bench.py throughput "$target/release/toolnorm" "$runs" "${streams[@]}"
rm -rf "$scratch/many" "$scratch/many.parquet"
"$venv/bin/python" crates/toolnorm-python/scripts/bench.py many "$files" "$runs" "$scratch/many"
rm -rf "$scratch/many" "$scratch/many.parquet"
