"""`toolnorm normalize --format otel` on every fixture and edge case, parsed by the
official `opentelemetry-proto` package and checked against the same input's parts: one
`execute_tool` span per call and one `invoke_agent` root per session, the GenAI and
toolnorm attributes, statuses, parent links, times, content only when asked, and the same
bytes twice.

Usage: TOOLNORM=path/to/toolnorm python check_spans.py
"""

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

from opentelemetry.proto.trace.v1.trace_pb2 import Status

from otlp import attributes, parse_line, spans_of

ROOT = Path(__file__).resolve().parents[2]
TOOLNORM = os.environ.get("TOOLNORM") or str(ROOT / "target" / "debug" / "toolnorm")


def inputs():
    fixtures = sorted(
        path
        for folder in sorted((ROOT / "fixtures").iterdir())
        if folder.is_dir()
        for path in folder.glob("*.jsonl")
    )
    cases = sorted((ROOT / "checks" / "ui-protocols" / "cases").glob("*.jsonl"))
    return fixtures, cases


def run(path, *flags):
    done = subprocess.run(
        [TOOLNORM, "normalize", *flags, str(path)],
        capture_output=True,
        check=False,
    )
    if done.returncode not in (0,):
        raise AssertionError(f"toolnorm {' '.join(flags)} exited {done.returncode}: {done.stderr[-400:]!r}")
    return done.stdout


def nanos(stamp):
    """A part's timestamp in epoch nanoseconds, as toolnorm reads it (None if unreadable)."""
    if isinstance(stamp, bool) or stamp is None:
        return None
    if isinstance(stamp, (int, float)):
        millis = stamp if abs(stamp) >= 1e11 else stamp * 1000
        value = round(millis * 1_000_000)
        return value if value >= 0 else None
    try:
        text = stamp.replace("Z", "+00:00")
        # Python reads microseconds: more digits are cut to six.
        if "." in text:
            head, tail = text.split(".", 1)
            digits = re.match(r"\d*", tail).group()
            zone = tail[len(digits):]
            text = f"{head}.{digits[:6].ljust(6, '0')}{zone}"
        instant = datetime.fromisoformat(text)
    except ValueError:
        return None
    if instant.tzinfo is None:
        return None
    value = int(instant.timestamp()) * 1_000_000_000 + instant.microsecond * 1000
    return value if value >= 0 else None


def check(path, name):
    parts = [json.loads(line) for line in run(path, "--format", "parts").splitlines()]
    first = run(path, "--format", "otel")
    again = run(path, "--format", "otel")
    assert first == again, "two runs wrote different bytes"
    with_content = run(path, "--format", "otel", "--otel-content")
    calls, roots = collect(first)
    assert len(calls) == len(parts), f"{len(calls)} call spans for {len(parts)} parts"
    by_id = {part["id"]: part for part in parts}
    for part in parts:
        resource, span = calls[part["id"]]
        check_call(part, span, resource, by_id, calls, roots)
    check_roots(calls, roots)
    content_calls, _ = collect(with_content)
    for part in parts:
        check_content(part, content_calls[part["id"]][1], calls[part["id"]][1])
    return len(parts), len(roots)


def collect(output):
    """The call spans by call id and the root spans by trace id."""
    calls, roots = {}, {}
    # Split on newlines only: a JSON string may hold U+2028 and the like.
    for line in filter(None, output.decode().split("\n")):
        for resource, span in spans_of(parse_line(line)):
            attrs = attributes(span.attributes)
            assert resource.get("service.name") == "toolnorm", resource
            assert len(span.trace_id) == 16 and any(span.trace_id), "trace id"
            assert len(span.span_id) == 8 and any(span.span_id), "span id"
            assert span.end_time_unix_nano >= span.start_time_unix_nano, span.name
            assert span.kind == span.SPAN_KIND_INTERNAL
            if attrs.get("gen_ai.operation.name") == "invoke_agent":
                assert not span.parent_span_id, "a root span has no parent"
                assert span.trace_id not in roots, "one root per trace"
                roots[span.trace_id] = (resource, span)
            else:
                assert attrs.get("gen_ai.operation.name") == "execute_tool", attrs
                call_id = attrs["gen_ai.tool.call.id"]
                assert call_id not in calls, f"call {call_id} has two spans"
                calls[call_id] = (resource, span)
    return calls, roots


def check_call(part, span, resource, by_id, calls, roots):
    attrs = attributes(span.attributes)
    metadata = part.get("metadata") or {}
    assert span.name == f"execute_tool {part['name']}", span.name
    expected = {
        "gen_ai.tool.name": part["name"],
        "toolnorm.kind": part["kind"],
        "toolnorm.title": part["title"],
        "toolnorm.state": part["state"],
        "gen_ai.tool.type": "extension" if "mcp" in metadata else "function",
    }
    for key, value in expected.items():
        assert attrs.get(key) == value, f"{key}: {attrs.get(key)!r} != {value!r}"
    optional = {
        "toolnorm.provider": metadata.get("provider"),
        "gen_ai.conversation.id": metadata.get("sessionId"),
        "toolnorm.parent_tool_call.id": metadata.get("parentToolCallId"),
        "toolnorm.mcp.server": (metadata.get("mcp") or {}).get("server"),
        "toolnorm.approval.status": (metadata.get("approval") or {}).get("status"),
    }
    for key, value in optional.items():
        if isinstance(value, str):
            assert attrs.get(key) == value, f"{key}: {attrs.get(key)!r} != {value!r}"
        else:
            assert key not in attrs, f"{key} without a value in the part"
    assert attrs.get("toolnorm.dialect"), "the dialect"
    assert resource.get("toolnorm.dialect") == attrs["toolnorm.dialect"]
    if part["state"] == "error":
        error = part.get("error") or {}
        assert span.status.code == Status.STATUS_CODE_ERROR, span.status
        assert span.status.message == error.get("message", ""), span.status.message
        assert attrs.get("error.type") == (error.get("code") or "other"), attrs.get("error.type")
    else:
        assert span.status.code == Status.STATUS_CODE_UNSET, span.status
        assert "error.type" not in attrs
    parent = metadata.get("parentToolCallId")
    if parent in by_id:
        parent_span = calls[parent][1]
        assert span.trace_id == parent_span.trace_id, "a subagent's call is in its parent's trace"
        assert span.parent_span_id == parent_span.span_id, "a subagent's call is its parent's child"
    else:
        root = roots[span.trace_id][1]
        assert span.parent_span_id == root.span_id, "a call is its session root's child"
    timing = part.get("timing") or {}
    start, end = nanos(timing.get("startedAt")), nanos(timing.get("completedAt"))
    measured = start is not None and end is not None and end >= start
    assert attrs["toolnorm.timing.measured"] is measured, (timing, attrs["toolnorm.timing.measured"])
    if start is not None:
        assert abs(span.start_time_unix_nano - start) < 1000, (span.start_time_unix_nano, start)
    if measured:
        assert abs(span.end_time_unix_nano - end) < 1000, (span.end_time_unix_nano, end)


def check_roots(calls, roots):
    per_trace = {}
    for _, span in calls.values():
        per_trace.setdefault(span.trace_id, []).append(span)
    assert set(per_trace) == set(roots), "every trace has a root and calls"
    for trace, (_, root) in roots.items():
        attrs = attributes(root.attributes)
        spans = per_trace[trace]
        assert attrs["toolnorm.calls"] == len(spans)
        failed = sum(1 for span in spans if span.status.code == Status.STATUS_CODE_ERROR)
        assert attrs["toolnorm.calls.failed"] == failed
        resource = roots[trace][0]
        assert attrs.get("toolnorm.agent.version") == resource.get("toolnorm.agent.version")
        provider = attrs.get("toolnorm.provider")
        assert root.name == (f"invoke_agent {provider}" if provider else "invoke_agent")
        stated = [span for span in spans if attributes(span.attributes)["toolnorm.timing.measured"]]
        if attrs["toolnorm.timing.measured"]:
            for span in stated:
                assert root.start_time_unix_nano <= span.start_time_unix_nano
                assert span.end_time_unix_nano <= root.end_time_unix_nano


def check_content(part, with_content, without):
    plain = attributes(without.attributes)
    assert "gen_ai.tool.call.arguments" not in plain and "gen_ai.tool.call.result" not in plain
    attrs = attributes(with_content.attributes)
    assert json.loads(attrs["gen_ai.tool.call.arguments"]) == part["input"]
    output = part.get("output")
    if output is None:
        assert "gen_ai.tool.call.result" not in attrs
    elif isinstance(output, str):
        assert attrs["gen_ai.tool.call.result"] == output
    else:
        assert json.loads(attrs["gen_ai.tool.call.result"]) == output


def main():
    fixtures, cases = inputs()
    every = fixtures + cases
    failures = 0
    totals = [0, 0]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = [(path, pool.submit(check, path, path.relative_to(ROOT))) for path in every]
        for path, future in futures:
            try:
                calls, sessions = future.result()
                totals[0] += calls
                totals[1] += sessions
            except Exception as error:  # noqa: BLE001 - every failure is reported per input
                if not isinstance(error, AssertionError):
                    error = f"{type(error).__name__}: {error}"
                failures += 1
                print(f"FAIL {path.relative_to(ROOT)}: {error}", file=sys.stderr)
    print(
        f"otel: {len(every) - failures}/{len(every)} inputs pass ({len(fixtures)} fixtures, "
        f"{len(cases)} edge cases): {totals[0]} call spans and {totals[1]} session roots "
        "parsed by opentelemetry-proto and checked against the parts"
    )
    if failures or len(fixtures) < 100:
        sys.exit(1)


if __name__ == "__main__":
    main()
