"""Bad input: the same diagnostics as the command, as exceptions with line numbers."""

import warnings

import pytest

import toolnorm
from conftest import FIXTURES, as_lines, run_cli

SHELL = (FIXTURES / "claude-code" / "shell-ok.jsonl").read_bytes()
CODEX_EXEC = (FIXTURES / "codex-exec").glob("*.jsonl")


def damaged():
    """A Claude Code stream with a line that is not JSON, a line of another dialect and
    a last line cut short."""
    lines = SHELL.splitlines(keepends=True)
    foreign = next(CODEX_EXEC).read_bytes().splitlines(keepends=True)[0]
    return b"".join([lines[0], b"{not json\n", *lines[1:], foreign, lines[-1][:20]])


def cli_stderr(cli, data, *args):
    result = run_cli(cli, "normalize", *args, "-", data=data)
    return result, result.stderr.decode().splitlines()


def test_errors_raise_with_the_commands_diagnostics(cli):
    data = damaged()
    result, stderr = cli_stderr(cli, data)
    with pytest.raises(toolnorm.InputError) as raised:
        toolnorm.normalize(data)
    error = raised.value
    assert [str(d) for d in error.diagnostics] == stderr[:-1]
    assert f"toolnorm: {error.stats}" == stderr[-1]
    assert as_lines(error.parts) == result.stdout.decode()
    assert [d.line for d in error.diagnostics] == [2, len(SHELL.splitlines()) + 2, len(SHELL.splitlines()) + 3]
    assert {d.kind for d in error.diagnostics} == {"invalid-json", "foreign-dialect", "truncated-line"}
    assert all(d.severity == "error" for d in error.diagnostics)
    assert "line 2: " in str(error)


def test_not_strict_warns_each_diagnostic(cli):
    data = damaged()
    result, stderr = cli_stderr(cli, data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = toolnorm.normalize(data, strict=False)
    assert [str(w.message) for w in caught] == stderr[:-1]
    assert all(isinstance(w.message.diagnostic, toolnorm.Diagnostic) for w in caught)
    assert as_lines(parts) == result.stdout.decode()


def test_the_normalizer_raises_per_chunk_and_goes_on(cli):
    data = damaged()
    _, stderr = cli_stderr(cli, data)
    normalizer = toolnorm.Normalizer()
    updates, raised = [], []
    for line in data.splitlines(keepends=True):
        try:
            updates += normalizer.push(line)
        except toolnorm.InputError as error:
            raised += [str(d) for d in error.diagnostics]
            updates += error.updates
    try:
        updates += normalizer.finish()
    except toolnorm.InputError as error:
        raised += [str(d) for d in error.diagnostics]
        updates += error.updates
    assert raised == stderr[:-1]
    assert [str(d) for d in normalizer.diagnostics] == stderr[:-1]
    expected = run_cli(cli, "normalize", "--format", "updates", "-", data=data).stdout.decode()
    assert as_lines(updates) == expected


def test_notices_warn_unless_denied(cli):
    # A `codex exec` event outside `item.*` that this version does not know: a notice.
    stream = (FIXTURES / "codex-exec" / "shell-ok.jsonl").read_bytes()
    stream += b'{"type":"turn.brand_new","detail":{}}\n'
    _, stderr = cli_stderr(cli, stream)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = toolnorm.normalize(stream)
    assert parts
    assert [str(w.message) for w in caught] == stderr[:-1]
    assert [w.message.diagnostic.severity for w in caught] == ["notice"]
    assert "notice: " in str(caught[0].message)
    with pytest.raises(toolnorm.InputError) as raised:
        toolnorm.normalize(stream, deny_unknown=True)
    assert [d.severity for d in raised.value.diagnostics] == ["notice"]
    assert raised.value.parts == parts


@pytest.mark.parametrize(
    "data",
    [b"hello\nworld\n", b'{\n  "type": "assistant"\n}\n', b'{"a":1}\n'],
    ids=["text", "pretty-json", "unknown-object"],
)
def test_unrecognized_input(cli, data):
    result, stderr = cli_stderr(cli, data)
    assert result.returncode == 3
    with pytest.raises(toolnorm.UnrecognizedInputError) as raised:
        toolnorm.normalize(data, strict=False)
    expected = stderr[-1].removeprefix("toolnorm: stdin: ")
    assert str(raised.value) == expected.replace("`--provider` names one", "`provider=` names one")
    normalizer = toolnorm.Normalizer(strict=False)
    normalizer.push(data)
    with pytest.raises(toolnorm.UnrecognizedInputError):
        normalizer.finish()


def test_empty_input_has_no_parts():
    assert toolnorm.normalize(b"") == []


def test_a_finished_normalizer_refuses_more():
    normalizer = toolnorm.Normalizer()
    normalizer.push(SHELL)
    normalizer.finish()
    assert normalizer.finished
    with pytest.raises(RuntimeError):
        normalizer.push(SHELL)


def test_bad_options_raise_option_errors(tmp_path):
    with pytest.raises(toolnorm.OptionError, match="unknown provider `nope`"):
        toolnorm.normalize(SHELL, provider="nope")
    with pytest.raises(toolnorm.OptionError, match="KIND=REGEX"):
        toolnorm.normalize(SHELL, redact_pattern=["no-equals-sign"])
    with pytest.raises(toolnorm.OptionError):
        toolnorm.normalize(SHELL, redact_pattern=["kind=("])
    with pytest.raises(toolnorm.OptionError, match="missing.toml"):
        toolnorm.normalize(SHELL, rules=tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[[rule]\n")
    with pytest.raises(toolnorm.OptionError):
        toolnorm.normalize(SHELL, rules=bad)
    with pytest.raises(TypeError):
        toolnorm.normalize(SHELL, mcp_servers="one")
    assert issubclass(toolnorm.OptionError, ValueError)


def test_errors_pickle_as_dask_sends_them_back():
    import pickle

    with pytest.raises(toolnorm.InputError) as raised:
        toolnorm.normalize(damaged())
    error = pickle.loads(pickle.dumps(raised.value))
    assert type(error) is toolnorm.InputError
    assert str(error) == str(raised.value)
    assert error.diagnostics == raised.value.diagnostics
    assert [str(d) for d in error.diagnostics] == [str(d) for d in raised.value.diagnostics]
    assert error.stats == raised.value.stats and str(error.stats) == str(raised.value.stats)
    assert error.parts == raised.value.parts
