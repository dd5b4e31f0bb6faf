"""The linear-recurrence rewriter: ``out[i] = a * out[i - 1] + b(i)`` becomes a terms
kernel, CUB's scan over the composed affine maps and a kernel reading the results; other
recurrences are refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.recurrence import LinearRecurrence
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
)


def recurrence(statement: str, *, ctype: str = "float", start: str = "1") -> Task:
    return extract_task(
        "// regrapht: n = 3000; a = 0.9; x[n] in; y[n] out\n"
        f"void iir1(int n, {ctype} a, const {ctype}* x, {ctype}* y) {{\n"
        "  if (n <= 0) return;\n"
        "  y[0] = x[0];\n"
        f"  for (int i = {start}; i < n; ++i) {{\n"
        f"    {statement}\n"
        "  }\n"
        "}\n",
        "cpp",
        function="iir1",
    )


IIR = recurrence("y[i] = a * y[i - 1] + (1.0f - a) * x[i];")
RUNNING = recurrence("y[i] = x[i] + y[i - 1];", ctype="double")
"""The factor is 1: a running sum written as a recurrence, in double."""


def scanned(task: Task) -> str:
    (candidate,) = LinearRecurrence().apply(task.source, RewriteContext(task))
    return candidate.code


def refusal(task: Task) -> str:
    return LinearRecurrence().applies(task.source, RewriteContext(task)).reason


def test_an_iir_filter_becomes_a_scan_of_affine_maps() -> None:
    code, message = first_step(IIR)
    assert code is not None, message
    assert "y[i] = (1.0f - a) * x[i];" in code  # the terms kernel
    assert "return affine_step{then.a * first.a, then.a * first.b + then.b};" in code
    scan = "cub::DeviceScan::InclusiveScan(scan_temp, scan_bytes, steps, steps, compose_steps()"
    assert code.count(scan) == 2
    assert "const float factor = static_cast<float>(a);" in code
    assert "const float seed = y[(1) - 1];" in code


def test_the_previous_element_may_come_first_and_alone() -> None:
    assert "static_cast<double>(1)" in scanned(RUNNING)


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        (recurrence("y[i] = x[i] * y[i - 1] + 1.0f;"), "not a plain expression of scalars"),
        (recurrence("y[i] = (a * i) * y[i - 1] + x[i];"), "changes from one element"),
        (recurrence("y[i] = a * y[i - 1] + y[i - 1] * x[i];"), "reads `y` beyond"),
        (recurrence("y[i] = a * y[i - 2] + x[i];", start="2"), "not a first-order"),
        (recurrence("y[i] = a * y[i - 1] - x[i];"), "not a first-order"),
        (recurrence("y[i] = a * y[i - 1] + x[i];", ctype="int"), "only float and double"),
    ],
    ids=["array-factor", "index-factor", "two-carries", "second-order", "difference", "integers"],
)
def test_other_recurrences_are_refused_with_the_reason(task: Task, reason: str) -> None:
    assert reason in refusal(task)


@requires_nvcc
def test_the_candidates_compile_with_nvcc(tmp_path: Path) -> None:
    compile_cuda(scanned(IIR), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", [IIR, RUNNING], ids=["iir", "running"])
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    assert run_on_cpu(task, scanned(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", [IIR, RUNNING], ids=["iir", "running"])
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    assert run_on_gpu(task, scanned(task), tmp_path) == "PASS"
