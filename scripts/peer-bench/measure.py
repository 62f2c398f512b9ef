#!/usr/bin/env python3
"""Runs one command and prints its wall-clock time and CPU time (user + system), in
seconds, and its peak RSS in KiB, on one line, for scripts/peer-bench.sh.

The CPU time and the peak RSS are the child's own, as the kernel counts them
(`os.wait4`, microseconds); GNU time prints CPU time in hundredths of a second, a
step of about 4 % of toolnorm's 0.23 CPU seconds on the 50 MB stream.

Usage: measure.py STDERR_FILE COMMAND [ARG...]   (the command's output is dropped, its
standard error goes to STDERR_FILE; exits with the command's status)
"""

import os
import subprocess
import sys
import time


def main() -> int:
    stderr_path, *command = sys.argv[1:]
    with open(os.devnull, "wb") as out, open(stderr_path, "wb") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    print(f"{wall:.6f} {usage.ru_utime + usage.ru_stime:.6f} {usage.ru_maxrss}")
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
