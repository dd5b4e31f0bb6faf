"""The two largest (or smallest) values in one pass: pairs kept per thread, combined by
warps, blocks and a last one-block kernel, folded into the loop's variables on the host."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.top_two import TopTwo
from tests.core.rewrite.support import (
    all_pass,
    first_step,
    refusal_of,
    requires_nvcc,
    run_on_gpu,
    small_corpus_task,
    unvalidated_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus" / "sorting_selection"
VECTOR = small_corpus_task(
    CORPUS / "sorting_selection_top2_f32_vec.cpp", "top2_f32", "1<<24", "5000"
)

_STEP = {
    "largest": "if (x[i] > first) { second = first; first = x[i]; } "
    "else if (x[i] > second) { second = x[i]; }",
    "smallest, flipped": "if (first >= x[i] * 2) { second = first; first = x[i] * 2; } "
    "else if (second > x[i] * 2) second = x[i] * 2;",
}


def _task(
    step: str, kind: str = "int", start: str = "-1000", values: str = "int(-9, 9)", second: str = ""
) -> Task:
    """5000 values from a small range: the top two are nearly always equal, so ties count."""
    return unvalidated_task(
        f"// regrapht: n = 5000; x[n] in ~ {values}; top[2] out\n"
        f"void f(int n, const {kind}* x, {kind}* top) {{\n"
        f"  {kind} first = {start};\n"
        f"  {kind} second = {second or start};\n"
        f"  for (int i = 0; i < n; ++i) {{ {step} }}\n"
        "  top[0] = first;\n  top[1] = second;\n}\n",
        "f",
    )


TASKS = {
    "largest int": _task(_STEP["largest"]),
    "smallest double": _task(_STEP["smallest, flipped"], "double", "1e300", "uniform(-1, 1)"),
    "second starts above first": _task(_STEP["largest"], start="0", second="50"),
}
"""The harness calls pointer entries only: the corpus's vector top two runs through the
verifier (``regrapht bench``)."""


def _code(task: Task) -> str:
    (candidate,) = TopTwo().apply(task.source, RewriteContext(task))
    return candidate.code


def test_a_top_two_keeps_pairs_and_folds_them_with_the_loops_own_step() -> None:
    code = _code(TASKS["largest int"])
    assert "if (element > bound) f_push(best, runner_up, kept, element);" in code
    assert "f_top2_blocks<<<1, 1024>>>(d_top_a, d_top_b, d_top_n, grid);" in code
    assert "if (top_a > first) { second = first; first = top_a; }" in code
    assert "if ((!(second > first))) {" in code, "only a true top two is combined"


def test_the_smallest_values_compare_the_other_way() -> None:
    code = _code(TASKS["smallest double"])
    assert "const double element = static_cast<double>(x[i] * 2);" in code
    assert "} else if (v < a) {" in code
    assert "if (top_a <= first) { second = first; first = top_a; }" in code


def test_the_corpus_top_two_gets_a_first_step() -> None:
    code, message = first_step(VECTOR)
    assert code is not None, message
    assert "top2_f32_impl_block_pairs" in code


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        (
            "if (x[i] > first) { first = x[i]; second = first; } "
            "else if (x[i] > second) second = x[i];",
            "not a top two",
        ),
        (
            "if (x[i] > first) { second = first; first = x[i]; } "
            "else if (x[i + 1] > second) second = x[i + 1];",
            "not a top two",
        ),
        (
            "if (x[i] > first) { second = first; first = x[i]; } "
            "else if (x[i] < second) second = x[i];",
            "opposite ends",
        ),
    ],
    ids=["swapped-assignments", "other-value", "opposite-ends"],
)
def test_other_shapes_are_refused(step: str, reason: str) -> None:
    task = _task(step)
    assert reason in refusal_of(TopTwo(), task, task.source)


def test_bytes_are_refused_as_warp_shuffles_do_not_move_them() -> None:
    task = _task(_STEP["largest"], "unsigned char", "0", "int(0, 255)")
    assert "warp shuffles move" in refusal_of(TopTwo(), task, task.source)


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("name", TASKS)
def test_each_top_two_computes_what_the_loop_computes(name: str, tmp_path: Path) -> None:
    all_pass(TASKS[name], [_code(TASKS[name])], tmp_path)


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("name", TASKS)
def test_each_top_two_agrees_with_the_loop_on_the_gpu(name: str, tmp_path: Path) -> None:
    all_pass(TASKS[name], [_code(TASKS[name])], tmp_path, run=run_on_gpu)
