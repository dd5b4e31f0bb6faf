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
