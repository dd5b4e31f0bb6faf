"""A loop that steps by a literal more than one (interleaved pairs, every third sample) is
written as one that counts by one, its counter's uses scaled by the step, so the analysis
can hand one iteration to a thread."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.cxx.strides import unit_strides
from tests.core.cxx.support import each_rewritten, printed_by, renamed, rewritten
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


def _source(body: str) -> str:
    return f"void f(float* out, const float* x, int n, unsigned m) {{\n{body}\n}}\n"


def _written(source: str) -> str:
    return rewritten(source, unit_strides)


@pytest.mark.parametrize(
    ("body", "written"),
    [
        (
            "for (int i = 0; i < n; i += 2) out[i / 2] = x[i] + x[i + 1];",
            "for (int i = 0; i < (n + 1) / 2; ++i) out[i] = x[(i * 2)] + x[(i * 2) + 1];",
        ),
        (
            "for (unsigned i = 0; i + 2 < m; i = i + 3) out[i] = x[i + 2];",
            "for (unsigned i = 0; i < (m + 0) / 3; ++i) out[(i * 3)] = x[(i * 3) + 2];",
        ),
        (
            "for (int i = 1; n > i; i += 4) out[i] = i;",
            "for (int i = 0; i < (n + 2) / 4; ++i) out[(i * 4 + 1)] = (i * 4 + 1);",
        ),
        (
            "for (int r = 0; r < n; r += 2)\n  for (int c = 0; c < n; c += 2) out[r * n + c] = 0;",
            "for (int r = 0; r < (n + 1) / 2; ++r)\n"
            "for (int c = 0; c < (n + 1) / 2; ++c) out[(r * 2) * n + (c * 2)] = 0;",
        ),
        (  # the inner loop does not start at a literal: only the outer counter is scaled
            "for (int r = 0; r < n; r += 2)\n  for (int c = r; c < n; c += 2) out[c] = 0;",
            "for (int r = 0; r < (n + 1) / 2; ++r)\n"
            "for (int c = (r * 2); c < n; c += 2) out[c] = 0;",
        ),
    ],
    ids=["pairs", "unsigned-shifted-by-three", "from-one-flipped", "nested", "inner-from-outer"],
)
def test_a_strided_loop_counts_by_one(body: str, written: str) -> None:
    lines = [line.strip() for line in _written(_source(body)).splitlines()[1:-1]]
    assert "\n".join(lines) == written


@pytest.mark.parametrize(
    "body",
    [
        "for (int i = 0; i < n; ++i) out[i] = 0;",
        "for (int i = 0; i < n; i += m) out[i] = 0;",
        "for (int i = 0; i <= n; i += 2) out[i] = 0;",
        "for (int i = 1; i + 1 < n; i += 2) out[i] = 0;",
        "int i;\nfor (i = 0; i < n; i += 2) out[i] = 0;",
        "for (int i = 0; i < n; i += 2) { out[i] = 0; if (x[i] > 0) i += 2; }",
        "for (int i = 0; i < n; i += 2) { int& r = i; out[r] = 0; }",
        "for (int i = 0; i < n - i; i += 2) out[i] = 0;",
    ],
    ids=[
        "unit-step",
        "variable-step",
        "inclusive",
        "start-and-shift-past-the-step",
        "declared-outside",
        "changed-in-the-body",
        "reference-in-the-body",
        "bound-reads-the-counter",
    ],
)
def test_other_loops_are_left_as_written(body: str) -> None:
    source = _source(body)
    assert _written(source) == source


LOOPS = (
    "#include <cstdio>\n#include <vector>\n"
    "long pairs(int n) { long s = 0; for (int i = 0; i < n; i += 2) s += i * 7 + (i / 2); "
    "return s; }\n"
    "long thirds(unsigned m) { long s = 0; for (unsigned i = 0; i + 2 < m; i = i + 3) "
    "s += i * 5 + 1; return s; }\n"
    "long fours(int n) { long s = 0; for (int i = 1; n > i; i += 4) s += i; return s; }\n"
)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_rewritten_loops_compute_what_the_strided_ones_do(tmp_path: Path) -> None:
    """For every bound from -3 to 40 (0 to 40 unsigned), the empty and short loops too."""
    names = ("pairs", "thirds", "fours")
    written = each_rewritten(LOOPS, names, unit_strides)
    assert written.count("++i") == 3
    main = (
        "int main() { int bad = 0;\n"
        "  for (int n = -3; n <= 40; ++n)\n"
        "    bad += pairs(n) != x_pairs(n) || fours(n) != x_fours(n);\n"
        "  for (unsigned m = 0; m <= 40; ++m) bad += thirds(m) != x_thirds(m);\n"
        '  std::printf("%d\\n", bad); return bad != 0; }\n'
    )
    program = LOOPS + renamed(written, names).split("\n", 2)[2] + main
    assert printed_by(program, tmp_path) == "0"


DOWNMIX = """#include <vector>
#include <cstddef>
// regrapht: n = 8198
void downmix(const std::vector<float>& stereo, std::vector<float>& mono) {
    for (std::size_t i = 0; i + 1 < stereo.size(); i += 2)
        mono[i / 2] = 0.5f * (stereo[i] + stereo[i + 1]);
}
"""


@requires_nvcc
def test_a_strided_downmix_gets_a_kernel_that_computes_it(tmp_path: Path) -> None:
    """It was refused: "the loop does not step `i` by one"."""
    task = unvalidated_task(DOWNMIX, "downmix")
    assert "__global__" in first_step_computes(task, tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_strided_downmix_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    first_step_computes(unvalidated_task(DOWNMIX, "downmix"), tmp_path, run=run_on_gpu)
