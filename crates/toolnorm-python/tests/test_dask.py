"""The Dask example on 2 worker processes gives the command's parts of every file."""

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

pd = pytest.importorskip("pandas")
pytest.importorskip("dask.distributed")
pytest.importorskip("pyarrow")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "dask_parquet.py"


def test_dask_example_equals_the_command(cli, tmp_path):
    out = tmp_path / "parts.parquet"
    run = subprocess.run(
        [sys.executable, EXAMPLE, "fixtures", out, "--workers", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "2 worker(s)" in run.stdout
    frame = pd.read_parquet(out).sort_values(["source", "position"])
    got = defaultdict(list)
    for source, part in zip(frame["source"], frame["part"]):
        got[source].append(part)
    # Each file its own stream, as the example reads them, `metadata.source` its path.
    result = run_cli(cli, "normalize", "--no-siblings", "--format", "parts", "fixtures")
    assert result.returncode in (0, 3), result.stderr
    expected = defaultdict(list)
    for line in result.stdout.decode().splitlines():
        expected[json.loads(line)["metadata"]["source"]].append(line)
    assert len(expected) > 100
    assert dict(got) == dict(expected)
    for source, parts in got.items():
        assert all(json.loads(part)["metadata"]["source"] == source for part in parts)
