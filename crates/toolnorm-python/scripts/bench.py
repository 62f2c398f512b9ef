"""The Python package's figures (run by scripts/perf.sh, which builds what it needs).

    python scripts/bench.py throughput TOOLNORM RUNS STREAM...
        MB/s of `toolnorm.normalize(data)` (the bytes in memory, the parts as dicts) and
        of `TOOLNORM normalize --format parts STREAM > /dev/null` on each stream, best
        of RUNS each, and the ratio; then the streams together.
    python scripts/bench.py many FILES RUNS DIR
        Builds DIR as scripts/many-files.sh builds its folder (FILES copies of the
        recorded fixtures, fresh session ids, 100 a folder), then runs the Dask example
        with 1 and 2 workers, best of RUNS each: files/s.
"""

import glob
import os
import subprocess
import sys
import time
from pathlib import Path

import toolnorm

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent / "examples"))


def best(runs, run):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def throughput(cli, runs, streams):
    print(f"{'stream':<22} {'MB':>7} {'parts':>8} {'binding MB/s':>13} {'command MB/s':>13} {'ratio':>6}")
    total_mb = total_binding = total_cli = 0.0
    for stream in streams:
        data = Path(stream).read_bytes()
        mb = len(data) / 1e6
        parts = len(toolnorm.normalize(data))
        binding = best(runs, lambda: toolnorm.normalize(data))
        with open(os.devnull, "wb") as null:
            command = best(
                runs,
                lambda: subprocess.run(
                    [cli, "normalize", "--format", "parts", stream], stdout=null, check=True
                ),
            )
        total_mb, total_binding, total_cli = total_mb + mb, total_binding + binding, total_cli + command
        name = Path(stream).stem
        print(f"{name:<22} {mb:>7.1f} {parts:>8} {mb / binding:>13.0f} {mb / command:>13.0f} {command / binding:>6.2f}")
    print(
        f"{'all':<22} {total_mb:>7.1f} {'':>8} {total_mb / total_binding:>13.0f} "
        f"{total_mb / total_cli:>13.0f} {total_cli / total_binding:>6.2f}"
    )


def build_folder(out, count):
    """The folder of scripts/many-files.sh."""
    os.chdir(ROOT)
    fixtures = sorted(glob.glob("fixtures/*/*.jsonl"))
    texts = [open(path, encoding="utf-8").read() for path in fixtures]
    for n in range(count):
        text = texts[n % len(texts)].replace("00000000-0000-4000-8000-", f"{n:08x}-0000-4000-8000-")
        for prefix in ("_mock_", '"item_', '"prt_', '"evt_', '"ses_', '"msg_', '"turn-'):
            text = text.replace(prefix, f"{prefix}{n:x}x")
        folder = os.path.join(out, f"{n // 100:03}")
        os.makedirs(folder, exist_ok=True)
        name = os.path.basename(fixtures[n % len(fixtures)])
        with open(os.path.join(folder, f"{n:05}-{name}"), "w", encoding="utf-8") as f:
            f.write(text)


def many(count, runs, folder):
    import shutil

    from dask_parquet import normalize_folder

    build_folder(folder, count)
    size = sum(path.stat().st_size for path in Path(folder).rglob("*.jsonl"))
    print(f"{count} files, {size / 1e6:.1f} MB, load average {os.getloadavg()[0]:.1f}")
    for workers in (1, 2):
        times = []
        for _ in range(runs):
            out = Path(folder).with_suffix(".parquet")
            shutil.rmtree(out, ignore_errors=True)
            files, parts, seconds = normalize_folder(folder, str(out), workers)
            times.append(seconds)
        fastest = min(times)
        print(f"{workers} worker(s): {fastest:.3f} s, {files / fastest:.0f} files/s, {size / 1e6 / fastest:.1f} MB/s, {parts} parts")
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    what, *args = sys.argv[1:]
    if what == "throughput":
        throughput(args[0], int(args[1]), args[2:])
    else:
        many(int(args[0]), int(args[1]), args[2])
