from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from regrapht_core.contracts.task import ArgSpec, Distribution, ParamKind, Role, Task
from regrapht_core.errors import TaskError
from regrapht_core.tasks.inputs import _sorted_unique, generate_inputs

from .conftest import extract


def _arrays(task: Task, binding: dict[str, int | float], seed: int) -> dict[str, np.ndarray]:
    return {
        k: v for k, v in generate_inputs(task, binding, seed).items() if isinstance(v, np.ndarray)
    }


def test_deterministic_per_seed_and_different_across_seeds(saxpy: Task) -> None:
    size = {"n": 4099}
    first, again, other = (_arrays(saxpy, size, s) for s in (11, 11, 12))
    assert first.keys() == {"x", "y"}
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])
        assert not np.array_equal(first[name], other[name])
    assert not np.array_equal(first["x"], first["y"])


def test_scalars_inputs_and_no_outputs() -> None:
    task = extract("matvec.cpp", "matvec")
    values = generate_inputs(task, {"m": 7, "n": 31}, 3)
    assert list(values) == ["m", "n", "A", "x"]
    assert values["m"] == 7 and isinstance(values["m"], int)
    a = values["A"]
    assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.shape == (7 * 31,)
    saxpy = extract("saxpy.c", "saxpy")
    alpha = generate_inputs(saxpy, {"n": 1}, 0)["a"]
    assert alpha == 0.5 and isinstance(alpha, float)


def test_plain_draws_include_edge_values_and_respect_ranges(saxpy: Task) -> None:
    x = _arrays(saxpy, {"n": 4099}, 5)["x"]
    assert x.dtype == np.float32
    assert (x >= -1).all() and (x <= 1).all()
    assert (x == 0).any() and (x < 0).any() and ((x == -1) | (x == 1)).any()
    pixels = _arrays(extract("histogram.cpp", "histogram"), {"n": 4099}, 5)["pixels"]
    assert pixels.dtype == np.uint8 and pixels.min() == 0


def test_csr_structure_is_consistent() -> None:
    task = extract("spmv_csr.c", "spmv_csr")
    m, n, nnz = 67, 257, 1072
    values = _arrays(task, {"m": m, "n": n, "nnz": nnz}, 9)
    rp, ci = values["row_ptr"], values["col_idx"]
    assert rp.dtype == np.int32 and ci.dtype == np.int32
    assert rp.shape == (m + 1,) and ci.shape == (nnz,) and values["vals"].shape == (nnz,)
    assert rp[0] == 0 and rp[-1] == nnz and (np.diff(rp) >= 0).all()
    assert ci.min() >= 0 and ci.max() < n
    for row in range(m):
        cols = ci[rp[row] : rp[row + 1]]
        assert (np.diff(cols) > 0).all()


def test_graph_has_no_self_loops_or_repeated_edges() -> None:
    task = extract("pagerank.c", "pagerank_step")
    values = _arrays(task, {"n": 257, "e": 2056}, 4)
    offsets, sources = values["offsets"], values["sources"]
    assert offsets.dtype == np.int64 and sources.dtype == np.int32
    assert offsets[0] == 0 and offsets[-1] == 2056 and (np.diff(offsets) >= 0).all()
    for v in range(257):
        nbrs = sources[offsets[v] : offsets[v + 1]]
        assert v not in nbrs and len(set(nbrs.tolist())) == len(nbrs)
        assert ((nbrs >= 0) & (nbrs < 257)).all()
    degrees = values["out_degree"]
    assert degrees.min() >= 1 and degrees.max() <= 64


def _single(dist: Distribution, ctype: str = "int", length: str = "n") -> Task:
    base = extract("saxpy.c", "saxpy")
    arg = ArgSpec("v", ParamKind.POINTER, ctype, Role.IN, length, dist=dist)
    return replace(base, args=(arg,))


def test_permutation_sorted_const_and_image() -> None:
    perm = _arrays(_single(Distribution("permutation")), {"n": 1000}, 1)["v"]
    assert sorted(perm.tolist()) == list(range(1000))
    ordered = _arrays(_single(Distribution("sorted"), "float"), {"n": 1000}, 1)["v"]
    assert (np.diff(ordered) >= 0).all()
    const = _arrays(_single(Distribution("const", lo=3)), {"n": 5}, 1)["v"]
    assert const.tolist() == [3] * 5
    image = Distribution("image", params=(("width", "w"), ("height", "h"), ("channels", "3")))
    img = _arrays(_single(image, "uint8_t", "h*w*3"), {"h": 31, "w": 67}, 2)["v"]
    assert img.shape == (31 * 67 * 3,) and img.dtype == np.uint8 and img.max() > 100


def test_unsigned_ranges_are_clipped_and_empty_ranges_refused() -> None:
    values = _arrays(_single(Distribution("int", lo=-50, hi=50), "unsigned"), {"n": 500}, 1)["v"]
    assert values.dtype == np.uint32 and values.max() <= 50
    with pytest.raises(TaskError, match="holds no uint8 value"):
        generate_inputs(_single(Distribution("int", lo=300, hi=400), "uint8_t"), {"n": 3}, 1)


@given(st.lists(st.integers(min_value=-(2**62), max_value=2**62), max_size=200))
def test_sorted_unique_is_numpy_unique(values: list[int]) -> None:
    array = np.array(values, dtype=np.int64)
    assert np.array_equal(_sorted_unique(array), np.unique(array))
