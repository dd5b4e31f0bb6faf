"""benchmarks/retime_answers.py: each arm's answer found in its trajectories, both arms timed
in alternating rounds against one reference, same code left untimed."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchmarks.retime_answers import answers, collect, main, prebuild, retime, summary
from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.task import Task
from tests.core.search.test_mcgs import TASK


def _trajectory(folder: Path, name: str, steps: list[tuple[str, float | None]]) -> None:
    (folder / "trajectories").mkdir(parents=True, exist_ok=True)
    document = {
        "task": name,
        "source": "void f() {}",
        "steps": [{"method": "m", "code": code, "speedup": s} for code, s in steps],
    }
    (folder / "trajectories" / f"{name}.json").write_text(json.dumps(document))


def test_an_arms_answer_is_its_fastest_step_over_all_paths(tmp_path: Path) -> None:
    _trajectory(tmp_path, "t", [("par", 100.0), ("par+ro", 90.0)])
    _trajectory(tmp_path, "t.path2", [("par", 100.0), ("par+lc", 140.0)])
    _trajectory(tmp_path, "u", [("slow", None)])
    assert answers(tmp_path) == {"t": ("par+lc", 140.0)}


def test_rounds_alternate_the_arms_and_same_code_is_not_timed() -> None:
    calls: list[str] = []
    speeds = {"a1": 100.0, "b1": 150.0, "same": 9.0}

    def time_fn(task: Task, code: str) -> float | None:
        calls.append(code)
        return speeds[code]

    tasks = {"x": TASK, "y": TASK, "z": TASK, "w": TASK}
    base = {"x": ("a1", 90.0), "y": ("same", 9.0), "w": ("a1", 80.0)}
    other = {"x": ("b1", 160.0), "y": ("same", 8.0)}
    rows = retime(tasks, (base, other), time_fn, rounds=3)
    assert calls == ["a1", "b1", "b1", "a1", "a1", "b1", "a1", "a1", "a1"]
    by_task = {r["task"]: r for r in rows}
    assert set(by_task) == {"x", "y", "w"}  # z: neither arm answered
    assert by_task["x"]["ratio"] == pytest.approx(1.5)
    assert by_task["y"] == {
        "task": "y",
        "measured_then": [9.0, 8.0],
        "same_code": True,
        "ratio": 1.0,
    }
    assert by_task["w"]["ratio"] == pytest.approx(1 / 100)  # the other arm kept the loop
    assert summary(rows) == {
        "tasks": 3,
        "same_code": 1,
        "timed": 2,
        "not_verified_again": 0,
        "geomean_ratio_timed": pytest.approx((1.5 / 100) ** 0.5, abs=1e-4),
        "better": 1,
        "worse": 1,
        "within_5_percent": 0,
    }


def test_an_answer_that_no_longer_verifies_has_no_ratio() -> None:
    rows = retime({"x": TASK}, ({"x": ("a", 2.0)}, {"x": ("b", 3.0)}), lambda t, c: None, rounds=2)
    assert rows[0]["ratio"] is None and summary(rows)["not_verified_again"] == 1


def _record(folder: Path, task: str) -> None:
    (folder / "records").mkdir(parents=True, exist_ok=True)
    record = {"task": task, "device": "H100", "commit": "abc", "command": f"mine {folder.name}"}
    (folder / "records" / f"{task}.json").write_text(json.dumps(record))


def test_collect_keeps_the_answers_asked_for_with_the_arms_provenance(tmp_path: Path) -> None:
    base, other = tmp_path / "seed", tmp_path / "mined"
    for folder, speedup in ((base, 2.0), (other, 3.0)):
        for task in ("t", "u"):
            _trajectory(folder, task, [(f"{folder.name} {task}", speedup)])
            _record(folder, task)
    document = collect((base, other), ("seed", "mined"), ["t"])
    assert document["device"] == ["H100"] and document["commit"] == ["abc"]
    assert document["commands"] == ["mine mined", "mine seed"]
    assert document["arms"] == {
        "seed": {"t": {"code": "seed t", "speedup": 2.0}},
        "mined": {"t": {"code": "mined t", "speedup": 3.0}},
    }
    with pytest.raises(SystemExit, match="no answer in either arm for: nope"):
        collect((base, other), ("seed", "mined"), ["nope"])


def test_collect_reads_a_bench_file_of_two_graphs_as_two_arms(tmp_path: Path) -> None:
    """`bench merge --arm seed --arm mined` writes both graphs' runs in one file: each arm
    takes its own method's passed answers, with the file's provenance."""

    def run(task: str, method: str, speedup: float | None) -> dict[str, object]:
        code = None if speedup is None else f"{method} {task}"
        return {
            "task": task,
            "method": method,
            "passed": speedup is not None,
            "speedup": speedup,
            "code": code,
        }

    both = tmp_path / "graphs.json"
    document = {
        "device": "NVIDIA H200",
        "commit": "9696aa2",
        "command": "regrapht bench merge",
        "runs": [
            run("t", "seed", 2.0),
            run("t", "mined", 3.0),
            run("u", "seed", None),
            run("u", "mined", 146.0),
        ],
    }
    both.write_text(json.dumps(document))
    collected = collect((both, both), ("seed", "mined"), None)
    assert collected["device"] == ["NVIDIA H200"] and collected["commit"] == ["9696aa2"]
    assert collected["arms"] == {
        "seed": {"t": {"code": "seed t", "speedup": 2.0}},
        "mined": {
            "t": {"code": "mined t", "speedup": 3.0},
            "u": {"code": "mined u", "speedup": 146.0},
        },
    }
    with pytest.raises(SystemExit, match="no runs of method 'walks'"):
        collect((both, both), ("seed", "walks"), None)


def test_timing_refuses_answers_of_tasks_the_manifest_lacks(tmp_path: Path) -> None:
    manifest = tmp_path / "m.toml"
    manifest.write_text('[[task]]\nname = "a"\nfile = "a.cpp"\nfunction = "f"\n')
    answers_file = tmp_path / "answers.json"
    arms = {"seed": {"b": {"code": "x", "speedup": 2.0}}, "mined": {}}
    answers_file.write_text(json.dumps({"commit": ["abc"], "arms": arms}))
    with pytest.raises(SystemExit, match="not tasks of"):
        main(["time", str(manifest), str(answers_file)])


def test_prebuild_compiles_every_answer_at_once_and_leaves_no_work_folder(tmp_path: Path) -> None:
    """The rounds then find every object in the cache; a build's work folder is removed,
    and one that fails is reported, not raised (its rounds say why)."""

    class Building:
        def __init__(self) -> None:
            self.asked: list[str] = []

        def build(self, task: Task, source: str) -> object:
            self.asked.append(source)
            if source == "bad":
                return Evaluation(Status.COMPILE_ERROR, "h", "error")
            (tmp_path / source).mkdir()
            return SimpleNamespace(work=tmp_path / source)

    verifier = Building()
    built = prebuild(verifier, [(TASK, "a"), (TASK, "bad"), (TASK, "b")], workers=2)  # type: ignore[arg-type]
    assert built == [True, False, True] and sorted(verifier.asked) == ["a", "b", "bad"]
    assert not any(tmp_path.iterdir())
