"""The reading options give what the command's flags give."""

import json
import warnings

import pytest

import toolnorm
from conftest import FIXTURES, as_lines, run_cli

SECRET = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "rules.toml"
    path.write_text('[[rule]]\ntool = "Bash"\nkind = "bash"\ntitle = ["$ {command|line}"]\n')
    return path


@pytest.fixture(scope="module")
def patterns_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("patterns") / "patterns.toml"
    path.write_text('[[pattern]]\nkind = "greeting"\nregex = "hello"\n')
    return path


def planted():
    """A Claude Code recording whose output holds a token."""
    text = (FIXTURES / "claude-code" / "shell-ok.jsonl").read_text()
    return text.replace("hello from the shell", f"token {SECRET} printed").encode()


CASES = [
    ("claude-code/shell-ok.jsonl", {"provider": "claude-code"}, ["--provider", "claude-code"]),
    ("claude-code/shell-ok.jsonl", {"provider": "codex-exec"}, ["--provider", "codex-exec"]),
    ("codex-exec/edit-file.jsonl", {"cwd": "/workspace"}, ["--cwd", "/workspace"]),
    ("opencode-run/mcp-ok.jsonl", {"mcp_servers": ["toolbox"]}, ["--mcp-server", "toolbox"]),
    ("claude-code/shell-ok.jsonl", {"output_cap": 4}, ["--output-cap", "4"]),
    ("claude-code/shell-stream.jsonl", {"output_cap": 4}, ["--output-cap", "4"]),
    ("claude-code/shell-ok.jsonl", {"redact_pattern": ["greeting=hello"]}, ["--redact-pattern", "greeting=hello"]),
    (None, {"redact": True}, ["--redact"]),
]


@pytest.mark.parametrize("fixture,options,flags", CASES, ids=lambda case: json.dumps(case) if not isinstance(case, str) else case)
def test_options_equal_the_flags(cli, fixture, options, flags):
    data = planted() if fixture is None else (FIXTURES / fixture).read_bytes()
    result = run_cli(cli, "normalize", *flags, "-", data=data)
    assert result.returncode == 0, result.stderr
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = toolnorm.normalize(data, strict=False, **options)
    assert as_lines(parts) == result.stdout.decode()
    stderr = [line for line in result.stderr.decode().splitlines() if not line.startswith("toolnorm: ")]
    assert [str(w.message) for w in caught] == stderr


def test_rules_and_pattern_files_equal_the_flags(cli, rules_file, patterns_file):
    data = (FIXTURES / "claude-code" / "shell-ok.jsonl").read_bytes()
    for options, flags in [
        ({"rules": rules_file}, ["--rules", rules_file]),
        ({"rules": str(rules_file)}, ["--rules", rules_file]),
        ({"redact_patterns": patterns_file}, ["--redact-patterns", patterns_file]),
    ]:
        expected = run_cli(cli, "normalize", *flags, "-", data=data).stdout.decode()
        assert as_lines(toolnorm.normalize(data, **options)) == expected
    assert toolnorm.normalize(data, rules=rules_file)[0]["title"].startswith("$ ")
    assert "[REDACTED:greeting]" in json.dumps(toolnorm.normalize(data, redact_patterns=patterns_file))


def test_redaction_removes_the_secret():
    assert SECRET in json.dumps(toolnorm.normalize(planted()))
    assert SECRET not in json.dumps(toolnorm.normalize(planted(), redact=True))


def test_source_is_the_metadata_of_every_call():
    data = (FIXTURES / "claude-code" / "shell-ok.jsonl").read_bytes()
    parts = toolnorm.normalize(data, source="a/b.jsonl")
    assert parts and all(part["metadata"]["source"] == "a/b.jsonl" for part in parts)


def test_str_bytes_and_bytearray_read_the_same():
    data = (FIXTURES / "claude-code" / "shell-ok.jsonl").read_bytes()
    expected = toolnorm.normalize(data)
    assert toolnorm.normalize(data.decode()) == expected
    assert toolnorm.normalize(bytearray(data)) == expected
    normalizer = toolnorm.Normalizer()
    assert normalizer.push(data.decode()) + normalizer.finish() != []
    assert normalizer.dialect == "claude-code"


def test_the_module_names_its_dialects():
    assert "claude-code" in toolnorm.DIALECTS and "auto" not in toolnorm.DIALECTS
    assert toolnorm.DEFAULT_OUTPUT_CAP == 1 << 20


@pytest.mark.parametrize(
    ("fixture", "fmt", "flags"),
    [
        ("claude-code/subagent.jsonl", "otel", []),
        ("codex-app-server/subagent.jsonl", "otel", []),
        ("claude-code/subagent.jsonl", "ag-ui", []),
        ("opencode-run/mcp-ok.jsonl", "acp", []),
    ],
)
def test_format_gives_the_lines_the_command_writes(cli, fixture, fmt, flags):
    data = (FIXTURES / fixture).read_bytes()
    lines = toolnorm.normalize(data, format=fmt)
    done = run_cli(cli, "normalize", "--format", fmt, *flags, FIXTURES / fixture)
    assert done.returncode == 0, done.stderr
    assert lines == [json.loads(line) for line in done.stdout.decode().split("\n") if line]


def test_otel_content_puts_input_and_output_on_the_spans(cli):
    data = (FIXTURES / "claude-code" / "subagent.jsonl").read_bytes()
    lines = toolnorm.normalize(data, format="otel", otel_content=True)
    done = run_cli(cli, "normalize", "--format", "otel", "--otel-content", FIXTURES / "claude-code" / "subagent.jsonl")
    assert lines == [json.loads(line) for line in done.stdout.decode().split("\n") if line]
    keys = {
        attribute["key"]
        for line in lines
        for span in line["resourceSpans"][0]["scopeSpans"][0]["spans"]
        for attribute in span["attributes"]
    }
    assert "gen_ai.tool.call.arguments" in keys


def test_a_format_for_people_or_unknown_and_misplaced_otel_content_are_refused():
    data = (FIXTURES / "claude-code" / "shell-ok.jsonl").read_bytes()
    for fmt in ("pretty", "nope"):
        with pytest.raises(toolnorm.OptionError, match=f'format "{fmt}": expected one of parts'):
            toolnorm.normalize(data, format=fmt)
    with pytest.raises(toolnorm.OptionError, match='otel_content applies to format="otel"'):
        toolnorm.normalize(data, format="parts", otel_content=True)
