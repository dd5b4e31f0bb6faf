"""The constant-memory rewriter: a small read-only argument read at a warp-uniform index
moves to ``__constant__`` memory, filled with ``cudaMemcpyToSymbol``; arrays read at a
thread-dependent index, of a length known only at run time, too large or used for more
than one upload are refused with the reason."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task, TaskMode
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import parse
from regrapht_core.rewrite.constant_memory import ConstantMemory
from regrapht_core.rewrite.grid_stride import GridStrideLoop
from regrapht_core.rewrite.kernels import kernels
from regrapht_core.rewrite.protocol import RewriteContext, Rewriter
from regrapht_core.rewrite.restrict import ReadOnlyRestrict
from tests.core.rewrite.support import (
    compile_cuda,
    first_code,
    only_candidate,
    refusal_of,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
    unvalidated_task,
)

FIR = unvalidated_task(
    "#define TAPS 33\n"
    "// regrapht: n = 1000; w[33] in ~ uniform(0, 0.06); x[n+32] in; y[n] out\n"
    "void fir33(int n, const float* w, const float* x, float* y) {\n"
    "    for (int i = 0; i < n; ++i) {\n"
    "        float acc = 0.0f;\n"
    "        for (int k = 0; k < TAPS; ++k) {\n"
    "            acc += w[k] * x[i + k];\n"
    "        }\n"
    "        y[i] = acc;\n"
    "    }\n"
    "}\n",
    "fir33",
)
HORNER = unvalidated_task(
    "#define DEGREE 8\n"
    "// regrapht: n = 1000; c[9] in ~ uniform(-0.5, 0.5); x[n] in; y[n] out\n"
    "void horner(int n, const float* c, const float* x, float* y) {\n"
    "    for (int i = 0; i < n; ++i) {\n"
    "        float v = x[i];\n"
    "        float acc = c[DEGREE];\n"
    "        for (int k = DEGREE - 1; k >= 0; --k) {\n"
    "            acc = acc * v + c[k];\n"
    "        }\n"
    "        y[i] = acc;\n"
    "    }\n"
    "}\n",
    "horner",
)
HAND_WRITTEN_FIR = r"""
#include <cuda_runtime.h>
#define TAPS 33
__global__ void fir_kernel(const float* taps, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < TAPS; k++) acc += taps[k] * x[i + k];
  y[i] = acc;
}
void fir33(int n, const float* w, const float* x, float* y) {
  float *dw = nullptr, *dx = nullptr, *dy = nullptr;
  cudaMalloc(&dw, TAPS * sizeof(float));
  cudaMalloc(&dx, (n + 32) * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dw, w, TAPS * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, (n + 32) * sizeof(float), cudaMemcpyHostToDevice);
  fir_kernel<<<(n + 127) / 128, 128>>>(dw, dx, dy, n);
  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dw);
  cudaFree(dx);
  cudaFree(dy);
}
"""


def moved(task: Task, code: str | None = None) -> str:
    return only_candidate(ConstantMemory(), task, code)


def refusal(task: Task, code: str | None = None) -> str:
    return refusal_of(ConstantMemory(), task, code)


def fir_like(body: str, annotation: str = "w[33] in; x[n+32] in; y[n] out") -> Task:
    return unvalidated_task(
        "#define TAPS 33\n"
        f"// regrapht: n = 1000; m = 33; {annotation}\n"
        "void fir(int n, int m, const float* w, const float* x, float* y) {\n"
        "    for (int i = 0; i < n; ++i) {\n"
        f"        {body}\n"
        "    }\n"
        "}\n",
        "fir",
    )


def test_the_taps_move_to_constant_memory() -> None:
    code = moved(FIR)
    assert "__constant__ float c_w[33];\n__global__ void fir33_kernel(" in code
    (kernel,) = kernels(parse(code).root_node)
    assert kernel.param_names() == ["n", "x", "y"]
    assert "acc += c_w[k] * x[i + k];" in code
    assert "fir33_kernel<<<grid, block>>>(n, d_x, d_y);" in code
    assert "if (err == cudaSuccess) err = cudaMemcpyToSymbol(c_w, w, w_bytes);" in code
    assert "d_w" not in code  # its allocation, free and declaration are gone with it


def test_a_descending_loop_and_a_macro_index_are_uniform() -> None:
    code = moved(HORNER)
    assert "__constant__ float c_c[9];" in code
    assert "float acc = c_c[DEGREE];" in code and "acc = acc * v + c_c[k];" in code


def test_a_hand_written_buffer_keeps_an_allocation_it_shares_a_declaration_with() -> None:
    code = moved(FIR, HAND_WRITTEN_FIR)
    assert "__global__ void fir_kernel(const float* x, float* y, int n)" in code
    assert "acc += c_taps[k] * x[i + k];" in code
    assert "cudaMemcpyToSymbol(c_taps, w, TAPS * sizeof(float));" in code
    assert "fir_kernel<<<(n + 127) / 128, 128>>>(dx, dy, n);" in code
    assert "cudaMalloc(&dw, TAPS * sizeof(float));" in code and "cudaFree(dw);" in code


def test_a_symbol_name_in_use_is_not_taken() -> None:
    code = moved(FIR, first_code(FIR).replace("#define TAPS 33", "#define TAPS 33\n#define c_w 0"))
    assert "__constant__ float c_w2[33];" in code and "c_w2[k]" in code


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        (
            fir_like("y[i] = x[i] * w[i % 33];"),
            "reads `w[i % 33]`, whose index depends on `i`",
        ),
        (
            fir_like("for (int k = i % 4; k < TAPS; ++k) y[i] += w[k] * x[i];"),
            "whose index depends on `k`",
        ),
        (
            fir_like("for (int k = 0; k < TAPS; ++k) { int t = k; y[i] += w[t] * x[i]; }"),
            "whose index depends on `t`",
        ),
        (
            fir_like("y[i] = w[m - 1] * x[i];", "w[m] in; x[n+32] in; y[n] out"),
            "the length of `w` (`m`) is not known at compile time",
        ),
        (
            fir_like("y[i] = w[5] * x[i];", "w[8192] in; x[n+32] in; y[n] out"),
            "`w` of `fir_kernel` takes 32768 bytes",
        ),
        (
            fir_like("y[i] = w[5] * x[i];", "w[33] inout; x[n+32] in; y[n] out"),
            "`w` is not a read-only input of the task",
        ),
    ],
    ids=["thread-index", "loop-from-thread", "local", "run-time-length", "too-large", "inout"],
)
def test_arrays_constant_memory_cannot_serve_are_refused(task: Task, reason: str) -> None:
    assert reason in refusal(task)


def test_the_limit_is_a_parameter() -> None:
    code, context = first_code(FIR), RewriteContext(FIR)
    assert ConstantMemory().apply(code, context, {"max_bytes": 64}) == []
    with pytest.raises(Refusal, match="takes 132 bytes; constant memory takes arrays of up to 64"):
        ConstantMemory().build(code, context, {"max_bytes": 64})


def test_a_buffer_used_beyond_one_upload_is_refused() -> None:
    again = "  cudaMemcpy(dw, y, sizeof(float), cudaMemcpyHostToDevice);\n"
    shared = HAND_WRITTEN_FIR.replace("  cudaFree(dw);", again + "  cudaFree(dw);")
    assert "`dw` passed to `fir_kernel` is uploaded 2 times" in refusal(FIR, shared)
    back = "  cudaMemcpy(y, dw, sizeof(float), cudaMemcpyDeviceToHost);\n"
    read_back = HAND_WRITTEN_FIR.replace("  cudaFree(dw);", back + "  cudaFree(dw);")
    assert "is also used in `cudaMemcpy(y, dw" in refusal(FIR, read_back)


def test_kernel_to_kernel_tasks_are_refused() -> None:
    task = dataclasses.replace(FIR, mode=TaskMode.KERNEL_TO_KERNEL)
    assert "no host code" in refusal(task, HAND_WRITTEN_FIR)


def test_sequential_code_is_refused() -> None:
    assert refusal(FIR, FIR.source) == "the code has no kernel"


@requires_nvcc
@pytest.mark.parametrize("task", [FIR, HORNER], ids=["fir", "horner"])
def test_the_candidates_compile_with_nvcc(task: Task, tmp_path: Path) -> None:
    compile_cuda(moved(task), tmp_path)


def _candidates() -> list[tuple[str, Task, str]]:
    restricted = ReadOnlyRestrict().apply(first_code(FIR), RewriteContext(FIR))[0].code
    chained: Rewriter = GridStrideLoop()
    strided = chained.apply(moved(FIR, restricted), RewriteContext(FIR))[0].code
    return [
        ("fir", FIR, moved(FIR)),
        ("horner", HORNER, moved(HORNER)),
        ("hand-written", FIR, moved(FIR, HAND_WRITTEN_FIR)),
        ("restrict-constant-grid-stride", FIR, strided),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("number", range(4), ids=[c[0] for c in _candidates()])
def test_the_candidates_compute_what_the_reference_computes(number: int, tmp_path: Path) -> None:
    name, task, code = _candidates()[number]
    assert run_on_cpu(task, code, tmp_path) == "PASS", name


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("number", range(4), ids=[c[0] for c in _candidates()])
def test_the_candidates_agree_with_the_reference_on_the_gpu(number: int, tmp_path: Path) -> None:
    name, task, code = _candidates()[number]
    assert run_on_gpu(task, code, tmp_path) == "PASS", name
