"""The linear-fold rewriter (``rewrite/recurrence.py``, ``LinearFold``): a scalar carried
through one affine map per element (``s = decay * s + x[i]``) becomes a weighted sum of the
terms, the weights powers of the factor, and the reduction rewriter maps it."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.recurrence import LinearFold
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
)


def fold(statement: str, *, a: str = "0.99", ctype: str = "float", start: str = "0") -> Task:
    return extract_task(
        f"// regrapht: n = 3000; a = {a}; atol = 1e-3; rtol = 1e-3; x[n] in ~ uniform(-1, 1)\n"
        f"{ctype} fold(int n, {ctype} a, const {ctype}* x) {{\n"
        f"  {ctype} s = 0.5;\n"
        f"  for (int i = {start}; i < n; ++i) {{\n"
        f"    {statement}\n"
        "  }\n"
        "  return s;\n"
        "}\n",
        "cpp",
        function="fold",
    )


DECAYED = fold("s = a * s + x[i];")
HORNER = fold("s = x[i] + s * a;", a="0.5", ctype="double", start="7")
"""Horner's rule in double from index 7: the product on the other side, the term first."""
GROWING = fold("s = a * s + x[i];", a="1.001")
"""A factor above one: the weights grow towards the first elements."""


def folded(task: Task) -> str:
    (candidate,) = LinearFold().apply(task.source, RewriteContext(task))
    return candidate.code


def test_a_decayed_sum_becomes_a_sum_weighted_by_powers_of_the_factor() -> None:
    code = folded(DECAYED)
    assert "terms += powf(factor, static_cast<float>(count - 1 - (i - 0))) * (x[i]);" in code
    assert "s = powf(factor, static_cast<float>(count)) * s + terms;" in code
    assert "atomicAdd(terms_total, terms);" in code
    assert "pow(factor, static_cast<double>(count - 1 - (i - (7))))" in folded(HORNER)


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        ("s = x[i] * s + 1.0f;", "not a plain expression of scalars"),
        ("s = a * s + x[i] * s;", "not a linear fold"),
        ("s = a * s + x[i]; s += 1.0f;", "not a linear fold"),
        ("s = a * s;", "not a linear fold"),
    ],
    ids=["factor changes", "term reads s", "two statements", "no term"],
)
def test_other_loops_are_refused_with_the_reason(statement: str, reason: str) -> None:
    task = fold(statement)
    assert reason in LinearFold().applies(task.source, RewriteContext(task)).reason


def test_the_corpus_folds_get_a_first_step() -> None:
    code, message = first_step(DECAYED)
    assert code is not None and "powf(factor" in code, message


@requires_nvcc
def test_the_candidates_compile_with_nvcc(tmp_path: Path) -> None:
    compile_cuda(folded(DECAYED), tmp_path)


TASKS = [DECAYED, HORNER, GROWING]
IDS = ["decayed", "horner", "growing"]


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    assert run_on_cpu(task, folded(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    assert run_on_gpu(task, folded(task), tmp_path) == "PASS"
