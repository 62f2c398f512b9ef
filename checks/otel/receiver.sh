#!/usr/bin/env bash
# Runs receiver.py against Arize Phoenix, an OpenTelemetry receiver from PyPI. Meant to be
# run in a network namespace of its own (`unshare -n`): Phoenix's gRPC port binds every
# interface, and in a fresh namespace the only one is loopback.
# Usage: receiver.sh PHOENIX_VENV PYTHON
set -euo pipefail
phoenix_venv=$1
python=$2
here="$(cd "$(dirname "$0")" && pwd)"
ip link set lo up
work="$(mktemp -d)"
trap 'kill "$phoenix" 2>/dev/null || true; wait "$phoenix" 2>/dev/null || true; rm -rf "$work"' EXIT
port=6006
PHOENIX_WORKING_DIR="$work" PHOENIX_HOST=127.0.0.1 PHOENIX_PORT=$port PHOENIX_GRPC_PORT=4317 \
  PHOENIX_TELEMETRY_ENABLED=false "$phoenix_venv/bin/phoenix" serve > "$work/phoenix.log" 2>&1 &
phoenix=$!
for _ in $(seq 1 120); do
  if "$python" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/healthz', timeout=2)" 2> /dev/null; then
    break
  fi
  if ! kill -0 "$phoenix" 2>/dev/null; then cat "$work/phoenix.log" >&2; exit 1; fi
  sleep 1
done
"$python" "$here/receiver.py" "http://127.0.0.1:$port"
