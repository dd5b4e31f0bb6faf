"""Scaffolds with a hole: mechanical CUDA from the rewriter, one loop body from the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Role, Task
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.scaffold import HOLE, fill, launch_kernels, parallel_scaffold
from tests.core.rewrite import cases
from tests.core.rewrite.support import compile_cuda, requires_nvcc, run_on_cpu

ATOMIC = "atomicAdd(&h[x[i]], 1);"


def histogram_scaffold() -> str:
    return fill(parallel_scaffold(cases.HISTOGRAM.source, RewriteContext(cases.HISTOGRAM)), ATOMIC)


def test_a_loop_refused_for_shared_updates_gets_everything_but_its_body() -> None:
    task = cases.HISTOGRAM
    scaffold = parallel_scaffold(task.source, RewriteContext(task))
    assert scaffold.var == "i" and "h[x[i]]++" in scaffold.body
    assert HOLE in scaffold.code and "h[x[i]]++" not in scaffold.code
    for part in ("__global__", "cudaMalloc", "cudaMemcpy", "cudaGetLastError", "if (i < n)"):
        assert part in scaffold.code
    assert "void histogram(const int* x, int n, int* h, int bins)" in scaffold.code


def test_the_models_statements_go_into_the_hole_and_nowhere_else() -> None:
    code = histogram_scaffold()
    assert HOLE not in code and code.count(ATOMIC) == 1
    kernel = code[: code.index("void histogram(")]
    assert ATOMIC in kernel


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "no statements"),
        ("h[x[i]] += ;", "parse"),
        ("__global__ void k() {}", "only rewrite the body"),
        ("#include <cstdio>\natomicAdd(&h[x[i]], 1);", "only rewrite the body"),
        ("for (int i = 0; i < n; ++i) atomicAdd(&h[x[i]], 1);", "loops over `i`"),
        ("}\nvoid evil() {", "parse"),
    ],
    ids=["empty", "syntax", "kernel", "include", "own-loop", "escape"],
)
def test_answers_that_are_not_a_plain_body_are_refused(answer: str, reason: str) -> None:
    task = cases.HISTOGRAM
    scaffold = parallel_scaffold(task.source, RewriteContext(task))
    with pytest.raises(Refusal, match=reason):
        fill(scaffold, answer)


RUNNING_SUM = cases.make_task(
    "running",
    "void running(const float* x, float* out, int n) {\n"
    "  float s = 0;\n  for (int i = 0; i < n; ++i) { s += x[i]; out[i] = s; }\n}\n",
    "void running(const float* x, float* out, int n)",
    (cases._pointer("x"), cases._pointer("out", Role.OUT), cases._scalar("n")),
)


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        (cases.EARLY_BREAK, "break"),
        (cases.SUM, "reduction"),
        (RUNNING_SUM, "carries"),
        (cases.SAXPY, "without help"),
    ],
    ids=["break", "reduction", "carried-scalar", "independent"],
)
def test_loops_a_body_cannot_fix_get_no_scaffold(task: Task, reason: str) -> None:
    with pytest.raises(Refusal, match=reason):
        parallel_scaffold(task.source, RewriteContext(task))


@requires_nvcc
def test_a_filled_scaffold_compiles(tmp_path: Path) -> None:
    compile_cuda(histogram_scaffold(), tmp_path)


@pytest.mark.slow
def test_a_filled_scaffold_with_atomics_computes_the_histogram(tmp_path: Path) -> None:
    assert run_on_cpu(cases.HISTOGRAM, histogram_scaffold(), tmp_path) == "PASS"


SAXPY_KERNEL = """#include <cuda_runtime.h>
__device__ float scaled(float a, float v) { return a * v; }
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = scaled(a, x[i]) + y[i];
}
"""


def saxpy_launched(answer: str = SAXPY_KERNEL) -> str:
    return launch_kernels(cases.SAXPY.source, RewriteContext(cases.SAXPY), answer)


def test_a_kernel_without_its_host_function_is_launched_from_the_entry() -> None:
    code = saxpy_launched()
    assert "void saxpy(int n, float a, const float* x, float* y)" in code
    assert "__device__ float scaled" in code, "the answer's helpers stay"
    launch = next(line for line in code.splitlines() if "<<<" in line)
    assert launch.strip().startswith("saxpy_kernel<<<")
    assert launch.strip().endswith("(n, a, d_x, d_y);"), "pointers pass as device copies"
    assert "cudaMemcpy(y, d_y" in code


def test_an_entry_written_as_a_kernel_is_renamed_and_launched() -> None:
    code = saxpy_launched(SAXPY_KERNEL.replace("saxpy_kernel", "saxpy"))
    assert "__global__ void saxpy_kernel(" in code
    assert "void saxpy(int n, float a, const float* x, float* y)" in code
    assert "saxpy_kernel<<<" in code


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("__device__ float f(float v) { return v; }", "no kernel"),
        ("__global__ void k(int n, float* w) { w[0] = n; }", "no kernel"),
    ],
    ids=["no-kernel", "unknown-parameter"],
)
def test_kernels_the_wrapper_cannot_call_are_refused(answer: str, reason: str) -> None:
    with pytest.raises(Refusal, match=reason):
        saxpy_launched(answer)


OVERLOADED = (
    "__global__ void saxpy_kernel(int n, float a, const float* x, float* y, int blockSize) {\n"
    "  int i = blockIdx.x * blockSize + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n" + SAXPY_KERNEL
)
"""An H200 bench run died on such an answer (KeyError: 'blockSize'): of the kernel's two
overloads, the one taking a parameter the entry does not have came first."""


def test_of_overloaded_kernels_the_one_the_wrapper_can_call_is_launched() -> None:
    launch = next(line for line in saxpy_launched(OVERLOADED).splitlines() if "<<<" in line)
    assert launch.strip() == "saxpy_kernel<<<grid, block>>>(n, a, d_x, d_y);"


@requires_nvcc
def test_a_launched_overload_compiles(tmp_path: Path) -> None:
    compile_cuda(saxpy_launched(OVERLOADED), tmp_path)


@pytest.mark.slow
def test_a_launched_kernel_computes_the_entry(tmp_path: Path) -> None:
    assert run_on_cpu(cases.SAXPY, saxpy_launched(), tmp_path) == "PASS"


@requires_nvcc
def test_a_launched_kernel_compiles(tmp_path: Path) -> None:
    compile_cuda(saxpy_launched(), tmp_path)


def test_only_what_the_launched_kernel_calls_is_kept_of_the_answer() -> None:
    answer = (
        "__global__ void saxpy(int n, float a, const float* x, float* y);\n"
        + SAXPY_KERNEL
        + "void check(cudaError_t e) { if (e) std::cerr << cudaGetErrorString(e); }\n"
        "__global__ void saxpy(int n, float a, const float* x, float* y) { y[0] = a; }\n"
    )
    code = saxpy_launched(answer)
    for gone in ("check(", "y[0] = a", "__global__ void saxpy("):
        assert gone not in code
    assert "__device__ float scaled" in code and "saxpy_kernel<<<" in code
