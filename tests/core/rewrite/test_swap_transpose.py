"""A square matrix transposed in place by swaps across the diagonal: pairs of mirror tiles,
each read into shared memory and written back transposed into the other's place."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.swap_transpose import InPlaceTranspose
from tests.core.rewrite.support import (
    all_pass,
    first_step,
    refusal_of,
    requires_nvcc,
    run_on_gpu,
    small_corpus_task,
    unvalidated_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus" / "transpose_layout"
POINTERS = small_corpus_task(
    CORPUS / "transpose_layout_inplace_f32_ptr.cpp", "transpose_inplace", "3072", "70"
)


def _task(inner: str, body: str, kind: str = "float") -> Task:
    """Orders from 1 to 70: tiles on and off the diagonal, full and cut by the edge."""
    task = unvalidated_task(
        "#include <utility>\n"
        "// regrapht: n = 70; m[n*n] inout ~ uniform(-1, 1)\n"
        f"void f(int n, {kind}* m) {{\n"
        f"  for (int r = 0; r < n; ++r) {{\n    for ({inner}) {{ {body} }}\n  }}\n}}\n",
        "f",
    )
    return replace(task, correctness_sizes=({"n": 1}, {"n": 31}, {"n": 33}, {"n": 70}))


_TEMPORARY = "const double t = m[r * n + c]; m[r * n + c] = m[c * n + r]; m[c * n + r] = t;"
TASKS = {
    "upper, temporary": _task("int c = r + 1; c < n; ++c", _TEMPORARY, "double"),
    "upper from the diagonal, std::swap": _task(
        "int c = r; c < n; ++c", "std::swap(m[c * n + r], m[n * r + c]);"
    ),
    "lower, std::swap": _task("int c = 0; c < r; ++c", "std::swap(m[r * n + c], m[c * n + r]);"),
    "corpus": POINTERS,
}


def _code(task: Task) -> str:
    (candidate,) = InPlaceTranspose().apply(task.source, RewriteContext(task))
    return candidate.code


def test_mirror_tiles_are_read_then_written_into_each_others_place() -> None:
    code = _code(POINTERS)
    assert "__shared__ float mirror[32][33];" in code
    assert "if (blockIdx.x < blockIdx.y) return;" in code
    assert "= tile[threadIdx.x][k];" in code
    assert "const dim3 grid(tiles, tiles);" in code


def test_the_corpus_in_place_transpose_gets_a_first_step() -> None:
    code, message = first_step(POINTERS)
    assert code is not None, message
    assert "transpose_inplace_transpose_tiles<<<grid, block>>>(n, d_a);" in code


@pytest.mark.parametrize(
    ("inner", "body", "reason"),
    [
        # every pair swapped twice: the matrix comes back as it was
        ("int c = 0; c < n; ++c", "std::swap(m[r * n + c], m[c * n + r]);", "one triangle"),
        ("int c = r + 1; c < n; ++c", "std::swap(m[r * n + c], m[c * n + c]);", "mirror"),
        ("int c = r + 1; c < n; ++c", "m[r * n + c] = m[c * n + r];", "not an in-place"),
    ],
    ids=["both-triangles", "not-the-mirror", "copy-not-swap"],
)
def test_other_nests_are_refused(inner: str, body: str, reason: str) -> None:
    task = _task(inner, body)
    assert reason in refusal_of(InPlaceTranspose(), task, task.source)


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("name", TASKS)
def test_each_transpose_computes_what_the_loop_computes(name: str, tmp_path: Path) -> None:
    all_pass(TASKS[name], [_code(TASKS[name])], tmp_path)


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("name", TASKS)
def test_each_transpose_agrees_with_the_loop_on_the_gpu(name: str, tmp_path: Path) -> None:
    all_pass(TASKS[name], [_code(TASKS[name])], tmp_path, run=run_on_gpu)
