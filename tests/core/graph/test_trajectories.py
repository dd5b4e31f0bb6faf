from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from regrapht_core.errors import GraphError, TrajectoryError
from regrapht_core.graph.trajectories import load_trajectory, load_trajectory_dir
from tests.core.graph.factories import trajectory, trajectory_document, write_trajectory


def test_a_valid_file_loads_into_a_trajectory(tmp_path: Path) -> None:
    path = write_trajectory(tmp_path, trajectory_document("saxpy", ["parallelization", "unroll"]))
    assert load_trajectory(path) == trajectory("saxpy", ["parallelization", "unroll"])


def test_integer_speedups_become_floats_and_null_is_kept(tmp_path: Path) -> None:
    document = trajectory_document("saxpy", ["parallelization", "unroll"])
    document["steps"][0]["speedup"] = 3
    document["steps"][1]["speedup"] = None
    document["verified_on"] = None
    loaded = load_trajectory(write_trajectory(tmp_path, document))
    assert [s.speedup for s in loaded.steps] == [3.0, None]
    assert isinstance(loaded.steps[0].speedup, float)
    assert loaded.verified_on is None


def _broken(change: Any) -> dict[str, Any]:
    document = trajectory_document("saxpy", ["parallelization"])
    change(document)
    return document


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d: d.pop("source"), "missing key(s) source"),
        (lambda d: d.update(extra=1), "unknown key(s) extra"),
        (lambda d: d.update(schema=2), "schema 2 is not supported"),
        (lambda d: d.update(schema=True), "'schema' must be an integer"),
        (lambda d: d.update(task="two words"), "task name 'two words'"),
        (lambda d: d.update(task=""), "'task' has the wrong type or value"),
        (lambda d: d.update(description=None), "'description' has the wrong type"),
        (lambda d: d.update(verified_on=5), "'verified_on' has the wrong type"),
        (lambda d: d.update(steps=[]), "'steps' must be a non-empty list"),
        (lambda d: d.update(steps=["x"]), "steps[0] must be a JSON object"),
        (lambda d: d["steps"][0].pop("code"), "steps[0]: missing key(s) code"),
        (lambda d: d["steps"][0].update(method="  "), "steps[0]: 'method' has the wrong type"),
        (lambda d: d["steps"][0].update(code=7), "steps[0]: 'code' has the wrong type"),
        (lambda d: d["steps"][0].update(speedup=True), "steps[0]: 'speedup' has the wrong"),
        (lambda d: d["steps"][0].update(speedup=-1.0), "steps[0]: 'speedup' has the wrong"),
        (lambda d: d["steps"][0].update(speedup="2x"), "steps[0]: 'speedup' has the wrong"),
    ],
)
def test_each_malformed_field_is_named(tmp_path: Path, change: Any, problem: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_broken(change)), encoding="utf-8")
    with pytest.raises(TrajectoryError) as caught:
        load_trajectory(path)
    assert caught.value.path == path
    assert problem in caught.value.problem


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "the file must be a JSON object"),
        ('{"schema": 1, "schema": 1}', "key 'schema' appears twice"),
        ('{"schema": NaN}', "NaN is not a number JSON allows"),
    ],
)
def test_files_that_are_not_trajectory_json_are_rejected(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TrajectoryError, match=r"t\.json") as caught:
        load_trajectory(path)
    assert problem in caught.value.problem


def test_non_utf8_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b'{"task": "\xff"}')
    with pytest.raises(TrajectoryError, match="cannot read the file"):
        load_trajectory(path)


def test_a_directory_loads_in_file_name_order(tmp_path: Path) -> None:
    write_trajectory(tmp_path, trajectory_document("b", ["unroll"]))
    write_trajectory(tmp_path, trajectory_document("a", ["unroll"]))
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    assert [t.task for _, t in load_trajectory_dir(tmp_path)] == ["a", "b"]


def test_duplicate_task_names_across_files_are_rejected(tmp_path: Path) -> None:
    write_trajectory(tmp_path, trajectory_document("a", ["unroll"]))
    (tmp_path / "z.json").write_text(
        json.dumps(trajectory_document("a", ["fast math"])), encoding="utf-8"
    )
    with pytest.raises(TrajectoryError, match="task 'a' is also defined in"):
        load_trajectory_dir(tmp_path)


def test_missing_or_empty_directories_are_reported(tmp_path: Path) -> None:
    with pytest.raises(GraphError, match="no trajectory directory"):
        load_trajectory_dir(tmp_path / "absent")
    with pytest.raises(GraphError, match=r"no trajectory files \(\*\.json\)"):
        load_trajectory_dir(tmp_path)
