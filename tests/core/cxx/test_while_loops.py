"""A ``while`` loop that counts (declared just before, advanced by one at the end of its
body and nowhere else) is written as its ``for`` loop, so the analysis reads its bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import parse_source
from regrapht_core.cxx.while_loops import counted_whiles
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


def _written(body: str) -> str:
    source = f"void f(float* x, int n, float k) {{\n{body}\n}}\n"
    function = parse_source(source, SourceLanguage.CPP).root_node.named_children[-1]
    written = counted_whiles(source, function)
    assert written.count("\n") == source.count("\n"), "lines keep their numbers"
    return "|".join(line.strip() for line in written.splitlines()[1:-1])


@pytest.mark.parametrize(
    ("body", "written"),
    [
        (
            "int i = 0;\nwhile (i < n) {\n  x[i] *= k;\n  ++i;\n}",
            "|for (int i = 0; i < n; ++i) {|x[i] *= k;||}",
        ),
        (
            "long j = 2;\nwhile (j + 1 < n) { float v = x[j]; x[j] = v * k; j += 1; }",
            "|for (long j = 2; j + 1 < n; ++j) { float v = x[j]; x[j] = v * k;  }",
        ),
        (
            "int i = 0;\nwhile (i < n) {\n  for (int c = 0; c < 3; ++c) { if (c) continue; }\n"
            "  i++;\n}",
            "|for (int i = 0; i < n; ++i) {|for (int c = 0; c < 3; ++c) { if (c) continue; }||}",
        ),
        (
            "int i = 0;\nwhile (i < n)\n{\n  x[i] = k;\n  ++i;\n}",
            "|for (int i = 0; i < n; ++i)|{|x[i] = k;||}",
        ),
    ],
    ids=["increment-first", "plus-equals-one-and-a-local", "inner-continue", "brace-below"],
)
def test_a_counting_while_is_its_for_loop(body: str, written: str) -> None:
    assert _written(body) == written


@pytest.mark.parametrize(
    "body",
    [
        "int i = 0;\nwhile (i < n) { x[i] *= k; ++i; }\nx[0] = i;",
        "int i = 0;\nwhile (i < n) { if (x[i] < 0) { ++i; continue; } x[i] *= k; ++i; }",
        "int i = 0;\nwhile (i < n) { x[i] *= k; i += 2; }",
        "int i = 0;\nwhile (i < n) { ++i; x[i - 1] *= k; }",
        "int i = 0;\nwhile (i < n) { if (x[i] > k) i = n; ++i; }",
        "int i = 0;\nint& r = i;\nwhile (i < n) { x[i] *= k; ++i; }",
        "int i = 0;\nwhile (i < n) { int& r = i; x[r] *= k; ++i; }",
        "int i = 0, m = 1;\nwhile (i < n) { x[i] *= k; ++i; }",
        "const int i = 0;\nwhile (i < n) { x[i] *= k; }",
    ],
    ids=[
        "read-after",
        "own-continue",
        "steps-by-two",
        "step-not-last",
        "written-in-the-body",
        "declaration-not-just-before",
        "reference-in-the-body",
        "two-declared",
        "const",
    ],
)
def test_other_while_loops_are_left_as_written(body: str) -> None:
    source = f"void f(float* x, int n, float k) {{\n{body}\n}}\n"
    function = parse_source(source, SourceLanguage.CPP).root_node.named_children[-1]
    assert counted_whiles(source, function) == source


SCALE = """#include <cstddef>
// regrapht: n = 4099; data[n] inout
void scale_while(float* data, std::size_t n, float k) {
    std::size_t i = 0;
    while (i < n) {
        data[i] *= k;
        ++i;
    }
}
"""


@requires_nvcc
def test_a_counting_while_gets_a_kernel_that_computes_it(tmp_path: Path) -> None:
    """It was refused: the length of ``data`` could not be inferred."""
    task = unvalidated_task(SCALE, "scale_while")
    assert "__global__" in first_step_computes(task, tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_counting_while_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    task = unvalidated_task(SCALE, "scale_while")
    first_step_computes(task, tmp_path, run=run_on_gpu)
