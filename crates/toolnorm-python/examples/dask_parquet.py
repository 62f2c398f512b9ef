"""Normalizes a folder of session files on a Dask cluster and writes the parts as Parquet.

    python examples/dask_parquet.py SESSIONS_DIR OUT.parquet [--workers N]

Every ``*.jsonl`` and ``*.ndjson`` file under SESSIONS_DIR (recursively) is one stream,
read by ``toolnorm.normalize`` in a worker process of a ``LocalCluster`` that listens on
127.0.0.1 only; ``dask.bag`` maps the files over the workers. Each part is one row:
``source`` (the file, also the part's ``metadata.source``, as ``toolnorm normalize DIR``
sets it; a file of no known dialect has none), ``position`` (its place in the file's parts), a few columns to query
(``id``, ``name``, ``kind``, ``title``, ``state``, ``elapsed_ms``, ``error``) and
``part``, the whole part as JSON. Prints the files, parts and files per second.
"""

import argparse
import json
import os
import sys
import time
import warnings

import dask.bag as db
import pandas as pd
from dask.distributed import Client, LocalCluster

import toolnorm

# The most files whose rows one partition holds, for a large folder.
FILES_PER_PARTITION = 1000

COLUMNS = {
    "source": "string",
    "position": "int64",
    "id": "string",
    "name": "string",
    "kind": "string",
    "title": "string",
    "state": "string",
    "elapsed_ms": "float64",
    "error": "string",
    "part": "string",
}


def session_files(folder):
    """The session files under ``folder``, as ``toolnorm normalize DIR`` finds them."""
    found = []
    for root, _dirs, files in os.walk(folder):
        for name in files:
            if name.endswith((".jsonl", ".ndjson")):
                found.append(os.path.join(root, name))
    return sorted(found)


def rows(path):
    """The parts of one session file, as rows."""
    with open(path, "rb") as file:
        data = file.read()
    # A line that cannot be used is a warning in the worker's log, not a failed task.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", toolnorm.DiagnosticWarning)
        try:
            parts = toolnorm.normalize(data, source=path, strict=False)
        except toolnorm.UnrecognizedInputError:
            # No stream of a dialect toolnorm reads: no parts, as the command skips it.
            return []
    return [
        {
            "source": path,
            "position": position,
            "id": part["id"],
            "name": part["name"],
            "kind": part["kind"],
            "title": part["title"],
            "state": part["state"],
            "elapsed_ms": part.get("timing", {}).get("elapsedMs"),
            "error": part.get("error", {}).get("message"),
            "part": json.dumps(part, ensure_ascii=False, separators=(",", ":")),
        }
        for position, part in enumerate(parts)
    ]


def partitions(files, workers):
    """How many partitions ``files`` files are mapped in: two per worker, so that each
    has work while the other's partition is written, and more for a large folder, so
    that no partition holds more than about ``FILES_PER_PARTITION`` files' rows. Each
    partition costs some tens of milliseconds (a pandas frame, a Parquet file): split
    finer, the files of a few thousand sessions take longer on two workers than on one."""
    return max(1, min(files, max(2 * workers, -(-files // FILES_PER_PARTITION))))


def normalize_folder(folder, out, workers):
    """Normalizes every session file of ``folder`` on ``workers`` worker processes into
    the Parquet dataset ``out``; returns the files, the rows and the seconds it took
    (the cluster already up)."""
    files = session_files(folder)
    meta = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in COLUMNS.items()})
    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        scheduler_port=0,
        dashboard_address=None,
        worker_dashboard_address=None,
    ) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        start = time.perf_counter()
        bag = db.from_sequence(files, npartitions=partitions(len(files), workers))
        frame = bag.map(rows).flatten().to_dataframe(meta=meta)
        frame.to_parquet(out, write_index=False)
        seconds = time.perf_counter() - start
    count = len(pd.read_parquet(out, columns=["position"]))
    return len(files), count, seconds


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("out")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    files, parts, seconds = normalize_folder(args.folder, args.out, args.workers)
    print(
        f"{files} files, {parts} parts, {args.workers} worker(s): {seconds:.3f} s, "
        f"{files / seconds:.0f} files/s"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
