"""Counted loops: the trip count is known before the loop starts, or the loop is refused."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.cxx.loops import CountedLoop, counted_loop, shifted_comparison
from regrapht_core.cxx.parse import node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import parse
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


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
    ("comparison", "read"),
    [
        ("i + 1 < n", ("<", "n", [(1, "1")])),
        ("1 + i < n", ("<", "n", [(1, "1")])),
        ("n > i + 1", ("<", "n", [(1, "1")])),
        ("i + k <= n", ("<=", "n", [(1, "k")])),
        ("n >= k + i", ("<=", "n", [(1, "k")])),
        ("i - k < n", ("<", "n", [(-1, "k")])),
        ("(i + k + 1) <= n", ("<=", "n", [(1, "k"), (1, "1")])),
        ("i < n", None),
        ("i + i < n", None),
        ("k - i < n", None),
        ("i + 2 * i < n", None),
    ],
)
def test_the_shifted_comparison_both_the_loops_and_the_inference_read(
    comparison: str, read: tuple[str, str, list[tuple[int, str]]] | None
) -> None:
    root = parse(f"void f(int i, int k, int n) {{ g({comparison}); }}").root_node
    node = next(
        n
        for n in walk(root)
        if n.type in ("binary_expression", "parenthesized_expression")
        and n.parent is not None
        and n.parent.type == "argument_list"
    )
    found = shifted_comparison(node, "i")
    got = (
        None
        if found is None
        else (found.op, node_text(found.bound), [(sign, node_text(t)) for sign, t in found.terms])
    )
    assert got == read


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


@pytest.mark.parametrize(
    ("header", "condition", "end"),
    [
        ("for (int i = 0; i + m <= n; ++i)", "i + m <= n", "n) + 1 - static_cast<long long>(m)"),
        ("for (int i = 0; m + i < n; ++i)", "i + m < n", "n) - static_cast<long long>(m)"),
        ("for (int i = 0; n >= i + 2 * m; ++i)", "i + (2 * m) <= n", "n) + 1 - "),
    ],
)
def test_a_bound_shifted_by_a_name_stops_that_far_short(
    header: str, condition: str, end: str
) -> None:
    """A convolution's ``i + k <= n``: kept as written, its trip count in ``long long``, so
    an unsigned ``n`` below ``k`` still gives no iterations, and never inside a row."""
    loop = _loop(header)
    assert (loop.offset, loop.condition(), loop.shifted) == (0, condition, True)
    assert end in loop.end_text()
    assert len(loop.bounds()) == 3
    assert not loop.ends_inside("n")


@pytest.mark.parametrize(
    "header", ["for (int i = 0; 2 - i < n; ++i)", "for (int i = 0; i + i < n; ++i)"]
)
def test_a_shift_must_be_added_and_must_not_read_the_counter(header: str) -> None:
    with pytest.raises(Refusal, match="is not `i < bound`"):
        _loop(header)


CONV = """#include <vector>
void conv1d(const std::vector<float>& signal, const std::vector<float>& kernel,
            std::vector<float>& out) {
    const size_t k = kernel.size();
    for (size_t i = 0; i + k <= signal.size(); ++i) {
        float acc = 0.0f;
        for (size_t j = 0; j < k; ++j) acc += signal[i + j] * kernel[j];
        out[i] = acc;
    }
}
"""


CONV_PTR = """void conv(const float* x, const float* w, float* y, int n, int k) {
    for (int i = 0; i + k <= n; ++i) {
        float a = 0;
        for (int j = 0; j < k; ++j) a += x[i + j] * w[j];
        y[i] = a;
    }
}
"""


def _computed(source: str, function: str, tmp_path: Path) -> str:
    """The first step's code, run by the emulator at the correctness sizes up to 257."""
    task = unvalidated_task(source, function)
    small = tuple(b for b in task.correctness_sizes if int(b["n"]) <= 257)
    return first_step_computes(replace(task, correctness_sizes=small), tmp_path)


@requires_nvcc
def test_a_convolution_bounded_by_its_kernels_length_gets_a_kernel_that_computes_it(
    tmp_path: Path,
) -> None:
    """It was refused: "cannot infer the length of 'signal' (the index in 'signal[i + j]'
    has no bound)"; the kernel's length is now a window, timed at 31 taps."""
    task = unvalidated_task(CONV, "conv1d")
    assert [(a.name, a.length) for a in task.args] == [
        ("signal", "n"),
        ("kernel", "m"),
        ("out", "-m + n + 1"),
    ]
    assert dict(task.timing_size) == {"m": 31, "n": 1 << 20}
    assert "__global__" in _computed(CONV, "conv1d", tmp_path)


@requires_nvcc
def test_a_convolution_over_pointers_sizes_its_output_in_c_and_computes_it(
    tmp_path: Path,
) -> None:
    """It was refused: "cannot turn the length `-k + n + 1` of `y` into C"."""
    assert "(0 - static_cast<size_t>(k))" in _computed(CONV_PTR, "conv", tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_convolution_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    first_step_computes(unvalidated_task(CONV, "conv1d"), tmp_path, run=run_on_gpu)
