"""The atomic-updates rewriter: loops that add into elements several iterations may share
(histograms, scatter-adds) become one thread per iteration with ``atomicAdd``; whatever
else would make the result depend on the threads' order is refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.atomics import AtomicUpdates
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite import cases
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
)

SCATTER = extract_task(
    "// regrapht: n = 600; idx[n] in ~ int(0, 15); v[n] in; out[16] inout; "
    "count[16] inout ~ int(0, 100); seen[16] inout ~ int(0, 100); y[n] out\n"
    """void scatter(int n, const int* idx, const float* v, float* out, long long* count,
             unsigned int* seen, float* y) {
  for (int i = 0; i < n; ++i) {
    out[idx[i]] += v[i];
    out[(idx[i] + 1) % 16] -= 0.5f * v[i];
    ++count[idx[i]];
    count[(idx[i] + 3) % 16]--;
    seen[idx[i]] += 2u;
    y[i] = 2.0f * v[i];
  }
}
""",
    "cpp",
    function="scatter",
)


def atomic_candidate(task: Task) -> str:
    (candidate,) = AtomicUpdates().apply(task.source, RewriteContext(task))
    return candidate.code


def refusal(task: Task) -> str:
    return AtomicUpdates().applies(task.source, RewriteContext(task)).reason


def variant(source: str, function: str = "scatter") -> Task:
    return extract_task(source, "cpp", function=function)


def test_a_histogram_is_parallelized_with_one_atomic_add_per_update() -> None:
    code, message = first_step(cases.HISTOGRAM)
    assert code is not None, message
    kernel = code[: code.index("void histogram(")]
    assert "atomicAdd(&h[x[i]], static_cast<int>(1));" in kernel
    assert "h[x[i]]++" not in code


def test_every_form_of_addition_becomes_an_atomic_and_owned_writes_stay_plain() -> None:
    code = atomic_candidate(SCATTER)
    kernel = code[: code.index("void scatter(")]
    assert "atomicAdd(&out[idx[i]], static_cast<float>(v[i]));" in kernel
    minus = "static_cast<float>(0) - static_cast<float>(0.5f * v[i]));"
    assert f"atomicAdd(&out[(idx[i] + 1) % 16], {minus}" in kernel
    ull = "atomicAdd(reinterpret_cast<unsigned long long*>(&count[idx[i]]), "
    assert ull + "static_cast<unsigned long long>(1));" in kernel
    assert "static_cast<unsigned long long>(-1));" in kernel
    assert "atomicAdd(&seen[idx[i]], static_cast<unsigned int>(2u));" in kernel
    assert "y[i] = 2.0f * v[i];" in kernel


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("out[idx[i]] = v[i];", "writes `out` other than by adding to an element"),
        ("out[idx[i]] += out[0];", "writes `out` other than by adding to an element"),
        ("out[idx[i]] += v[i]; y[0] = v[i];", "y[0]"),
    ],
)
def test_updates_whose_result_depends_on_the_order_are_refused(body: str, reason: str) -> None:
    source = (
        "// regrapht: n = 600; m = 16; idx[n] in ~ int(0, 15); v[n] in; out[m] inout; "
        "y[n + 1] out\n"
        "void scatter(int n, int m, const int* idx, const float* v, float* out, float* y) {\n"
        f"  for (int i = 0; i < n; ++i) {{ {body} }}\n}}\n"
    )
    assert reason in refusal(variant(source))


def test_narrow_elements_are_refused_with_the_types_atomic_add_takes() -> None:
    source = (
        "// regrapht: n = 600; x[n] in ~ int(0, 15); h[16] inout ~ int(0, 9)\n"
        "void bytes(int n, const int* x, unsigned char* h) {\n"
        "  for (int i = 0; i < n; ++i) h[x[i]]++;\n}\n"
    )
    assert "atomicAdd needs 32- or 64-bit integers" in refusal(variant(source, "bytes"))


def test_loops_that_own_their_elements_need_no_atomics() -> None:
    assert "no update needs an atomic" in refusal(cases.SAXPY)


@requires_nvcc
def test_the_candidates_compile_with_nvcc(tmp_path: Path) -> None:
    compile_cuda(atomic_candidate(SCATTER), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", [cases.HISTOGRAM, SCATTER], ids=["histogram", "scatter"])
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    assert run_on_cpu(task, atomic_candidate(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", [cases.HISTOGRAM, SCATTER], ids=["histogram", "scatter"])
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    assert run_on_gpu(task, atomic_candidate(task), tmp_path) == "PASS"
