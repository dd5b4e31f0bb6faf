"""The launch plan: the task's grid/block/shared expressions evaluated per case."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.contracts.task import LaunchSpec
from regrapht_core.errors import TaskError
from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.verify.cases import build_case
from regrapht_core.verify.launch import PLAN_FILE, launch_dims, write_plan
from tests.core.verify.tasks_fixture import VECTOR_INT
from tests.data.candidates.tasks import TRANSPOSE_KERNEL


def test_dimensions_are_evaluated_and_padded_to_three() -> None:
    launch = LaunchSpec("k", ("(n + 255)/256",), ("256",), "n*4")
    assert launch_dims(launch, {"n": 257}) == {
        "grid": [2, 1, 1],
        "block": [256, 1, 1],
        "shared": 1028,
    }


@pytest.mark.parametrize(
    ("launch", "problem"),
    [
        (LaunchSpec("k", ("n/2",), ("256",)), "empty dimension"),
        (LaunchSpec("k", ("1",), ("64", "32")), "more than 1024 threads"),
        (LaunchSpec("k", ("1",), ("n - 9",)), "negative"),
    ],
)
def test_impossible_launches_are_task_errors(launch: LaunchSpec, problem: str) -> None:
    with pytest.raises(TaskError, match=problem):
        launch_dims(launch, {"n": 1})


def test_the_plan_lists_arguments_and_one_launch_per_case(tmp_path: Path) -> None:
    sizes = TRANSPOSE_KERNEL.correctness_sizes[:2]
    cases = [build_case(TRANSPOSE_KERNEL, size, 1, generate_inputs) for size in sizes]
    write_plan(tmp_path, TRANSPOSE_KERNEL, cases)
    plan = json.loads((tmp_path / PLAN_FILE).read_text())
    assert [a["name"] for a in plan["args"]] == ["rows", "cols", "in", "out"]
    assert [a["pointer"] for a in plan["args"]] == [False, False, True, True]
    assert plan["args"][3] == {"name": "out", "pointer": True, "role": "out", "dtype": "<f4"}
    assert [c["grid"] for c in plan["cases"]] == [[1, 1, 1], [1, 1, 1]]
    assert plan["cases"][0]["block"] == [32, 8, 1]


def test_vectors_and_a_missing_launch_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="launch contract"):
        write_plan(tmp_path, VECTOR_INT, [])
    with_launch = replace(VECTOR_INT, launch=LaunchSpec("k", ("1",), ("1",)))
    with pytest.raises(TaskError, match="std::vector"):
        write_plan(tmp_path, with_launch, [])
