"""scripts/compare_graphs.py: two mining folders of the same tasks become one comparison,
pass@1 and geomean as `bench run` counts them, and a paired view that keeps ties apart."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.scripts import load_script


def _script() -> ModuleType:
    return load_script("compare_graphs")


def _arm(root: Path, best: dict[str, float | None], snapshot: str = "") -> Path:
    (root / "records").mkdir(parents=True)
    (root / "runs").mkdir()
    for task, speedup in best.items():
        statuses = ["verified"] if speedup else ["implausible"]
        record: dict[str, Any] = {
            "task": task,
            "family": task.split("_")[0],
            "device": "GPU",
            "commit": "abc",
            "budget": 4,
            "best_speedup": speedup,
            "seconds": 10.0,
            "command": f"regrapht graph mine m.toml --out {root}",
            "candidates": [{"status": s, "verified": s == "verified"} for s in statuses],
        }
        (root / "records" / f"{task}.json").write_text(json.dumps(record))
    command = f"regrapht graph mine m.toml --out {root}{snapshot}"
    (root / "runs" / "1.json").write_text(json.dumps({"command": command}))
    return root


def test_pass_geomean_and_pairs(tmp_path: Path) -> None:
    base = _arm(tmp_path / "a", {"x_1": 4.0, "x_2": 2.0, "y_1": 10.0, "only_a": 3.0})
    other = _arm(tmp_path / "b", {"x_1": 4.1, "x_2": 8.0, "y_1": None}, " --snapshot g.msgpack")
    document = _script().compare(base, other, ("seed", "mined"), "a note")
    assert document["tasks"] == 3  # only the tasks both arms searched
    assert document["commands"] == sorted(
        f"regrapht graph mine m.toml --out {r}" for r in (base, other)
    )
    seed, mined = document["arms"]["seed"], document["arms"]["mined"]
    assert seed["summary"]["passed"] == 3 and mined["summary"]["passed"] == 2
    assert mined["summary"]["geomean_speedup_passed"] == pytest.approx((4.1 * 8.0) ** 0.5, 1e-3)
    assert mined["geomean_speedup_all"] == pytest.approx((4.1 * 8.0 * 1.0) ** (1 / 3), 1e-3)
    assert mined["snapshot"] == ["g.msgpack"] and "no --snapshot" in seed["snapshot"][0]
    paired = document["paired"]
    assert (paired["better"], paired["worse"], paired["within_5_percent"]) == (1, 1, 1)
    assert list(paired["passed_by_one_only"]) == ["y_1"]
    assert paired["per_family_geomean_ratio"]["x"] == pytest.approx((4.1 / 4 * 4.0) ** 0.5, 1e-3)


def test_no_shared_task_is_refused(tmp_path: Path) -> None:
    base = _arm(tmp_path / "a", {"x_1": 2.0})
    other = _arm(tmp_path / "b", {"x_2": 2.0})
    with pytest.raises(SystemExit, match="share no task"):
        _script().compare(base, other, ("a", "b"), "")


def _searched(root: Path, programs: dict[str, tuple[list[list[str]], float]]) -> Path:
    """An arm whose records list their candidates as paths of producers."""
    best = {task: speedup for task, (_, speedup) in programs.items()}
    _arm(root, best)
    for task, (paths, speedup) in programs.items():
        rows: list[dict[str, Any]] = []
        for path in paths:
            parent = None
            for depth, producer in enumerate(path):
                known = next(
                    (r for r in rows if r["producer"] == producer and r["parent"] == parent), None
                )
                if known is None or depth == len(path) - 1:
                    known = {
                        "index": len(rows),
                        "parent": parent,
                        "producer": producer,
                        "status": "verified",
                        "verified": True,
                        "speedup": speedup,
                    }
                    rows.append(known)
                parent = known["index"]
        path_file = root / "records" / f"{task}.json"
        record = json.loads(path_file.read_text())
        record["candidates"] = [*rows, {"index": len(rows), "status": "no_code", "parent": None}]
        path_file.write_text(json.dumps(record))
    return root


def test_tasks_that_timed_the_same_programs_are_kept_apart(tmp_path: Path) -> None:
    """Two searches that verified the same programs differ only by the timing's noise; the
    tasks where the graph led to other programs are where it acted."""
    same = [["p"], ["p", "a"]]
    base = _searched(tmp_path / "a", {"x_1": (same, 10.0), "x_2": ([["p"], ["p", "a"]], 10.0)})
    other = _searched(tmp_path / "b", {"x_1": (same, 11.0), "x_2": ([["p"], ["p", "b"]], 20.0)})
    paired = _script().compare(base, other, ("seed", "mined"), "")["paired"]
    assert paired["same_programs"]["tasks"] == 1
    assert paired["same_programs"]["geomean_ratio"] == pytest.approx(1.1)
    assert paired["different_programs"]["per_task"] == {"x_2": 2.0}
    assert paired["different_programs"]["better"] == 1
