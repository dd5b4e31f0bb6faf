"""A local lambda whose body is one ``return`` is written, at each call, as the expression it
returns, so the loop that calls it reaches the rewriters."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.lambdas import inline_local_lambdas
from regrapht_core.cxx.parse import parse_source
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


def _inlined(body: str) -> str:
    source = f"void f(float* out, const float* x, int n, float s) {{\n{body}\n}}\n"
    function = parse_source(source, SourceLanguage.CPP).root_node.named_children[-1]
    written = inline_local_lambdas(source, function)
    assert written.count("\n") == source.count("\n"), "lines keep their numbers"
    return "\n".join(line.strip() for line in written.splitlines()[1:-1])


@pytest.mark.parametrize(
    ("body", "inlined"),
    [
        (
            "auto g = [s](float v) { return s * v; };\n"
            "for (int i = 0; i < n; ++i) out[i] = g(x[i]);",
            "\nfor (int i = 0; i < n; ++i) out[i] = (s * (static_cast<float>(x[i])));",
        ),
        (
            "auto sq = [](auto v) { return v * v; };\nout[0] = 2 * sq(x[0] + 1) - sq(s);",
            "\nout[0] = 2 * ((x[0] + 1) * (x[0] + 1)) - (s * s);",
        ),
        (
            "auto add = [&](int a, double b) { return a + b + s; };\nout[0] = add(n, x[1]);",
            "\nout[0] = ((static_cast<int>(n)) + (static_cast<double>(x[1])) + s);",
        ),
        (
            "auto clip = [=](float v) {\n  return v > s ? s : v;\n};\nout[0] = clip(x[0]);",
            "\n\n\nout[0] = ((static_cast<float>(x[0])) > s ? s : (static_cast<float>(x[0])));",
        ),
    ],
    ids=["by-value-capture", "generic", "by-reference-and-conversion", "several-lines"],
)
def test_each_call_of_a_local_lambda_is_the_expression_it_returns(body: str, inlined: str) -> None:
    assert _inlined(body) == inlined


@pytest.mark.parametrize(
    "body",
    [
        "auto g = [s](float v) { return s * v; };\ns = 2;\nout[0] = g(x[0]);",
        "auto g = [s](float v) { return s * v; };\nint k = 0;\nout[0] = g(x[k++]);",
        "auto g = [t = 2 * s](float v) { return t * v; };\nout[0] = g(x[0]);",
        "auto g = [s](float v) mutable { s += v; return s; };\nout[0] = g(x[0]);",
        "auto g = [](float v) { float w = v; return w; };\nout[0] = g(x[0]);",
        "auto g = [](float v) { return v; };\nauto h = g;\nout[0] = h(x[0]);",
        "auto g = [](float v) -> int { return v; };\nout[0] = g(x[0]);",
        "auto g = [s](float v) { return s * v; };\n{ float s = 3; out[0] = g(x[0]); }",
        "auto g = [s](float v) { return s * v; };\nstd::swap(s, out[1]);\nout[0] = g(x[0]);",
        "auto g = [](float v) { return 2 * v; };\nout[0] = g(g(x[0]));",
        "struct P { float k; float f(float v) { auto g = [this](float w) { return k * w; };"
        " k = 2; return g(v); } };",
        "auto g = [s](float v) { return s * v; };\nfloat& r = s;\nr = 5;\nout[0] = g(x[0]);",
        "auto g = [s](float v) { return s * v; };\nfloat& r{s};\nr = 5;\nout[0] = g(x[0]);",
    ],
    ids=[
        "capture-written-after",
        "argument-with-an-effect",
        "init-capture",
        "mutable",
        "two-statements",
        "copied",
        "declared-return-type",
        "capture-shadowed-at-the-call",
        "capture-passed-by-reference",
        "nested-calls",
        "this",
        "capture-written-through-a-reference",
        "capture-written-through-a-braced-reference",
    ],
)
def test_other_lambdas_are_left_as_written(body: str) -> None:
    """Where the expression at the call could read something other than what the lambda
    would, the user's code stays, and so does the refusal that quotes its call."""
    source = f"void f(float* out, const float* x, int n, float s) {{\n{body}\n}}\n"
    function = parse_source(source, SourceLanguage.CPP).root_node.named_children[-1]
    assert inline_local_lambdas(source, function) == source


GAUSSIAN = """#include <vector>
#include <cmath>
// regrapht: n = 4099
void gaussian(const std::vector<float>& x, std::vector<float>& out, float sigma) {
    auto g = [sigma](float v) { return std::exp(-v * v / (2 * sigma * sigma)); };
    for (size_t i = 0; i < x.size(); ++i) out[i] = g(x[i]);
}
"""


@requires_nvcc
def test_a_loop_calling_a_local_lambda_gets_a_kernel_that_computes_it(tmp_path: Path) -> None:
    """It was refused: "the loop calls `g`, which is neither defined in this file nor a
    device math function"."""
    task = unvalidated_task(GAUSSIAN, "gaussian")
    assert "__global__" in first_step_computes(task, tmp_path)
    assert "std::exp" in task.source


@pytest.mark.gpu
@requires_nvcc
def test_the_inlined_lambda_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    task = unvalidated_task(GAUSSIAN, "gaussian")
    first_step_computes(task, tmp_path, run=run_on_gpu)
