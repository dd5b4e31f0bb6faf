"""Sample how busy a GPU machine's host and GPUs are while something else runs on it.

Usage: python3 scripts/sample-host.py OUT.jsonl [--every SECONDS] &   (stop it with kill)

Why: a mining run's throughput can be held back by the GPUs, the host's cores, its disk
or its memory, and a run's own records only show the GPU lock (held and waited seconds).
Each line is one interval: the share of CPU time busy, in system code and waiting for I/O
(from /proc/stat), the load average, free and total memory (/proc/meminfo), and each GPU's
utilization from nvidia-smi. Standard library only, so it runs on a bare machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path


def _cpu() -> list[int]:
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    return [int(value) for value in fields]


def _memory() -> dict[str, int]:
    wanted = {"MemTotal", "MemAvailable"}
    found = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in wanted:
            found[key] = int(rest.split()[0]) // 1024
    return found


def _gpus() -> list[int]:
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [int(v) for v in done.stdout.split() if v.strip().isdigit()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--every", type=float, default=5.0)
    args = parser.parse_args()
    before = _cpu()
    with args.out.open("a", encoding="utf-8") as sink:
        while True:
            time.sleep(args.every)
            now = _cpu()
            delta = [b - a for a, b in zip(before, now, strict=True)]
            before = now
            total = sum(delta) or 1
            # user nice system idle iowait irq softirq steal ...
            idle, iowait = delta[3], delta[4]
            row = {
                "t": round(time.time(), 1),
                "busy": round(1 - (idle + iowait) / total, 3),
                "system": round(delta[2] / total, 3),
                "iowait": round(iowait / total, 3),
                "load1": float(Path("/proc/loadavg").read_text().split()[0]),
                **{f"{k}_mib": v for k, v in _memory().items()},
                "gpu_util": _gpus(),
            }
            sink.write(json.dumps(row) + "\n")
            sink.flush()


if __name__ == "__main__":
    main()
