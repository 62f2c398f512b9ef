"""Shared by the tests: the repository, its fixtures and the `toolnorm` command."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"


def fixture_files():
    """Every recorded stream of the repository, session folders' subagents included
    (not `unclaimed/`: files of agents toolnorm does not read)."""
    return sorted(
        path
        for path in FIXTURES.rglob("*")
        if path.suffix in (".jsonl", ".ndjson")
        and path.is_file()
        and path.relative_to(FIXTURES).parts[0] != "unclaimed"
    )


def fixture_id(path):
    return str(path.relative_to(FIXTURES))


@pytest.fixture(scope="session")
def cli():
    """The `toolnorm` command: `$TOOLNORM`, or the workspace's debug build (built once)."""
    if os.environ.get("TOOLNORM"):
        return os.environ["TOOLNORM"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    subprocess.run(
        ["cargo", "build", "--quiet", "--locked", "-p", "toolnorm-cli"], cwd=ROOT, check=True
    )
    return str(target / "debug" / "toolnorm")


@pytest.fixture(scope="session")
def fixture_runs(cli):
    """`toolnorm normalize --no-siblings --format F FIXTURE` of every fixture, for F in
    `parts` and `updates`, by `(F, path)`: run on first use, several at once (a run is
    mostly process start-up, and the processes use every core)."""
    from concurrent.futures import ThreadPoolExecutor

    runs = [(form, path) for path in fixture_files() for form in ("parts", "updates")]

    def run(key):
        form, path = key
        return run_cli(cli, "normalize", "--no-siblings", "--format", form, path)

    with ThreadPoolExecutor(max_workers=(os.cpu_count() or 2) + 1) as pool:
        return dict(zip(runs, pool.map(run, runs)))


def run_cli(cli, *args, data=None):
    """Runs `toolnorm ARGS…` (stdin `data`); the completed process, output as bytes."""
    return subprocess.run([cli, *map(str, args)], input=data, capture_output=True, cwd=ROOT)


def dumps(part):
    """A part as the command writes it: compact JSON, non-ASCII as is."""
    import json

    return json.dumps(part, ensure_ascii=False, separators=(",", ":"))


def as_lines(parts):
    return "".join(dumps(part) + "\n" for part in parts)
