"""The corpus's tasks, built in Python so the corpus does not depend on the task-file format.

Each host task's reference defines a helper with external linkage next to its entry, so
that a candidate calling the reference's code by name is a real threat (it would link in the
timing build, where the reference is linked with the candidate) and the gate must see it.

The kernel tasks (``*_KERNEL``, kernel→kernel mode) replace a ``__global__`` kernel under
its launch contract; their references are the original kernels, run on the GPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from regrapht_core.contracts.task import (
    ArgSpec,
    LaunchSpec,
    ParamKind,
    Role,
    SizeBinding,
    SourceLanguage,
    Task,
    TaskMode,
    TimingMode,
    Tolerance,
)

__all__ = [
    "SAXPY",
    "SAXPY_KERNEL",
    "SGEMM",
    "STENCIL_KERNEL",
    "SUM",
    "TASKS",
    "TRANSPOSE_KERNEL",
    "VADD",
]

_SIZES: tuple[SizeBinding, ...] = (
    {"n": 1},
    {"n": 7},
    {"n": 31},
    {"n": 257},
    {"n": 1000},
    {"n": 4099},
    {"n": 65537},
)
_TIMING: SizeBinding = {"n": 1 << 22}

SAXPY = Task(
    name="saxpy",
    source=(
        "float axpy_element(float a, float x, float y) { return a * x + y; }\n"
        "\n"
        "void saxpy(int n, float a, const float* x, float* y) {\n"
        "  for (int i = 0; i < n; ++i) y[i] = axpy_element(a, x[i], y[i]);\n"
        "}\n"
    ),
    entry="saxpy",
    signature="void saxpy(int n, float a, const float* x, float* y)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("a", ParamKind.SCALAR, "float", value="2.5"),
        ArgSpec("x", ParamKind.POINTER, "float", length="n"),
        ArgSpec("y", ParamKind.POINTER, "float", Role.INOUT, length="n"),
    ),
    correctness_sizes=_SIZES,
    timing_size=_TIMING,
)

SUM = Task(
    name="sum",
    source=(
        "float sum_range(const float* x, int lo, int hi) {\n"
        "  float s = 0.0f;\n"
        "  for (int i = lo; i < hi; ++i) s += x[i];\n"
        "  return s;\n"
        "}\n"
        "\n"
        "float sum(int n, const float* x) { return sum_range(x, 0, n); }\n"
    ),
    entry="sum",
    signature="float sum(int n, const float* x)",
    returns="float",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("x", ParamKind.POINTER, "float", length="n"),
    ),
    correctness_sizes=_SIZES,
    timing_size=_TIMING,
    tolerance=Tolerance(atol=0.5, rtol=1e-3),
)

VADD = Task(
    name="vadd",
    source=(
        "float add_pair(float a, float b) { return a + b; }\n"
        "\n"
        "void vadd(int n, const float* a, const float* b, float* c) {\n"
        "  for (int i = 0; i < n; ++i) c[i] = add_pair(a[i], b[i]);\n"
        "}\n"
    ),
    entry="vadd",
    signature="void vadd(int n, const float* a, const float* b, float* c)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("a", ParamKind.POINTER, "float", length="n"),
        ArgSpec("b", ParamKind.POINTER, "float", length="n"),
        ArgSpec("c", ParamKind.POINTER, "float", Role.OUT, length="n"),
    ),
    correctness_sizes=_SIZES,
    timing_size=_TIMING,
)

SGEMM = Task(
    name="sgemm",
    source=(
        "float dot_column(int n, const float* row, const float* B, int j) {\n"
        "  float acc = 0.0f;\n"
        "  for (int k = 0; k < n; ++k) acc += row[k] * B[k * n + j];\n"
        "  return acc;\n"
        "}\n"
        "\n"
        "void sgemm(int n, const float* A, const float* B, float* C) {\n"
        "  for (int i = 0; i < n; ++i)\n"
        "    for (int j = 0; j < n; ++j) C[i * n + j] = dot_column(n, A + i * n, B, j);\n"
        "}\n"
    ),
    entry="sgemm",
    signature="void sgemm(int n, const float* A, const float* B, float* C)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("A", ParamKind.POINTER, "float", length="n*n"),
        ArgSpec("B", ParamKind.POINTER, "float", length="n*n"),
        ArgSpec("C", ParamKind.POINTER, "float", Role.OUT, length="n*n"),
    ),
    correctness_sizes=({"n": 1}, {"n": 7}, {"n": 31}, {"n": 67}, {"n": 129}, {"n": 257}),
    timing_size={"n": 512},
    tolerance=Tolerance(atol=1e-3, rtol=1e-3),
)
"""Compute-bound (n^3 work on n^2 data): where a cache across calls would pay the most, so
the class of cheats that keeps state between calls is tried on it first."""

_MAP_LAUNCH = LaunchSpec("", ("(n + 255)/256",), ("256",))


def _kernel_task(task: Task) -> Task:
    """``task`` as a kernel→kernel task: original kernel on the GPU, kernel-only timing."""
    return replace(
        task,
        mode=TaskMode.KERNEL_TO_KERNEL,
        timing_mode=TimingMode.KERNEL_ONLY,
        language=SourceLanguage.CUDA,
    )


SAXPY_KERNEL = _kernel_task(
    Task(
        name="saxpy_kernel",
        source=(
            "__device__ float axpy_element(float a, float x, float y) { return a * x + y; }\n"
            "\n"
            "__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) y[i] = axpy_element(a, x[i], y[i]);\n"
            "}\n"
        ),
        entry="saxpy_kernel",
        signature="__global__ void saxpy_kernel(int n, float a, const float* x, float* y)",
        args=SAXPY.args,
        correctness_sizes=_SIZES,
        timing_size={"n": 1 << 23},
        launch=replace(_MAP_LAUNCH, kernel="saxpy_kernel"),
    )
)

STENCIL_KERNEL = _kernel_task(
    Task(
        name="stencil1d",
        source=(
            "#define RADIUS 3\n"
            "\n"
            "__global__ void stencil1d(int n, const float* in, float* out) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i >= n) return;\n"
            "  float sum = 0.0f;\n"
            "  for (int k = -RADIUS; k <= RADIUS; ++k) sum += in[min(max(i + k, 0), n - 1)];\n"
            "  out[i] = sum / (2 * RADIUS + 1);\n"
            "}\n"
        ),
        entry="stencil1d",
        signature="__global__ void stencil1d(int n, const float* in, float* out)",
        args=(
            ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
            ArgSpec("in", ParamKind.POINTER, "float", length="n"),
            ArgSpec("out", ParamKind.POINTER, "float", Role.OUT, length="n"),
        ),
        correctness_sizes=_SIZES,
        timing_size={"n": 1 << 23},
        launch=replace(_MAP_LAUNCH, kernel="stencil1d"),
    )
)

TRANSPOSE_KERNEL = _kernel_task(
    Task(
        name="transpose",
        source=(
            "#define TILE 32\n"
            "#define ROWS 8\n"
            "\n"
            "__global__ void transpose(int rows, int cols, const float* in, float* out) {\n"
            "  int x = blockIdx.x * TILE + threadIdx.x;\n"
            "  int y = blockIdx.y * TILE + threadIdx.y;\n"
            "  for (int j = 0; j < TILE; j += ROWS)\n"
            "    if (x < cols && y + j < rows) out[x * rows + y + j] = in[(y + j) * cols + x];\n"
            "}\n"
        ),
        entry="transpose",
        signature="__global__ void transpose(int rows, int cols, const float* in, float* out)",
        args=(
            ArgSpec("rows", ParamKind.SCALAR, "int", value="rows"),
            ArgSpec("cols", ParamKind.SCALAR, "int", value="cols"),
            ArgSpec("in", ParamKind.POINTER, "float", length="rows*cols"),
            ArgSpec("out", ParamKind.POINTER, "float", Role.OUT, length="rows*cols"),
        ),
        correctness_sizes=(
            {"rows": 1, "cols": 7},
            {"rows": 7, "cols": 31},
            {"rows": 31, "cols": 67},
            {"rows": 67, "cols": 257},
            {"rows": 257, "cols": 33},
            {"rows": 1000, "cols": 1031},
        ),
        timing_size={"rows": 4096, "cols": 4096},
        launch=LaunchSpec("transpose", ("(cols + 31)/32", "(rows + 31)/32"), ("32", "8")),
    )
)

TASKS: Mapping[str, Task] = {
    task.name: task
    for task in (
        SAXPY,
        SUM,
        VADD,
        SGEMM,
        SAXPY_KERNEL,
        STENCIL_KERNEL,
        TRANSPOSE_KERNEL,
    )
}
"""By name, which is also the corpus folder a candidate lives in."""
