"""A loop that counts down to zero (``for (int i = n - 1; i >= 0; --i)``) is written as
one that counts up, each use of its counter written as the value it had, so the analysis
can decide whether its iterations are independent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.cxx.countdowns import count_up
from tests.core.cxx.support import each_rewritten, printed_by, renamed, rewritten
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


def _written(source: str) -> str:
    return rewritten(source, count_up)


def _source(body: str) -> str:
    return f"void f(float* out, const float* x, int n, unsigned m) {{\n{body}\n}}\n"


@pytest.mark.parametrize(
    ("body", "written"),
    [
        (
            "for (int i = n - 1; i >= 0; --i) out[n - 1 - i] = x[i];",
            "for (int i = 0; i < (n - 1) + 1; ++i) out[n - 1 - ((n - 1) - i)] = x[((n - 1) - i)];",
        ),
        (
            "for (long j = n; j > -1; j -= 1) out[j] = 0;",
            "for (long j = 0; j < (n) + 1; ++j) out[((n) - j)] = 0;",
        ),
    ],
    ids=["reversal", "greater-than-minus-one"],
)
def test_a_countdown_counts_up(body: str, written: str) -> None:
    assert _written(_source(body)).splitlines()[1].strip() == written


@pytest.mark.parametrize(
    "body",
    [
        "for (unsigned i = m - 1; i >= 0; --i) out[i] = 0;",
        "int i;\nfor (i = n - 1; i >= 0; --i) out[i] = 0;",
        "for (int i = n - 1; i >= 1; --i) out[i] = 0;",
        "for (int i = n - 1; i >= 0; i -= 2) out[i] = 0;",
        "for (int i = n - 1; i >= 0; --i) { out[i] = 0; n = 3; }",
        "for (int i = n - 1; i >= 0; --i) { out[i] = 0; if (x[i] > 0) --i; }",
        "for (int i = n++; i >= 0; --i) out[i] = 0;",
        "for (int i = n - 1; i < n; ++i) out[i] = 0;",
        "for (int i = n - 1; i >= 0; --i) if (x[i] < 0) { out[0] = i; break; }",
        "for (int j = 0; j < n; ++j)\n  for (int k = 7; k >= 0; --k) out[j] = out[j] * x[j] + k;",
    ],
    ids=[
        "unsigned",
        "declared-outside",
        "stops-above-zero",
        "steps-by-two",
        "start-changed-in-the-body",
        "counter-changed-in-the-body",
        "start-with-an-effect",
        "counts-up-already",
        "search-from-the-back",
        "inside-another-loop",
    ],
)
def test_other_loops_are_left_as_written(body: str) -> None:
    source = _source(body)
    assert _written(source) == source


LOOPS = (
    "#include <cstdio>\n"
    "long back(int n) { long s = 0; for (int i = n - 1; i >= 0; --i) s = s * 3 + i; return s; }\n"
    "long from(long n) { long s = 0; for (long j = n; j > -1; j -= 1) s = s * 7 + j; return s; }\n"
)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_rewritten_loops_compute_what_the_countdowns_do(tmp_path: Path) -> None:
    """The folds are order-sensitive: a use of the new counter itself (not the value the
    old one had) would fold the values backwards. For every start from -3 to 30."""
    names = ("back", "from")
    written = each_rewritten(LOOPS, names, count_up)
    assert written.count("++") == 2
    main = (
        "int main() { int bad = 0;\n"
        "  for (int n = -3; n <= 30; ++n) bad += x_back(n) != back(n) || x_from(n) != from(n);\n"
        '  std::printf("%d\\n", bad); return bad != 0; }\n'
    )
    program = LOOPS + renamed(written, names).split("\n", 1)[1] + main
    assert printed_by(program, tmp_path) == "0"


REVERSE = """#include <vector>
// regrapht: n = 4099
void reverse_copy(const std::vector<double>& x, std::vector<double>& out) {
    const int n = static_cast<int>(x.size());
    for (int i = n - 1; i >= 0; --i) out[n - 1 - i] = x[i];
}
"""


@requires_nvcc
def test_a_reversal_gets_a_kernel_that_computes_it(tmp_path: Path) -> None:
    """It was refused: "the loop condition `i >= 0` is not `i < bound`"."""
    task = unvalidated_task(REVERSE, "reverse_copy")
    assert "__global__" in first_step_computes(task, tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_reversal_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    first_step_computes(unvalidated_task(REVERSE, "reverse_copy"), tmp_path, run=run_on_gpu)
