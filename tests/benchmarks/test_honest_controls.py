"""Comparing two honest-controls runs: only a verified, same-mode speedup within ±10% passes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchmarks.honest_controls import compare, report

ROOT = Path(__file__).resolve().parents[2]


def _run(*rows: tuple[str, str, str, float]) -> dict[str, Any]:
    return {
        "candidates": [
            {"candidate": c, "status": s, "mode": m, "speedup": x} for c, s, m, x in rows
        ]
    }


BEFORE = _run(
    ("saxpy/a", "verified", "end_to_end", 2.0),
    ("saxpy/b", "verified", "end_to_end", 2.0),
    ("sum/c", "verified", "kernel_only", 4.0),
    ("sum/d", "verified", "end_to_end", 1.0),
)


def test_ratios_and_the_bound() -> None:
    after = _run(
        ("saxpy/a", "verified", "end_to_end", 2.18),
        ("saxpy/b", "verified", "end_to_end", 1.7),
        ("sum/c", "verified", "end_to_end", 4.0),
        ("sum/d", "wrong_output", "end_to_end", 1.0),
        ("vadd/e", "verified", "end_to_end", 1.0),
    )
    rows = {r.candidate: r for r in compare(BEFORE, after)}
    assert rows["saxpy/a"].within and abs((rows["saxpy/a"].ratio or 0) - 1.09) < 1e-9
    assert not rows["saxpy/b"].within and rows["saxpy/b"].ratio == 0.85
    assert rows["sum/c"].ratio is None, "timed in another mode: not comparable"
    assert rows["sum/d"].after is None and not rows["sum/d"].within
    assert rows["vadd/e"].before is None and not rows["vadd/e"].within
    assert report(list(rows.values())).endswith("all within ±10%: NO")


def test_the_script_exits_zero_only_when_all_are_within(tmp_path: Path) -> None:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps(BEFORE))
    script = [sys.executable, str(ROOT / "scripts" / "compare-honest.py"), str(before)]
    for speedup, code in ((1.05, 0), (1.2, 1)):
        scaled = [{**row, "speedup": row["speedup"] * speedup} for row in BEFORE["candidates"]]
        after.write_text(json.dumps({"candidates": scaled}))
        done = subprocess.run([*script, str(after)], capture_output=True, text=True, check=False)
        assert done.returncode == code, done.stdout + done.stderr
        assert "saxpy/a" in done.stdout


def test_a_named_mode_compares_that_timing_of_each_control() -> None:
    def run(kernel_only: float) -> dict[str, Any]:
        timings = [
            {"mode": "end_to_end", "speedup": 1.0},
            {"mode": "kernel_only", "speedup": kernel_only},
        ]
        row = {"candidate": "sum/c", "status": "verified", "mode": "end_to_end", "speedup": 1.0}
        plain = {"candidate": "saxpy/a", "status": "verified", "mode": "end_to_end"}
        return {
            "candidates": [
                {**row, "timings": timings},
                {**plain, "speedup": 2.0, "timings": [{"mode": "end_to_end", "speedup": 2.0}]},
            ]
        }

    rows = {r.candidate: r for r in compare(run(40.0), run(30.0), "kernel_only")}
    assert rows["sum/c"].ratio == 0.75 and not rows["sum/c"].within
    assert rows["saxpy/a"].before is None, "no kernel-only timing: missing, not compared"
    assert all(r.within for r in compare(run(40.0), run(30.0)))
