"""Counted loops: the trip count is known before the loop starts, or the loop is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import parse
from tests.core.rewrite.support import first_step_computes, requires_nvcc, unvalidated_task


def _loop(header: str) -> CountedLoop:
    root = parse(f"void f(int n, int m, float* x) {{ int i; {header} x[0] = 1; }}").root_node
    node = next(n for n in walk(root) if n.type == "for_statement")
    return counted_loop(node)


def test_counted_loops_in_their_spellings() -> None:
    loop = _loop("for (int i = 0; i < n; ++i)")
    assert (loop.var, loop.var_type, loop.inclusive) == ("i", "int", False)
    assert loop.trip_count() == "static_cast<long long>(n)"
    flipped = _loop("for (i = 1; n - 1 >= i; i += 1)")
    assert (flipped.var_type, flipped.inclusive, flipped.upper_text()) == (None, True, "(n - 1)")
    assert flipped.trip_count() == ("static_cast<long long>(n - 1) - static_cast<long long>(1) + 1")
    assert _loop("for (int j = 1; j < m - 1; j = j + 1)").inside("m")


@pytest.mark.parametrize(
    ("header", "offset", "condition"),
    [
        ("for (int i = 0; i + 2 < n; ++i)", 2, "i + 2 < n"),
        ("for (int i = 0; i + 2 <= n; ++i)", 1, "i + 1 < n"),
        ("for (int i = 0; n >= i + 1; ++i)", 0, "i < n"),
    ],
)
def test_a_shifted_bound_is_read_as_a_shift_below_it(
    header: str, offset: int, condition: str
) -> None:
    """``i + c <= n`` is ``i + (c - 1) < n`` for integers; with ``c >= 1`` neither side can
    wrap, so an unsigned ``n`` of 0 still gives no iterations."""
    loop = _loop(header)
    assert (loop.offset, loop.inclusive, loop.condition()) == (offset, False, condition)


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ("for (;;)", "no initialiser"),
        ("for (float t = 0; t < n; ++t)", "not of an integer type"),
        ("for (int i = 0; i < n; i += 2)", "does not step `i` by one"),
        ("for (int i = 0; x[i] < n; ++i)", "is not `i < bound`"),
        ("for (int i = 0; i < n + i; ++i)", "depends on the loop variable"),
    ],
)
def test_other_loops_are_refused_with_the_reason(header: str, reason: str) -> None:
    with pytest.raises(Refusal, match=reason):
        _loop(header)


PAIRS = """#include <vector>
#include <cstddef>
// regrapht: n = 4099
void pairs(const std::vector<float>& x, std::vector<float>& y) {
    for (std::size_t i = 0; i + 2 <= x.size(); ++i) y[i] = x[i] + x[i + 1];
}
"""


@requires_nvcc
def test_a_loop_bounded_by_a_shifted_less_or_equal_gets_a_kernel_that_computes_it(
    tmp_path: Path,
) -> None:
    """It was refused: "the loop condition `i + 2 <= x_size` is not `i < bound`"."""
    task = unvalidated_task(PAIRS, "pairs")
    assert [s["n"] for s in task.correctness_sizes][:1] == [1], "an unsigned n below the shift"
    assert "__global__" in first_step_computes(task, tmp_path)
