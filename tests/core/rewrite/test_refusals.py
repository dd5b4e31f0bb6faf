"""Every loop the analysis cannot prove independent is refused, and the reason says why."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.task import ArgSpec, ParamKind, Role
from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.reduction import ParallelReduction
from tests.core.rewrite.cases import make_task
from tests.core.rewrite.support import first_step

_ARGS = (
    ArgSpec("x", ParamKind.POINTER, "float", length="n"),
    ArgSpec("y", ParamKind.POINTER, "float", Role.INOUT, length="n"),
    ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
)
_SIGNATURE = "void f(const float* x, float* y, int n)"


def _verdict(body: str, prefix: str = "") -> str:
    source = f"{prefix}{_SIGNATURE} {{\n{body}\n}}\n"
    task = make_task("f", source, _SIGNATURE, _ARGS)
    context = RewriteContext(task)
    verdict = Parallelize().applies(source, context)
    assert not verdict
    assert Parallelize().apply(source, context) == []
    return verdict.reason


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("  for (int i = 1; i < n; ++i) y[i] = y[i - 1] + x[i];", "loop-carried dependence"),
        ("  for (int i = 0; i < n; ++i) y[i / 2] = x[i];", "not affine"),
        ("  for (int i = 0; i < n; ++i) y[(int)x[i]] = 1.0f;", "not affine"),
        ("  for (int i = 0; i < n - 1; ++i) { y[i] = x[i]; y[i + 1] = x[i]; }", "owns"),
        ("  for (int i = 0; i < n; ++i) { if (x[i] < 0) break; y[i] = x[i]; }", "break"),
        ("  for (int i = 0; i < n; ++i) { if (x[i] < 0) return; y[i] = x[i]; }", "returns early"),
        ("  for (int i = 0; i < n; ++i) y[i] = foo(x[i]);", "calls `foo`"),
        ('  for (int i = 0; i < n; ++i) { printf("%f", x[i]); y[i] = x[i]; }', "I/O"),
        ("  for (int i = 0; i < n; ++i) { std::cout << x[i]; y[i] = x[i]; }", "I/O"),
        (
            "  float last = 0;\n  for (int i = 0; i < n; ++i) { y[i] = last; last = x[i]; }",
            "`last`",
        ),
        ("  float s = 0;\n  for (int i = 0; i < n; ++i) { s += x[i]; y[i] = s; }", "carries"),
        ("  float p = 1;\n  for (int i = 0; i < n; ++i) p /= x[i];", "`/=`"),
        ("  for (int i = 0; i < n; i += 2) y[i] = x[i];", "by one"),
        ("  for (int i = 0; i < n; ++i) { n = 3; y[i] = x[i]; }", "parameter `n`"),
        ("  for (int i = 0; i < n; ++i) { i += 1; y[i] = x[i]; }", "loop variable"),
        ("  for (int i = 0; i < n; ++i) *(y + i) = x[i];", "through a pointer"),
        ("  for (int i = 0; i < n; ++i) y[i] = table[i];", "`table`"),
        (
            "  for (int i = 1; i < n; ++i) y[i] = y[i - 1];\n"
            "  for (int i = 0; i < n; ++i) y[i / 2] = x[i];",
            "2 top-level loops; parallelization maps them loop by loop",
        ),
        ("  int k = 0;\n  while (k < n) { y[k] = x[k]; ++k; }", "no top-level for loop"),
        ("  for (int i = 0; i < n; ++i) { float* row = y + 0; row[0] = x[i]; }", "`row`"),
        (
            "  float m = 0;\n  for (int i = 0; i < n; ++i) if (x[i] > m || x[i] < -1) m = x[i];"
            "\n  y[0] = m;",
            "not as a sum, min or max",
        ),
        (
            "  float m = 0;\n  for (int i = 0; i < n; ++i) if (x[i] > m && m < 1) m = x[i];"
            "\n  y[0] = m;",
            "not as a sum, min or max",
        ),
    ],
    ids=[
        "prefix",
        "halving-index",
        "indirect-index",
        "overlapping-writes",
        "break",
        "return",
        "unknown-call",
        "printf",
        "cout",
        "carried-scalar",
        "running-sum",
        "quotient",
        "step-two",
        "param-write",
        "loop-var-write",
        "pointer-write",
        "global-array",
        "two-loops",
        "while",
        "pointer-alias-write",
        "max-or-else",
        "max-tested-twice",
    ],
)
def test_refusal(body: str, reason: str) -> None:
    assert reason in _verdict(body)


def test_helpers_that_write_through_pointers_are_refused() -> None:
    helper = "static void put(float* p, float v) { *p = v; }\n"
    body = "  for (int i = 0; i < n; ++i) put(y + i, x[i]);"
    assert "through which it may write" in _verdict(body, helper)
    assert "address" in _verdict("  for (int i = 0; i < n; ++i) put(&y[i], x[i]);", helper)


def test_helpers_that_print_are_refused() -> None:
    helper = "static float loud(float v) { std::cout << v; return v; }\n"
    assert "I/O" in _verdict("  for (int i = 0; i < n; ++i) y[i] = loud(x[i]);", helper)


def test_helpers_that_touch_globals_are_refused() -> None:
    helper = "float scale = 2.0f;\nstatic float f2(float v) { return v * scale; }\n"
    assert "`scale`" in _verdict("  for (int i = 0; i < n; ++i) y[i] = f2(x[i]);", helper)


def test_a_kernel_task_is_not_parallelized_again() -> None:
    source = "__global__ void f(const float* x, float* y, int n) { }\n"
    task = make_task("f", source, _SIGNATURE, _ARGS)
    verdict = ParallelReduction().applies(source, RewriteContext(task))
    assert not verdict and "device code" in verdict.reason


def test_code_that_does_not_parse_is_refused() -> None:
    source = f"{_SIGNATURE} {{ for (int i = 0; i < n; ++i) y[i] = ; }}"
    task = make_task("f", source, _SIGNATURE, _ARGS)
    verdict = Parallelize().applies(source, RewriteContext(task))
    assert not verdict and "does not parse" in verdict.reason


def test_lengths_the_parameters_cannot_express_are_refused() -> None:
    args = (*_ARGS[:2], ArgSpec("n", ParamKind.SCALAR, "int", value="17"))
    args = (ArgSpec("x", ParamKind.POINTER, "float", length="k"), *args[1:])
    source = f"{_SIGNATURE} {{\n  for (int i = 0; i < n; ++i) y[i] = x[i];\n}}\n"
    task = make_task("f", source, _SIGNATURE, args)
    verdict = Parallelize().applies(source, RewriteContext(task))
    assert not verdict and "`k`" in verdict.reason


@pytest.mark.slow
def test_the_corpus_entries_without_a_first_step() -> None:
    """The counts docs/rewriters.md quotes: 7 of the 368 train tasks and none of the 105
    test tasks get no parallelization step from any rewriter (48 and 16 before
    namespace-scope tables, filtered maxima, exclusive scans, running maxima, 64-bit
    arg-reductions, scatters whose targets may repeat, searches from the end, linear folds,
    products, rows that fit only for some sizes, top twos, in-place transposes, counting
    sorts, compactions, binary searches and interleaved indices were taken)."""
    corpus = Path(__file__).parents[3] / "benchmarks" / "corpus" / "manifest.toml"
    refused: Counter[str] = Counter()
    for entry in load_manifest(corpus):
        task = entry.task()
        if first_step(task)[0] is None:
            refused[entry.split] += 1
    assert refused == {"train": 7}
