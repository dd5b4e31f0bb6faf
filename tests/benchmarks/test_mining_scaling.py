"""The 4-GPU mining figures quoted in docs/mining.md are what scripts/mining_scaling.py
computes from the committed mined folders and logs: each document can be made again from
its files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
MINED = ROOT / "graph_snapshots" / "mined-h200x4"


def _recomputed(name: str, mined: Path, host: str) -> dict[str, Any]:
    """``benchmarks/results/NAME.json``, asserted equal to the script's output from the
    mined folders in ``mined`` and the logs and ``host`` samples in ``results/NAME/``."""
    committed = json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))
    folder = RESULTS / name
    argv = [sys.executable, str(ROOT / "scripts" / "mining_scaling.py")]
    argv += ["--one", str(mined / "one-gpu"), "--many", str(mined / "four-gpu")]
    for call in committed["calls"]:
        argv += ["--call", f"{folder / call['log']}={call['seconds']}"]
    argv += ["--host", str(folder / host), "--note", committed["note"]]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    again: dict[str, Any] = json.loads(done.stdout)
    assert again == committed
    return again


def test_the_committed_scaling_document_is_recomputed_from_its_files() -> None:
    again = _recomputed("gpu-h200x4-mining", MINED, "host-call3.jsonl")
    # What docs/mining.md quotes.
    assert again["scaling"]["tasks_per_minute"] == [4.42, 5.74]
    assert again["scaling"]["efficiency_tasks"] == 0.325
    assert [c["worker_busy"] for c in again["calls"]] == [0.819, 0.262, 0.299, 0.263]


def test_the_rerun_after_the_sanitizer_fix_is_recomputed_from_its_files() -> None:
    again = _recomputed("gpu-h200x4-mining-5bc9afd", MINED / "rerun-5bc9afd", "host-four.jsonl")
    # What docs/mining.md quotes.
    assert again["scaling"]["tasks_per_minute"] == [3.97, 11.75]
    assert again["scaling"]["speedup_tasks"] == 2.96
    assert again["scaling"]["efficiency_tasks"] == 0.74
    assert [c["worker_busy"] for c in again["calls"]] == [0.741, 0.825]
    assert again["paired"]["best_speedup_ratio_geomean"] == 1.153
