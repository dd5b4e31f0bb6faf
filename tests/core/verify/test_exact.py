"""The exact-sum reference: which float sums are accumulated in double, and that a call's
outputs pass when they match either answer."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.task import Tolerance
from regrapht_core.tasks.extract import extract_task
from regrapht_core.verify.compare import Expected
from regrapht_core.verify.exact import exact_sums_source

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus" / "manifest.toml"


def _widened(body: str) -> str | None:
    task = extract_task(
        "// regrapht: n = 1000; x[n] in; out[1] out\n"
        f"void f(int n, const float* x, float* out) {{\n{body}\n}}\n",
        "cpp",
        function="f",
        validate=False,
    )
    return exact_sums_source(task)


def test_a_whole_function_float_sum_is_accumulated_in_double() -> None:
    code = _widened(
        "  float s = 0.0f;\n  for (int i = 0; i < n; ++i) s += x[i] * x[i];\n  out[0] = s;"
    )
    assert code is not None
    assert "  double s = 0.0f;\n  for (int i = 0; i < n; ++i) s += x[i] * x[i];" in code


@pytest.mark.parametrize(
    "body",
    [
        "  float s = 0;\n  for (int i = 0; i < n; ++i) s = s + x[i];\n  out[0] = s;",
        "  float s = 0;\n  for (int i = 0; i < n; ++i) s = x[i] + s;\n  out[0] = s;",
        "  float s = 0;\n  for (int i = 0; i < n; ++i) { if (x[i] > 0) s -= x[i]; }\n  out[0] = s;",
        "  float s = 1;\n  for (int i = 0; i < n; ++i) s *= x[i];\n  out[0] = s;",
        "  float s = 1;\n  for (int i = 0; i < n; ++i) s = x[i] * s;\n  out[0] = s;",
    ],
    ids=["s = s + e", "s = e + s", "-= under an if", "a product", "s = e * s"],
)
def test_every_way_of_accumulating_counts(body: str) -> None:
    code = _widened(body)
    assert code is not None and ("double s = 0;" in code or "double s = 1;" in code)


@pytest.mark.parametrize(
    "body",
    [
        # a per-output accumulator: a row's length, which the tolerance covers
        "  for (int i = 0; i < n; ++i) { float s = 0; for (int k = 0; k < 4; ++k) s += x[i];"
        " out[0] = s; }",
        # not accumulated in a loop
        "  float s = x[0] + x[1];\n  out[0] = s;",
        # accumulated, but another name may write it
        "  float s = 0;\n  float* p = &s;\n  for (int i = 0; i < n; ++i) s += x[i];\n"
        "  *p += 1;\n  out[0] = s;",
        # already double
        "  double s = 0;\n  for (int i = 0; i < n; ++i) s += x[i];\n  out[0] = s;",
        # two variables in one declaration
        "  float s = 0, t = 0;\n  for (int i = 0; i < n; ++i) s += x[i];\n  out[0] = s + t;",
        # a maximum, not a sum
        "  float s = 0;\n  for (int i = 0; i < n; ++i) s = s > x[i] ? s : x[i];\n  out[0] = s;",
    ],
    ids=["per output", "no loop", "address taken", "double", "two names", "maximum"],
)
def test_other_floats_stay_as_written(body: str) -> None:
    assert _widened(body) is None


def test_the_corpus_tasks_with_one() -> None:
    """The sums and products over whole arrays, running ones included;
    docs/verification-design.md quotes the count."""
    found = sorted(e.name for e in load_manifest(CORPUS) if exact_sums_source(e.task()))
    assert found == [
        "predicate_reductions_mean_f32_vec",
        "predicate_reductions_variance_f32_ptr",
        "reductions_dot_f32_vec_ret",
        "reductions_l1_f32_ptr_out",
        "reductions_prod1p_f32_ptr_out",
        "reductions_sum_f32_ptr_ret",
        "reductions_sumsq_f32_vec_out",
        "scans_recurrences_cumprod_f32_ptr",
        "scans_recurrences_exclusive_f32_vec",
        "scans_recurrences_inclusive_f32_vec",
    ]


def test_outputs_pass_when_they_match_either_answer() -> None:
    """The numbers of reductions_sumsq_f32_vec_out on the H200: the reference's float sum
    5563538, its exact sum (and the GPU's answer) about 5679979.5."""
    tolerance = Tolerance(atol=1e-3 + 3.0, rtol=1e-3)
    written = {"out": np.array([5563538.0], np.float32)}
    exact = {"out": np.array([5679980.0], np.float32)}
    gpu = np.array([5679979.5], np.float32)
    assert Expected(written).mismatch("out", gpu, tolerance) is not None
    assert Expected(written, exact).mismatch("out", gpu, tolerance) is None
    assert Expected(written, exact).mismatch("out", written["out"], tolerance) is None
    wrong = np.array([5400000.0], np.float32)
    found = Expected(written, exact).mismatch("out", wrong, tolerance)
    assert found is not None and "expected 5563538" in found, "the written answer is reported"
