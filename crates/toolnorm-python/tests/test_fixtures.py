"""On every recorded fixture, the binding gives the command's output byte for byte."""

import random
import warnings

import pytest

import toolnorm
from conftest import FIXTURES, as_lines, fixture_files, fixture_id, run_cli

FILES = fixture_files()


def test_there_are_fixtures():
    assert len(FILES) > 100


def normalize_warned(data, **options):
    """`normalize` with `strict=False`; the parts and the warnings' diagnostics."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parts = toolnorm.normalize(data, strict=False, **options)
    diagnostics = [str(w.message) for w in caught if w.category is toolnorm.DiagnosticWarning]
    return parts, diagnostics


def cli_diagnostics(stderr):
    """The diagnostic lines of the command's stderr (not its closing line counts)."""
    lines = stderr.decode().splitlines()
    return [line for line in lines if not line.startswith("toolnorm: ")]


@pytest.mark.parametrize("path", FILES, ids=fixture_id)
def test_parts_equal_the_command(fixture_runs, path):
    data = path.read_bytes()
    result = fixture_runs[("parts", path)]
    if result.returncode == 3:
        with pytest.raises(toolnorm.UnrecognizedInputError):
            toolnorm.normalize(data)
        return
    assert result.returncode == 0, result.stderr
    parts, diagnostics = normalize_warned(data)
    assert as_lines(parts) == result.stdout.decode()
    assert diagnostics == cli_diagnostics(result.stderr)


def test_parts_of_a_long_stream_equal_the_command(cli, tmp_path):
    # Its parts text (about 2.7 MB) is handed to Python in several batches, made into
    # dicts while the next is read.
    path = tmp_path / "long.jsonl"
    path.write_bytes((FIXTURES / "codex-exec" / "shell-ok.jsonl").read_bytes() * 8000)
    result = run_cli(cli, "normalize", "--format", "parts", path)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout) > 2 << 20
    parts, diagnostics = normalize_warned(path.read_bytes())
    assert as_lines(parts) == result.stdout.decode()
    assert diagnostics == cli_diagnostics(result.stderr)


def push_in_chunks(data, rng):
    """The updates of `data` pushed through a `Normalizer` in random chunks."""
    normalizer = toolnorm.Normalizer(strict=False)
    updates = []
    at = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", toolnorm.DiagnosticWarning)
        while at < len(data):
            size = rng.choice([1, 2, 3, 7, 64, 1000, 65536])
            updates += normalizer.push(data[at : at + size])
            at += size
        updates += normalizer.finish()
    return updates, normalizer


@pytest.mark.parametrize("path", FILES, ids=fixture_id)
def test_updates_in_random_chunks_equal_the_whole_and_the_command(fixture_runs, path):
    data = path.read_bytes()
    result = fixture_runs[("updates", path)]
    if result.returncode == 3:
        return
    whole = toolnorm.Normalizer(strict=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", toolnorm.DiagnosticWarning)
        expected = whole.push(data) + whole.finish()
    assert as_lines(expected) == result.stdout.decode()
    rng = random.Random(fixture_id(path))
    for _ in range(3):
        chunked, normalizer = push_in_chunks(data, rng)
        assert chunked == expected
        assert normalizer.stats == whole.stats
        assert normalizer.diagnostics == whole.diagnostics
    assert [str(d) for d in whole.diagnostics] == cli_diagnostics(result.stderr)
    if whole.diagnostics:
        assert result.stderr.decode().splitlines()[-1] == f"toolnorm: {whole.stats}"
