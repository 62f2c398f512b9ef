"""`toolnorm export` received by a real OpenTelemetry receiver: Arize Phoenix's OTLP/HTTP
endpoint (started by receiver.sh). The spans it stored are compared with what
`toolnorm normalize --format otel` writes for the same inputs: the same span ids, traces,
parents, names, statuses, times and attributes. The span tree of each session is printed.

Usage: TOOLNORM=path/to/toolnorm python receiver.py http://127.0.0.1:PORT
"""

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from otlp import attributes, parse_line, spans_of

ROOT = Path(__file__).resolve().parents[2]
TOOLNORM = os.environ.get("TOOLNORM") or str(ROOT / "target" / "debug" / "toolnorm")

# Sessions of several agents, each with a subagent (recorded with distinct session ids).
INPUTS = [
    "fixtures/claude-code/subagent.jsonl",
    "fixtures/codex-app-server/subagent.jsonl",
    "fixtures/opencode-serve/subagent.jsonl",
    "fixtures/copilot/subagent.jsonl",
    "fixtures/amp/subagent.jsonl",
    "fixtures/cline-sdk/subagent.jsonl",
]


def expected_spans():
    """What --format otel writes for the inputs, by span id (hex)."""
    spans = {}
    for name in INPUTS:
        output = subprocess.run(
            [TOOLNORM, "normalize", "--format", "otel", str(ROOT / name)],
            capture_output=True,
            check=True,
        ).stdout.decode()
        for line in filter(None, output.split("\n")):
            for _, span in spans_of(parse_line(line)):
                key = span.span_id.hex()
                assert key not in spans, f"span {key} twice: pick inputs of distinct sessions"
                spans[key] = span
    return spans


def received_spans(base, count):
    """Phoenix's spans, once it stored `count` of them (it inserts in the background)."""
    url = f"{base}/v1/projects/default/spans/otlpv1?limit=1000"
    deadline = time.monotonic() + 60
    while True:
        with urllib.request.urlopen(url, timeout=10) as response:
            data = json.load(response)["data"]
        if len(data) >= count or time.monotonic() > deadline:
            return {span["span_id"]: span for span in data}
        time.sleep(0.5)


def value_of(any_value):
    for key in ("string_value", "bool_value", "int_value", "double_value"):
        if any_value.get(key) is not None:
            return any_value[key]
    return None


def compare(expected, received):
    assert set(received) == set(expected), (
        f"{len(received)} span(s) received for {len(expected)} sent; "
        f"missing {sorted(set(expected) - set(received))[:5]}, "
        f"unexpected {sorted(set(received) - set(expected))[:5]}"
    )
    for key, span in expected.items():
        got = received[key]
        where = f"span {key} ({span.name})"
        assert got["trace_id"] == span.trace_id.hex(), where
        assert (got.get("parent_span_id") or "") == span.parent_span_id.hex(), where
        assert got["name"] == span.name, where
        assert (got.get("status") or {}).get("code", 0) == span.status.code, where
        if span.status.message:
            assert got["status"].get("message") == span.status.message, where
        for field in ("start_time_unix_nano", "end_time_unix_nano"):
            # Phoenix keeps microseconds.
            assert abs(int(got[field]) - getattr(span, field)) < 1000, (where, field)
        stored = {item["key"]: value_of(item["value"]) for item in got.get("attributes") or []}
        for name, value in attributes(span.attributes).items():
            assert stored.get(name) == value, (where, name, stored.get(name), value)


def print_tree(received):
    """Each session's spans as Phoenix stored them, as a tree under its root."""
    children = {}
    for span in received.values():
        children.setdefault(span.get("parent_span_id") or "", []).append(span)

    def show(span, depth):
        stored = {item["key"]: value_of(item["value"]) for item in span.get("attributes") or []}
        status = "ERROR" if (span.get("status") or {}).get("code") == 2 else "ok"
        millis = (int(span["end_time_unix_nano"]) - int(span["start_time_unix_nano"])) / 1e6
        detail = stored.get("toolnorm.title") or stored.get("gen_ai.conversation.id") or ""
        version = stored.get("toolnorm.agent.version")
        version = f" (version {version})" if version else ""
        print(f"{'  ' * depth}{span['name']}{version} [{status}, {millis:.0f} ms] {detail}")
        below = children.get(span["span_id"], [])
        for child in sorted(below, key=lambda s: int(s["start_time_unix_nano"])):
            show(child, depth + 1)

    for root in sorted(children.get("", []), key=lambda s: s["name"]):
        show(root, 1)


def main():
    base = sys.argv[1]
    expected = expected_spans()
    done = subprocess.run(
        [TOOLNORM, "export", "--otlp-endpoint", base, *(str(ROOT / name) for name in INPUTS)],
        capture_output=True,
        check=False,
    )
    message = done.stderr.decode().strip()
    assert done.returncode == 0, f"toolnorm export exited {done.returncode}: {message}"
    assert f"exported {len(expected)} span(s)" in message, message
    received = received_spans(base, len(expected))
    compare(expected, received)
    print(f"otel receiver: {len(expected)} spans of {len(INPUTS)} sessions sent by toolnorm export, "
          "stored by Arize Phoenix as sent (ids, parents, names, statuses, times, attributes); "
          "as Phoenix stored them:")
    print_tree(received)


if __name__ == "__main__":
    main()
