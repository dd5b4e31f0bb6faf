"""Sum up a `regrapht graph mine` output folder as one results document.

Usage: python scripts/mining_report.py DIR [--note TEXT] > benchmarks/results/NAME.json

Everything comes from the folder itself: each task's record (device, driver, nvcc, commit,
budget, trajectories, candidates) and each run's summary under runs/ (throughput and the
GPU's held and waited seconds), so the numbers quoted from the document can be checked
against the files it names.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from regrapht_core.bench.mine import verified_candidates


def _load(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]


def report(out: Path, note: str) -> dict[str, Any]:
    records = _load(out / "records")
    runs = _load(out / "runs") if (out / "runs").is_dir() else []
    families: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        found = families[str(record.get("family"))]
        found["tasks"] += 1
        found["tasks_with_paths"] += 1 if record.get("trajectories") else 0
        found["trajectories"] += record.get("trajectories") or 0
        found["verified_candidates"] += verified_candidates(record)

    def values(key: str) -> list[Any]:
        return sorted({str(r.get(key)) for r in records if r.get(key) is not None})

    return {
        "benchmark": "regrapht graph mine: verified trajectories mined from the corpus",
        "device": values("device"),
        "driver": values("driver"),
        "nvcc": values("nvcc"),
        "commit": values("commit"),
        "command": sorted({run["command"] for run in runs}),
        "budget": values("budget"),
        "timing": values("timing"),
        "summary": {
            "tasks": len(records),
            "tasks_failed": sum(1 for r in records if r.get("failure")),
            "tasks_with_paths": sum(1 for r in records if r.get("trajectories")),
            "families_with_paths": sum(1 for f in families.values() if f["trajectories"]),
            "trajectories": sum(r.get("trajectories") or 0 for r in records),
            "trajectory_files": len(list((out / "trajectories").glob("*.json"))),
        },
        "per_family": {name: dict(found) for name, found in sorted(families.items())},
        "runs": runs,
        "files": str(out),
        "note": note,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder `graph mine --out` wrote")
    parser.add_argument("--note", default="", help="what the numbers alone do not say")
    args = parser.parse_args()
    json.dump(report(args.out, args.note), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
