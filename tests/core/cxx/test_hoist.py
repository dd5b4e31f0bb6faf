"""A bound declared beside the counter (``for (std::size_t i = 0, n = x.size(); ...)``) is
declared just before the loop, so the loop declares one counter, as the analysis reads."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.cxx.hoist import hoist_loop_bounds
from tests.core.cxx.support import each_rewritten, printed_by, renamed, rewritten
from tests.core.rewrite.support import first_step_computes, requires_nvcc, unvalidated_task


def _source(body: str) -> str:
    return (
        f"#include <vector>\nvoid f(const std::vector<float>& x, float* y, int m) {{\n{body}\n}}\n"
    )


@pytest.mark.parametrize(
    ("body", "written"),
    [
        (
            "for (std::size_t i = 0, n = x.size(); i < n; ++i) y[i] = x[i];",
            "std::size_t n = x.size(); for (std::size_t i = 0; i < n; ++i) y[i] = x[i];",
        ),
        (
            "for (int i = m, e = m + 8; i < e; ++i) y[i] = 0;",
            "int e = m + 8; for (int i = m; i < e; ++i) y[i] = 0;",
        ),
    ],
    ids=["size", "from-a-name"],
)
def test_the_bound_is_declared_before_the_loop(body: str, written: str) -> None:
    assert rewritten(_source(body), hoist_loop_bounds).splitlines()[2] == written


@pytest.mark.parametrize(
    "body",
    [
        "for (std::size_t i = 0, n = x.size(); i < n; ++i) { y[i] = x[i]; if (y[i] < 0) --n; }",
        "int n = 3;\nfor (int i = 0, n = m; i < n; ++i) y[i] = 0;",
        "for (int i = m + 1, n = m + 9; i < n; ++i) y[i] = 0;",
        "if (m > 0)\n  for (int i = 0, n = m; i < n; ++i) y[i] = 0;",
        "for (int i = 0, *p = &m; i < *p; ++i) y[i] = 0;",
    ],
    ids=[
        "bound-changed",
        "name-declared-again",
        "counter-from-an-expression",
        "unbraced",
        "pointer",
    ],
)
def test_other_loops_are_left_as_written(body: str) -> None:
    source = _source(body)
    assert rewritten(source, hoist_loop_bounds) == source


LOOPS = (
    "#include <cstdio>\n#include <vector>\n"
    "long total(const std::vector<int>& v) { long s = 0;\n"
    "  for (std::size_t i = 0, n = v.size(); i < n; ++i) s += v[i] * (long)i; return s; }\n"
)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_hoisted_loop_computes_what_the_written_one_does(tmp_path: Path) -> None:
    written = each_rewritten(LOOPS, ("total",), hoist_loop_bounds)
    assert "std::size_t n = v.size(); for" in written
    main = (
        "int main() { int bad = 0;\n"
        "  for (int n = 0; n <= 20; ++n) {\n"
        "    std::vector<int> v(n, 3); if (n) v[n / 2] = n;\n"
        "    bad += total(v) != x_total(v); }\n"
        '  std::printf("%d\\n", bad); return bad != 0; }\n'
    )
    program = LOOPS + renamed(written, ("total",)).split("\n", 2)[2] + main
    assert printed_by(program, tmp_path) == "0"


TWICE = """#include <vector>
#include <cstddef>
// regrapht: n = 4099
void twice(const std::vector<float>& x, std::vector<float>& y) {
    for (std::size_t i = 0, n = x.size(); i < n; ++i) y[i] = 2 * x[i];
}
"""


@requires_nvcc
def test_a_loop_with_its_bound_beside_the_counter_gets_a_kernel(tmp_path: Path) -> None:
    """It was refused: the lengths of ``x`` and ``y`` could not be inferred."""
    assert "__global__" in first_step_computes(unvalidated_task(TWICE, "twice"), tmp_path)
