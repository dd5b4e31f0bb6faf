"""The corpus's tasks, built in Python so the corpus does not depend on the task-file format.

Each task's reference defines a helper with external linkage next to its entry, so that a
candidate calling the reference's code by name is a real threat (it would link in the
timing build, where the reference is linked with the candidate) and the gate must see it.
"""

from __future__ import annotations

from collections.abc import Mapping

from regrapht_core.tasks.spec import ArgSpec, ParamKind, Role, SizeBinding, Task, Tolerance

__all__ = ["SAXPY", "SUM", "TASKS", "VADD"]

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

TASKS: Mapping[str, Task] = {task.name: task for task in (SAXPY, SUM, VADD)}
"""By name, which is also the corpus folder a candidate lives in."""
