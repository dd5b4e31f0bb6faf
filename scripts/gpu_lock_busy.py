"""How much of the time each GPU's lock is held: whether more processes per GPU could help.

Usage: python3 scripts/gpu_lock_busy.py [--every 0.1] [--report 30] > busy.csv

Every timing run and every model answer on a GPU holds that GPU's lock
(``regrapht_core.verify.gpu_lock``), an advisory ``flock`` on ``gpu-<key>.lock`` in
``lock_folder()``. While the lock is held nearly all the time, the GPU's turn is what the
searches wait for, and more processes on that GPU would only wait longer; while it is often
free, the processes are busy elsewhere (compiling, proposing) and more of them would keep it
busier. ``nvidia-smi`` cannot tell the two apart: it sees kernels, not turns.

This samples each lock file from outside, without touching the engine: every ``--every``
seconds it tries an exclusive lock without waiting and lets go at once (any holder, alone
or sharing, refuses it). Between samples it holds nothing; an engine process that polls
while a sample holds the lock waits one poll (10 ms) more, a few microseconds in every
sample.
Every ``--report`` seconds it prints, per lock file, the share of samples that found it
held: CSV rows ``time,lock,busy_share,samples``.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from regrapht_core.verify.gpu_lock import lock_folder

__all__ = ["held", "main"]


def held(path: Path) -> bool:
    """Whether anyone holds the lock file right now."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases the lock taken above
    return False


def main(argv: Sequence[str] | None = None, *, rounds: int | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=0.1, help="seconds between samples")
    parser.add_argument("--report", type=float, default=30.0, help="seconds between rows")
    parser.add_argument("--folder", type=Path, default=None, help="default: lock_folder()")
    args = parser.parse_args(argv)
    folder = args.folder or lock_folder()
    sys.stdout.write("time,lock,busy_share,samples\n")
    sys.stdout.flush()
    reported = 0
    while rounds is None or reported < rounds:
        counts: dict[str, list[int]] = {}
        end = time.monotonic() + args.report
        while time.monotonic() < end:
            for path in sorted(folder.glob("gpu-*.lock")):
                try:
                    busy = held(path)
                except OSError:
                    continue  # not there yet, or not ours to read
                tally = counts.setdefault(path.name, [0, 0])
                tally[0] += busy
                tally[1] += 1
            time.sleep(args.every)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        for name, (busy_count, samples) in sorted(counts.items()):
            sys.stdout.write(f"{stamp},{name},{busy_count / samples:.3f},{samples}\n")
        sys.stdout.flush()
        reported += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
