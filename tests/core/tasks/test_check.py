"""Whole-task consistency: every problem names the place and the field that holds it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from regrapht_core.contracts.task import Distribution, Role, Task, TaskMode
from regrapht_core.errors import TaskError
from regrapht_core.tasks.check import check_binding, check_task

from .conftest import extract


def _with_arg(task: Task, index: int, **changes: object) -> Task:
    args = list(task.args)
    args[index] = replace(args[index], **changes)  # type: ignore[arg-type]
    return replace(task, args=tuple(args))


@pytest.mark.parametrize(
    ("index", "changes", "message"),
    [
        (2, {"length": None}, r"bad: args\[2\] \(x\)\.length: a pointer needs a length"),
        (2, {"length": "__import__(1)"}, r"args\[2\] \(x\)\.length: '__import__"),
        (2, {"length": "k"}, r"uses 'k', which has no value"),
        (1, {"ctype": "Particle"}, r"args\[1\] \(a\)\.ctype: element type"),
        (1, {"ctype": "complex<float>"}, r"\(a\)\.value: a complex<float> scalar is drawn"),
        (1, {"value": None}, r"args\[1\] \(a\)\.value: a scalar needs a value expression"),
        (2, {"dist": Distribution(kind="zipf")}, r"args\[2\] \(x\)\.dist\.kind: 'zipf'"),
        (2, {"dist": Distribution(kind="int", lo=2, hi=1)}, r"\.dist: lo 2 is above hi 1"),
        (2, {"dist": Distribution(kind="normal", std=-1)}, r"\.dist\.std: -1 is negative"),
        (2, {"dist": Distribution(kind="image")}, r"\.dist\.width: an image needs its width"),
        (2, {"dist": Distribution(kind="permutation")}, r"\.ctype: a permutation array must"),
        (3, {"name": "x"}, r"args\[2\]\.name: 'x' appears twice"),
        (
            2,
            {"dist": Distribution(kind="uniform", params=(("edge", "no"),))},
            r"\(x\)\.dist: uniform has no parameter 'edge' \(it takes edges\)",
        ),
    ],
)
def test_argument_problems_name_the_field(
    saxpy: Task, index: int, changes: dict[str, object], message: str
) -> None:
    with pytest.raises(TaskError, match=message):
        check_task(_with_arg(saxpy, index, **changes), "bad")


def test_task_level_problems_name_the_field(saxpy: Task) -> None:
    cases = [
        (replace(saxpy, entry="ns::saxpy"), r"bad: entry: 'ns::saxpy' is not a function name"),
        (replace(saxpy, source="  "), r"source: the reference source is empty"),
        (replace(saxpy, timing_size={"n": 5}), r"must include the timing size"),
        (replace(saxpy, correctness_sizes=()), r"at least one size is needed"),
        (replace(saxpy, mode=TaskMode.KERNEL_TO_KERNEL), r"launch: a kernel2kernel task needs"),
    ]
    for task, message in cases:
        with pytest.raises(TaskError, match=message):
            check_task(task, "bad")


def test_structured_companion_must_be_declared() -> None:
    task = extract("spmv_csr.c", "spmv_csr")
    index = next(i for i, a in enumerate(task.args) if a.name == "col_idx")
    with pytest.raises(TaskError, match=r"'col_idx' must be an input with dist"):
        check_task(_with_arg(task, index, dist=Distribution()), "spmv")


def test_part_must_name_a_structured_argument() -> None:
    task = extract("spmv_csr.c", "spmv_csr")
    index = next(i for i, a in enumerate(task.args) if a.name == "vals")
    part = Distribution(kind="part", params=(("of", "x"),))
    with pytest.raises(TaskError, match=r"vals\)\.dist\.of: 'x' is not an argument with a"):
        check_task(_with_arg(task, index, dist=part, ctype="int"), "spmv")


def test_a_task_that_writes_nothing_is_refused(saxpy: Task) -> None:
    """With no output to compare, a candidate that did nothing would pass."""
    inputs = tuple(replace(arg, role=Role.IN) for arg in saxpy.args)
    with pytest.raises(TaskError, match=r"bad: 'saxpy' writes no output the checks can compare"):
        check_task(replace(saxpy, args=inputs), "bad")


def test_a_size_check_names_a_structured_argument_with_no_companion() -> None:
    """The sizes are checked before the arguments while a task is extracted: a ``csr`` whose
    companion is unnamed is an error there too, not a ``KeyError``."""
    task = extract("spmv_csr.c", "spmv_csr")
    index = next(i for i, a in enumerate(task.args) if a.name == "row_ptr")
    dist = Distribution(kind="csr", params=(("cols", "n"),))
    with pytest.raises(TaskError, match=r"size: row_ptr\.dist\.col: None is not an argument"):
        check_binding(_with_arg(task, index, dist=dist), task.timing_size, "size")


def test_extracted_tasks_pass() -> None:
    for file, function in [("saxpy.c", "saxpy"), ("spmv_csr.c", "spmv_csr")]:
        check_task(extract(file, function), file)
