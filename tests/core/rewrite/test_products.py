"""Products: a float or double multiplied into a scalar (``s *= 1 + x[i]``) is a reduction
like a sum, each block multiplying into the result through a compare-and-swap loop; a
running product stored per element (``p *= x[i]; out[i] = p;``) is a CUB scan with the
product as its operator. Integer products, which would wrap, are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.reduction import ParallelReduction
from regrapht_core.rewrite.scan import LibraryScan
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import compile_cuda, requires_nvcc, run_on_cpu, run_on_gpu


def _task(annotation: str, signature: str, body: str) -> Task:
    name = signature.split("(", maxsplit=1)[0].rsplit(maxsplit=1)[-1]
    return extract_task(
        f"// regrapht: {annotation}\n{signature} {{\n{body}\n}}\n", "cpp", function=name
    )


PRODUCT = _task(
    "n = 3000; x[n] in ~ uniform(-1, 1)",
    "float growth(int n, const float* x)",
    "  float s = 1.0f;\n  for (int i = 0; i < n; ++i) s *= 1.0f + 0.001f * x[i];\n  return s;",
)
PRODUCT_DOUBLE = _task(
    "n = 3000; x[n] in ~ uniform(0.99, 1.01); out[1] out",
    "void scaled(int n, const double* x, double* out)",
    "  double p = 2.0;\n  for (int i = 0; i < n; ++i) p = x[i] * p;\n  out[0] = p;",
)
RUNNING = _task(
    "n = 1000; x[n] in ~ uniform(0.99, 1.01); out[n] out",
    "void cumprod(int n, const float* x, float* out)",
    "  float p = 1.0f;\n  for (int i = 0; i < n; ++i) {\n    p *= x[i];\n    out[i] = p;\n  }",
)
RUNNING_FROM = _task(
    "n = 1000; x[n] in ~ uniform(0.99, 1.01); out[n] out",
    "void cumprod_from(int n, const double* x, double* out)",
    "  double p = 0.5;\n  for (int i = 1; i < n; ++i) {\n    p *= x[i];\n    out[i] = p;\n  }",
)
"""From a start value other than one, and from index 1: ``out[0]`` is never written."""


def _reduced(task: Task) -> str:
    (candidate,) = ParallelReduction().apply(task.source, RewriteContext(task))
    return candidate.code


def _scanned(task: Task) -> str:
    (candidate,) = LibraryScan().apply(task.source, RewriteContext(task))
    return candidate.code


def test_a_product_starts_each_thread_at_one_and_multiplies_blocks_in_by_cas() -> None:
    code = _reduced(PRODUCT)
    assert "float s = static_cast<float>(1);" in code
    assert "s *= other;" in code
    assert "atomic_product_float(s_total, s);" in code
    assert "atomicCAS(word, assumed, __float_as_uint(__uint_as_float(old) * value))" in code
    assert "atomic_product_double" in _reduced(PRODUCT_DOUBLE)


def test_a_running_product_is_a_cub_scan_with_the_product() -> None:
    code = _scanned(RUNNING)
    assert "return a * b;" in code and "cub::DeviceScan::InclusiveScan(" in code
    assert "static_cast<double>(0.5) * term" in _scanned(RUNNING_FROM)


def test_integer_products_are_refused_with_the_reason() -> None:
    ints = _task(
        "n = 30; x[n] in ~ int(1, 2)",
        "int power(int n, const int* x)",
        "  int s = 1;\n  for (int i = 0; i < n; ++i) s *= x[i];\n  return s;",
    )
    assert (
        "only float and double"
        in ParallelReduction().applies(ints.source, RewriteContext(ints)).reason
    )
    running = _task(
        "n = 30; x[n] in ~ int(1, 2); out[n] out",
        "void powers(int n, const int* x, int* out)",
        "  int p = 1;\n  for (int i = 0; i < n; ++i) {\n    p *= x[i];\n    out[i] = p;\n  }",
    )
    assert (
        "only float and double"
        in LibraryScan().applies(running.source, RewriteContext(running)).reason
    )


CASES = [
    (PRODUCT, _reduced),
    (PRODUCT_DOUBLE, _reduced),
    (RUNNING, _scanned),
    (RUNNING_FROM, _scanned),
]
IDS = ["product", "double product", "running product", "running product from a start"]


@requires_nvcc
@pytest.mark.parametrize(("task", "rewrite"), CASES, ids=IDS)
def test_the_candidates_compile_with_nvcc(task: Task, rewrite: object, tmp_path: Path) -> None:
    assert callable(rewrite)
    compile_cuda(rewrite(task), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("task", "rewrite"), CASES, ids=IDS)
def test_the_candidates_compute_what_the_reference_computes(
    task: Task, rewrite: object, tmp_path: Path
) -> None:
    assert callable(rewrite)
    assert run_on_cpu(task, rewrite(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize(("task", "rewrite"), CASES, ids=IDS)
def test_the_candidates_agree_with_the_reference_on_the_gpu(
    task: Task, rewrite: object, tmp_path: Path
) -> None:
    assert callable(rewrite)
    assert run_on_gpu(task, rewrite(task), tmp_path) == "PASS"
