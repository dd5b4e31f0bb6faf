"""Output comparison over chunks on several threads: counts and the first index must be those
of one pass over the whole array, wherever the differences fall."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from regrapht_core.contracts.task import Tolerance
from regrapht_core.verify.chunks import CHUNK, chunk_map
from regrapht_core.verify.compare import first_mismatch

SIZE = 10 * CHUNK + 123
"""Eleven chunks, the last one short."""


def test_chunks_cover_the_range_once_and_in_order() -> None:
    spans = chunk_map(lambda a, b: (a, b), SIZE)
    assert spans[0][0] == 0 and spans[-1][1] == SIZE
    assert all(left[1] == right[0] for left, right in itertools.pairwise(spans))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_first_difference_is_the_earliest_of_every_chunk(dtype: type) -> None:
    want: np.ndarray = np.random.default_rng(1).random(SIZE).astype(dtype)
    got = want.copy()
    late, early = 9 * CHUNK + 5, 3 * CHUNK + 1
    got[late] += 1
    got[early] -= 1
    said = first_mismatch("y", want, got, Tolerance())
    assert said is not None
    assert f"differs at index {early}:" in said and "(2 of" in said


def test_matching_nans_and_infinities_pass_and_a_lone_nan_does_not() -> None:
    want = np.zeros(SIZE, np.float32)
    want[[7, CHUNK * 4]] = np.nan
    want[CHUNK * 6] = np.inf
    got = want.copy()
    assert first_mismatch("y", want, got, Tolerance()) is None
    got[CHUNK * 8 + 2] = np.nan
    said = first_mismatch("y", want, got, Tolerance())
    assert said is not None and f"index {CHUNK * 8 + 2}:" in said


def test_integers_compare_exactly_across_chunks() -> None:
    want = np.arange(SIZE, dtype=np.int32)
    got = want.copy()
    got[-1] += 1
    said = first_mismatch("bins", want, got, None)
    assert said is not None and f"index {SIZE - 1}:" in said and "(1 of" in said
    assert first_mismatch("bins", want, want.copy(), None) is None


def test_a_float_sums_tolerance_grows_with_its_length() -> None:
    """The C++ corpus's red_sum_ref on the H200: a correct tree sum of 2^20 numbers from
    [-1, 1] was 11.952 where the sequential float sum said 11.939; that sum's own rounding
    is about 0.02 at this length, so the relative bound (0.013) called it wrong."""
    sums = Tolerance(1e-3, 1e-3, 3 * 2.0**-24)
    want, got = (
        np.array([11.939240455627441], np.float32),
        np.array([11.952262878417969], np.float32),
    )
    assert first_mismatch("result", want, got, sums.at({"n": 1 << 20, "alpha": 2.5})) is None
    # At the sizes that catch a dropped term, the bound stays near atol + rtol * |want|.
    assert sums.at({"n": 4099}) == Tolerance(1e-3 + 4099 * 3 * 2.0**-24, 1e-3)
    assert first_mismatch("result", want - 11, got - 11, sums.at({"n": 4099})) is not None
    dropped = want + np.float32(0.4)  # one term of the sum left out, at the timing size
    assert first_mismatch("result", want, dropped, sums.at({"n": 1 << 20})) is not None
    assert Tolerance().at({"n": 1 << 20}) == Tolerance()
