"""Scaling of `regrapht graph mine --ray` from one GPU to several, from two output folders.

Usage: python scripts/mining_scaling.py --one DIR --many DIR --call LOG=SECONDS ...
           [--host SAMPLES.jsonl] [--note TEXT] > benchmarks/results/NAME.json

Why a script: the figures quoted for scaling (rates, how busy the workers were, the same
tasks' seconds and speedups on both set-ups) must be recomputable from committed files.
``--one`` is a run on one GPU, ``--many`` one on several; each ``--call`` is one call's
console log (which names the tasks it finished) with the seconds that call ran, or at
most ran where it was stopped before it could write its summary (then the rates are lower
bounds and say so). ``--host`` is scripts/sample-host.py's output during a call.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from pathlib import Path
from typing import Any

from regrapht_core.bench.mine import verified_candidates

_FINISHED = re.compile(r"^(\S+)\s+(\d+) paths$")


def _records(folder: Path) -> dict[str, dict[str, Any]]:
    found = (json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("records/*.json"))
    return {record["task"]: record for record in found}


def _call(
    log: Path, seconds: float, one: dict[str, dict[str, Any]], many: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """One call's rates, from the tasks its log says it finished (a call on one GPU is a
    ``--one`` call, its records in that folder)."""
    text = log.read_text(encoding="utf-8", errors="replace")
    names = [m.group(1) for line in text.splitlines() if (m := _FINISHED.match(line))]
    placed = re.search(r"Ray: (\d+) worker\(s\) on (\d+) GPU\(s\)", text)
    workers, gpus = (int(placed.group(1)), int(placed.group(2))) if placed else (1, 1)
    ran = [(one if gpus == 1 else many)[name] for name in names]
    minutes = seconds / 60
    verified = sum(verified_candidates(r) for r in ran)
    return {
        "log": log.name,
        "seconds": seconds,
        "summary_written": "verified per minute" in text,
        "workers": workers,
        "gpus": gpus,
        "tasks": len(ran),
        "verified_candidates": verified,
        "tasks_per_minute": round(len(ran) / minutes, 2),
        "verified_per_minute": round(verified / minutes, 2),
        "worker_busy": round(sum(r["seconds"] for r in ran) / (seconds * workers), 3),
        "gpu_held_share": round(sum(r["gpu_held_s"] for r in ran) / (seconds * gpus), 3),
    }


def _paired(one: dict[str, Any], many: dict[str, Any]) -> dict[str, Any]:
    both = [t for t in one if t in many and one[t]["seconds"] > 1 and many[t]["seconds"] > 1]
    faster = [t for t in both if one[t]["best_speedup"] and many[t]["best_speedup"]]
    ratios = [many[t]["best_speedup"] / one[t]["best_speedup"] for t in faster]
    return {
        "tasks": both,
        "seconds_one": round(sum(one[t]["seconds"] for t in both), 1),
        "seconds_many": round(sum(many[t]["seconds"] for t in both), 1),
        "best_speedup_many_over_one": [round(r, 2) for r in ratios],
        "best_speedup_ratio_geomean": round(math.exp(statistics.mean(map(math.log, ratios))), 3)
        if ratios
        else None,
    }


def _host(samples: Path) -> dict[str, Any]:
    rows = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    gpus = [r["gpu_util"] for r in rows if r["gpu_util"]]
    return {
        "samples": len(rows),
        "cpu_busy_mean": round(statistics.mean(r["busy"] for r in rows), 3),
        "cpu_iowait_mean": round(statistics.mean(r["iowait"] for r in rows), 4),
        "load1_mean": round(statistics.mean(r["load1"] for r in rows), 2),
        "gpu_util_mean_percent": [
            round(statistics.mean(col), 1) for col in zip(*gpus, strict=True)
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", type=Path, required=True)
    parser.add_argument("--many", type=Path, required=True)
    parser.add_argument("--call", action="append", required=True, metavar="LOG=SECONDS")
    parser.add_argument("--host", type=Path)
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    one, many = _records(args.one), _records(args.many)
    calls = []
    for spec in args.call:
        log, _, seconds = spec.rpartition("=")
        calls.append(_call(Path(log), float(seconds), one, many))
    first = next(iter(many.values()))
    single = [c for c in calls if c["gpus"] == 1]
    several = [c for c in calls if c["gpus"] > 1]

    def rate(group: list[dict[str, Any]], key: str) -> float:
        return sum(c[key] * c["seconds"] for c in group) / sum(c["seconds"] for c in group)

    document = {
        "benchmark": "regrapht graph mine --ray: one GPU against several, same machine",
        **{key: first.get(key) for key in ("device", "driver", "nvcc", "commit", "budget")},
        "timing": first.get("timing"),
        "command": sorted({r["command"] for r in (*one.values(), *many.values())}),
        "calls": calls,
        "scaling": {
            "gpus": several[0]["gpus"] if several else None,
            "tasks_per_minute": [
                round(rate(single, "tasks_per_minute"), 2),
                round(rate(several, "tasks_per_minute"), 2),
            ],
            "verified_per_minute": [
                round(rate(single, "verified_per_minute"), 2),
                round(rate(several, "verified_per_minute"), 2),
            ],
        },
        "paired": _paired(one, many),
        "host": _host(args.host) if args.host else None,
        "note": args.note,
    }
    scaling = document["scaling"]
    gpus = scaling["gpus"] or 1
    scaling["speedup_tasks"] = round(
        scaling["tasks_per_minute"][1] / scaling["tasks_per_minute"][0], 2
    )
    scaling["efficiency_tasks"] = round(scaling["speedup_tasks"] / gpus, 3)
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
