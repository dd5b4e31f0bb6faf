"""Compare two graphs by the searches they led: two `regrapht graph mine` output folders,
the same tasks searched with the same settings but different snapshots.

Usage: python scripts/compare_graphs.py BASE OTHER [--names seed mined] [--note TEXT]
       > benchmarks/results/NAME.json

`graph mine` over the test split is the search `regrapht optimize` runs, spread over the
GPU's workers and resumable, and each task's record keeps its answer's speedup
(``best_speedup``: the verified candidate faster than the sequential code that the search
returns, ``None`` if none), so a graph comparison needs no second runner. pass@1 and the
geomean speedup of the passed tasks are computed as `regrapht bench run` computes them
(``bench.runner.summarise``); ``geomean_speedup_all`` counts a task without an answer
as 1.0 (its user keeps the sequential code). Since a few percent between two equal kernels
is timing noise, the paired view counts tasks within 5% of each other apart, and splits the
tasks where both arms verified the very same programs (their difference is the timing's
noise alone) from those where the graph led the search to different ones.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from regrapht_core.bench.mine import verified_candidates
from regrapht_core.bench.runner import summarise

NOISE = 1.05
"""Paired ratios within this factor either way count as ties."""


def _load(folder: Path) -> dict[str, dict[str, Any]]:
    return {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))
    }


def _as_run(record: dict[str, Any], arm: str) -> dict[str, Any]:
    """A mining record as `bench run` records a run, for ``summarise``."""
    best = record.get("best_speedup")
    statuses = Counter(str(row["status"]) for row in record.get("candidates", []))
    return {"method": arm, "passed": best is not None, "speedup": best, "statuses": statuses}


def _programs(record: dict[str, Any]) -> set[tuple[str, ...]]:
    """The programs a search verified or rejected, each as the producers of its steps from
    the task's code: the same set in two searches means they timed the same programs."""
    rows = {row["index"]: row for row in record.get("candidates", []) if "index" in row}
    programs = set()
    for row in rows.values():
        if row.get("status") == "no_code":
            continue
        path, step = [], row
        while step is not None:
            path.append(str(step.get("producer")))
            step = rows.get(step.get("parent")) if step.get("parent") is not None else None
        programs.add(tuple(reversed(path)))
    return programs


def _pairs(ratios: list[float]) -> dict[str, Any]:
    return {
        "tasks": len(ratios),
        "geomean_ratio": _geomean(ratios) if ratios else None,
        "better": sum(1 for r in ratios if r > NOISE),
        "worse": sum(1 for r in ratios if r < 1 / NOISE),
        "within_5_percent": sum(1 for r in ratios if 1 / NOISE <= r <= NOISE),
    }


def _geomean(values: list[float]) -> float:
    return round(math.exp(statistics.fmean(math.log(v) for v in values)), 3)


def _arm(folder: Path, name: str, records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    runs = list(_load(folder / "runs").values()) if (folder / "runs").is_dir() else []
    statuses: Counter[str] = Counter()
    for record in records.values():
        statuses.update(str(row["status"]) for row in record.get("candidates", []))
    snapshots = {m.group(1) for r in runs if (m := re.search(r"--snapshot (\S+)", r["command"]))}
    summary = summarise(_as_run(r, name) for r in records.values())[name]
    summary.pop("techniques_passed")  # mining records keep no answer's techniques
    speedups = [r.get("best_speedup") or 1.0 for r in records.values()]
    return {
        "folder": str(folder),
        "snapshot": sorted(snapshots) or ["the shipped snapshot (no --snapshot)"],
        "commands": sorted({r["command"] for r in runs}),
        "summary": summary,
        "geomean_speedup_all": _geomean(speedups),
        "verified_candidates": sum(verified_candidates(r) for r in records.values()),
        "statuses": dict(sorted(statuses.items())),
        "seconds": round(sum(r.get("seconds") or 0.0 for r in records.values()), 1),
        "runs": runs,
    }


def compare(base: Path, other: Path, names: tuple[str, str], note: str) -> dict[str, Any]:
    first, second = _load(base / "records"), _load(other / "records")
    tasks = sorted(set(first) & set(second))
    if not tasks:
        raise SystemExit(f"{base} and {other} share no task")
    first = {t: first[t] for t in tasks}
    second = {t: second[t] for t in tasks}
    ratios = {
        t: (second[t].get("best_speedup") or 1.0) / (first[t].get("best_speedup") or 1.0)
        for t in tasks
    }
    families: dict[str, list[float]] = defaultdict(list)
    for task in tasks:
        families[str(first[task].get("family"))].append(ratios[task])
    records = [*first.values(), *second.values()]
    searched = [t for t in tasks if _programs(first[t]) or _programs(second[t])]
    differ = [t for t in searched if _programs(first[t]) != _programs(second[t])]

    def values(key: str) -> list[str]:
        return sorted({str(r.get(key)) for r in records if r.get(key) is not None})

    return {
        "benchmark": f"graph comparison: {names[1]} against {names[0]}, the same tasks searched "
        "with each snapshot (regrapht graph mine records)",
        "device": values("device"),
        "driver": values("driver"),
        "nvcc": values("nvcc"),
        "commit": values("commit"),
        "commands": sorted({str(r["command"]) for r in records if r.get("command")}),
        "budget": values("budget"),
        "model": values("model"),
        "timing": values("timing"),
        "tasks": len(tasks),
        "arms": {
            names[0]: _arm(base, names[0], first),
            names[1]: _arm(other, names[1], second),
        },
        "paired": {
            "ratio": f"{names[1]} / {names[0]} best speedup per task (1.0 where none passed)",
            **{k: v for k, v in _pairs(list(ratios.values())).items() if k != "tasks"},
            "same_programs": _pairs([ratios[t] for t in searched if t not in differ]),
            "different_programs": {
                **_pairs([ratios[t] for t in differ]),
                "per_task": {t: round(ratios[t], 4) for t in differ},
            },
            "per_family_geomean_ratio": {f: _geomean(v) for f, v in sorted(families.items())},
            "passed_by_one_only": {
                task: {
                    name: [row["status"] for row in arm[task].get("candidates", [])]
                    for name, arm in zip(names, (first, second), strict=True)
                }
                for task in tasks
                if (first[task].get("best_speedup") is None)
                != (second[task].get("best_speedup") is None)
            },
            "per_task": {t: round(r, 4) for t, r in ratios.items()},
        },
        "note": note,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="`graph mine --out` of the graph compared to")
    parser.add_argument("other", type=Path, help="`graph mine --out` of the graph compared")
    parser.add_argument("--names", nargs=2, default=("base", "other"), metavar=("BASE", "OTHER"))
    parser.add_argument("--note", default="", help="what the numbers alone do not say")
    args = parser.parse_args()
    document = compare(args.base, args.other, tuple(args.names), args.note)
    names = " ".join(args.names)
    note = " --note TEXT" if args.note else ""  # the text itself is the document's note
    document["command"] = f"python {sys.argv[0]} {args.base} {args.other} --names {names}{note}"
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
