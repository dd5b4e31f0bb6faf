"""The 4-GPU mining figures quoted in docs/mining.md are what scripts/mining_scaling.py
computes from the committed mined folders and logs: the document can be made again from
its files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
FOLDER = RESULTS / "gpu-h200x4-mining"
MINED = ROOT / "graph_snapshots" / "mined-h200x4"


def test_the_committed_scaling_document_is_recomputed_from_its_files() -> None:
    committed = json.loads((RESULTS / "gpu-h200x4-mining.json").read_text(encoding="utf-8"))
    calls = [f"{FOLDER / c['log']}={c['seconds']}" for c in committed["calls"]]
    argv = [sys.executable, str(ROOT / "scripts" / "mining_scaling.py")]
    argv += ["--one", str(MINED / "one-gpu"), "--many", str(MINED / "four-gpu")]
    argv += [part for call in calls for part in ("--call", call)]
    argv += ["--host", str(FOLDER / "host-call3.jsonl"), "--note", committed["note"]]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    again = json.loads(done.stdout)
    assert again == committed
    # What docs/mining.md quotes.
    assert again["scaling"]["tasks_per_minute"] == [4.42, 5.74]
    assert again["scaling"]["efficiency_tasks"] == 0.325
    assert [c["worker_busy"] for c in again["calls"]] == [0.819, 0.262, 0.299, 0.263]
