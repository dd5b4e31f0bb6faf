"""Vectorized access on the reduction rewriter's grid-stride loop: a ``float4`` loop over
groups of four plus a scalar tail, checked for structure, refusals, nvcc, and against the
sequential reference for sum, dot and max with ``n`` not a multiple of four."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.contracts.task import SizeBinding, Task
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.reduction import ParallelReduction
from regrapht_core.rewrite.vectorize import VectorizedAccess
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite import cases
from tests.core.rewrite.support import compile_cuda, requires_nvcc, run_on_cpu, run_on_gpu

_TASKS = Path(__file__).parents[3] / "benchmarks" / "tasks"
_ODD_SIZES: tuple[SizeBinding, ...] = ({"n": 0}, {"n": 3}, {"n": 4}, {"n": 1001}, {"n": 4099})


def _task(file: str, function: str) -> Task:
    source = (_TASKS / file).read_text()
    return extract_task(source, "cpp", function=function, validate=False)


SUM = _task("reduce_sum.cpp", "sum_f32")
DOT = _task("reduce_dot.cpp", "dot_f64acc")
MAX = _task("reduce_max.cpp", "max_f32")
_ALL = [SUM, DOT, MAX]
_IDS = ["sum", "dot", "max"]


def _odd(task: Task, *more: SizeBinding) -> Task:
    """``task`` checked at sizes that leave a tail of 0..3 elements. The max of no elements
    is -inf, which the harness's ``|got - want|`` (NaN) cannot compare, so max skips n = 0."""
    sizes = tuple(s for s in _ODD_SIZES if task is not MAX or s["n"]) + more
    return replace(task, correctness_sizes=sizes)


def vectorized(task: Task) -> str:
    (reduced,) = ParallelReduction().apply(task.source, RewriteContext(task))
    (candidate,) = VectorizedAccess().apply(reduced.code, RewriteContext(task))
    return candidate.code


def test_the_reduction_loop_reads_groups_of_four_then_a_scalar_tail() -> None:
    code = vectorized(DOT)
    start = "blockIdx.x * blockDim.x + threadIdx.x"
    stride = "static_cast<int>(blockDim.x * gridDim.x)"
    expected = "\n".join(
        [
            "  double s = 0;",
            "  const int groups = n / 4;",
            f"  for (int g = {start}; g < groups; g += {stride}) {{",
            "    const float4 x_v = reinterpret_cast<const float4*>(x)[g];",
            "    const float4 y_v = reinterpret_cast<const float4*>(y)[g];",
            "    {",
            "      s += (double)x_v.x * (double)y_v.x;",
            "    }",
            "    {",
            "      s += (double)x_v.y * (double)y_v.y;",
            "    }",
            "    {",
            "      s += (double)x_v.z * (double)y_v.z;",
            "    }",
            "    {",
            "      s += (double)x_v.w * (double)y_v.w;",
            "    }",
            "  }",
            f"  for (int i = 4 * groups + {start}; i < n; i += {stride}) {{",
            "    s += (double)x[i] * (double)y[i];",
            "  }",
            "  for (int offset = 16;",
        ]
    )
    assert expected in code
    assert "dot_f64acc_reduce<<<grid, block>>>(n, d_x, d_y, d_s);" in code  # grid unchanged


def _kernel(
    body: str = "s += x[i];",
    *,
    start: str = "blockIdx.x * blockDim.x + threadIdx.x",
    bound: str = "n",
    step: str = "i += blockDim.x * gridDim.x",
    element: str = "float",
    argument: str = "d_x",
) -> str:
    return (
        "#include <cuda_runtime.h>\n"
        f"__global__ void k(int n, {element}* x, float* out) {{\n"
        "  float s = 0;\n"
        f"  for (int i = {start}; i < {bound}; {step}) {{\n"
        f"    {body}\n"
        "  }\n"
        "  atomicAdd(out, s);\n"
        "}\n"
        f"void host(int n, {element}* x, float* out) {{\n"
        f"  {element}* d_x = nullptr;\n"
        "  float* d_out = nullptr;\n"
        f"  cudaMalloc(&d_x, n * sizeof({element}));\n"
        "  cudaMalloc(&d_out, sizeof(float));\n"
        f"  k<<<64, 256>>>(n, {argument}, d_out);\n"
        "}\n"
    )


def test_a_hand_written_grid_stride_loop_is_vectorized() -> None:
    assert VectorizedAccess().applies(_kernel(), RewriteContext(cases.SAXPY))


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (_kernel("x[i] = 2.0f * x[i]; s += x[i];"), "writes `x`"),
        (_kernel("s += x[i] * i;"), "uses its index `i` other than"),
        (_kernel("s += x[i + 1];"), "not the thread's own element"),
        (_kernel("float t[2] = {0, 0}; s += x[i] + t[i];"), "uses its index `i` other than"),
        (_kernel("if (x[i] < 0) break; s += x[i];"), "control flow"),
        (_kernel(step="i += 32"), "does not step by the grid size"),
        (_kernel(start="blockIdx.x * blockDim.x + threadIdx.x + 1"), "start at element 0"),
        (_kernel(bound="n - 1"), "not bounded by a parameter"),
        (_kernel("s += x[i]; n = 0;"), "changes its bound `n`"),
        (_kernel(element="double"), "not a float array"),
        (_kernel(argument="d_x + 1"), "alignment"),
    ],
    ids=[
        "writes",
        "index",
        "neighbour",
        "local-array",
        "break",
        "stride",
        "offset",
        "bound",
        "bound-written",
        "double",
        "offset-pointer",
    ],
)
def test_other_grid_stride_loops_are_refused_with_the_reason(code: str, reason: str) -> None:
    verdict = VectorizedAccess().applies(code, RewriteContext(cases.SAXPY))
    assert not verdict and reason in verdict.reason


@requires_nvcc
@pytest.mark.parametrize("task", _ALL, ids=_IDS)
def test_the_candidates_compile_with_nvcc(task: Task, tmp_path: Path) -> None:
    compile_cuda(vectorized(task), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", _ALL, ids=_IDS)
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    assert run_on_cpu(_odd(task), vectorized(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", _ALL, ids=_IDS)
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    checked = _odd(task, *task.correctness_sizes)
    assert run_on_gpu(checked, vectorized(task), tmp_path) == "PASS"
