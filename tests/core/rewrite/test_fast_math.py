"""The fast-math rewriter: single-precision math in device code becomes the intrinsics and
divisions of two floats ``__fdividef``; host code, ``double`` math, divisions of unknown
type and ``__host__ __device__`` functions stay as written, and tasks whose outputs admit
no difference are refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task, Tolerance
from regrapht_core.rewrite.fast_math import FastMath
from tests.core.rewrite.support import (
    compile_cuda,
    only_candidate,
    refusal_of,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
    unvalidated_task,
)

SIGMOID = unvalidated_task(
    "#include <cmath>\n"
    "// regrapht: n = 1000; x[n] in ~ uniform(-4, 4); y[n] out\n"
    "void sigmoid(int n, const float* x, float* y) {\n"
    "    for (int i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + expf(-x[i]));\n"
    "}\n",
    "sigmoid",
)
DAMPED = unvalidated_task(
    "#include <cmath>\n"
    "// regrapht: n = 1000; a = 0.5; x[n] in ~ uniform(-2, 2); y[n] out\n"
    "void damped(int n, float a, const float* x, float* y) {\n"
    "    float k = expf(a);\n"
    "    for (int i = 0; i < n; ++i) {\n"
    "        float v = x[i];\n"
    "        y[i] = k * sinf(v) / (2.0f + cosf(v)) + powf(fabsf(v), a)\n"
    "             + logf(1.0f + v * v) / 2 + v / 3.0 + (float)i / (float)n / k;\n"
    "    }\n"
    "}\n",
    "damped",
)
HAND_WRITTEN = r"""
#include <cuda_runtime.h>
#include <cmath>
__device__ float ratio(float a, float b, float c) { return a / b / c; }
__host__ __device__ float halve(float v) { return expf(v) / 2.0f; }
__global__ void sigmoid_kernel(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = ratio(1.0f, 1.0f + expf(-x[i]), 1.0f);
}
void sigmoid(int n, const float* x, float* y) {
  float* dx = nullptr;
  float* dy = nullptr;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  sigmoid_kernel<<<(n + 255) / 256, 256>>>(n, dx, dy);
  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  if (n > 0) y[0] = y[0] / 1.0f + 0.0f * expf(x[0]);
}
"""


def fast(task: Task, code: str | None = None) -> str:
    return only_candidate(FastMath(), task, code)


def refusal(task: Task, code: str | None = None) -> str:
    return refusal_of(FastMath(), task, code)


def test_math_calls_and_float_divisions_become_intrinsics() -> None:
    code = fast(SIGMOID)
    assert "y[i] = __fdividef(1.0f, (1.0f + __expf(-x[i])));" in code


def test_host_code_double_math_and_divisions_of_unknown_type_stay() -> None:
    code = fast(DAMPED)
    assert "float k = expf(a);" in code  # the prelude runs on the host
    assert "__fdividef(k * __sinf(v), (2.0f + __cosf(v)))" in code
    assert "__powf(fabsf(v), a)" in code
    assert "__logf(1.0f + v * v) / 2" in code  # an int divisor: left alone
    assert "v / 3.0" in code  # double
    assert "__fdividef(__fdividef((float)i, (float)n), k)" in code


def test_device_functions_are_rewritten_and_host_device_ones_are_not() -> None:
    code = fast(SIGMOID, HAND_WRITTEN)
    assert "{ return __fdividef(__fdividef(a, b), c); }" in code
    assert "y[i] = ratio(1.0f, 1.0f + __expf(-x[i]), 1.0f);" in code
    assert "{ return expf(v) / 2.0f; }" in code
    assert "y[0] = y[0] / 1.0f + 0.0f * expf(x[0]);" in code


def test_double_math_is_refused() -> None:
    task = unvalidated_task(
        "#include <cmath>\n"
        "// regrapht: n = 1000; x[n] in; y[n] out\n"
        "void f(int n, const double* x, double* y) {\n"
        "    for (int i = 0; i < n; ++i) y[i] = exp(x[i]) / (1.0 + x[i]) + (float)x[i] / 2.0;\n"
        "}\n",
        "f",
    )
    assert "no device code calls expf" in refusal(task)


def test_math_only_in_host_device_helpers_is_refused_with_the_reason() -> None:
    task = unvalidated_task(
        "#include <cmath>\n"
        "static float softplus(float v) { return logf(1.0f + expf(v)); }\n"
        "// regrapht: n = 1000; x[n] in; y[n] out\n"
        "void f(int n, const float* x, float* y) {\n"
        "    for (int i = 0; i < n; ++i) y[i] = softplus(x[i]);\n"
        "}\n",
        "f",
    )
    assert "`softplus` also run on the host (__host__ __device__)" in refusal(task)


def test_integer_outputs_are_refused() -> None:
    task = unvalidated_task(
        "#include <cmath>\n"
        "// regrapht: n = 1000; x[n] in; y[n] out\n"
        "void f(int n, const float* x, int* y) {\n"
        "    for (int i = 0; i < n; ++i) y[i] = (int)(100.0f * expf(x[i]));\n"
        "}\n",
        "f",
    )
    assert "the task's outputs (`y`) are integers" in refusal(task)


def test_an_exact_tolerance_is_refused() -> None:
    task = dataclasses.replace(SIGMOID, tolerance=Tolerance(atol=0.0, rtol=0.0))
    assert "tolerance is exact" in refusal(task)


def test_sequential_code_is_refused() -> None:
    assert "no device code calls" in refusal(SIGMOID, SIGMOID.source)


@requires_nvcc
@pytest.mark.parametrize(
    ("task", "hand_written"),
    [(SIGMOID, False), (DAMPED, False), (SIGMOID, True)],
    ids=["sigmoid", "damped", "hand-written"],
)
def test_the_candidates_compile_with_nvcc(task: Task, hand_written: bool, tmp_path: Path) -> None:
    compile_cuda(fast(task, HAND_WRITTEN if hand_written else None), tmp_path)


_RUNS = [
    ("sigmoid", SIGMOID, None),
    ("damped", DAMPED, None),
    ("hand-written", SIGMOID, HAND_WRITTEN),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "task", "code"), _RUNS, ids=[r[0] for r in _RUNS])
def test_the_candidates_compute_what_the_reference_computes(
    name: str, task: Task, code: str | None, tmp_path: Path
) -> None:
    assert run_on_cpu(task, fast(task, code), tmp_path) == "PASS", name


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize(("name", "task", "code"), _RUNS, ids=[r[0] for r in _RUNS])
def test_the_intrinsics_stay_within_the_tolerance_on_the_gpu(
    name: str, task: Task, code: str | None, tmp_path: Path
) -> None:
    assert run_on_gpu(task, fast(task, code), tmp_path) == "PASS", name
