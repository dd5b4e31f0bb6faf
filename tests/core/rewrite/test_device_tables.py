"""Namespace-scope constant arrays (filter taps, weights): the loop that reads them moves to
the device with them, as ``__device__ const`` arrays initialised as written.

Device code cannot see a host array, so every rewriter refused these loops: 17 corpus
tasks, the largest class of the corpus's refusals (stencils with symmetric weights, 3x3
image filters, 27-point 3-D stencils)."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.task import ArgSpec, ParamKind, Role, Task
from regrapht_core.cxx.symbols import file_symbols
from regrapht_core.cxx.syntax import parse
from regrapht_core.verify.gate import check
from tests.core.rewrite.cases import make_task
from tests.core.rewrite.support import (
    all_pass,
    compile_cuda,
    first_code,
    first_step,
    requires_nvcc,
    run_on_gpu,
    small_corpus_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus"
TAPS = small_corpus_task(
    CORPUS / "stencil1d/stencil1d_sym5_clamp_f32_ptr.cpp", "smooth5_clamped", "1<<22", "3000"
)
GAUSS = small_corpus_task(
    CORPUS / "image_filters/image_filters_gauss3_interior_u8_ptr.cpp", "gaussian3x3", "2048", "40"
)
TASKS = [TAPS, GAUSS]

_ARGS = (
    ArgSpec("x", ParamKind.POINTER, "float", length="n"),
    ArgSpec("y", ParamKind.POINTER, "float", Role.INOUT, length="n"),
    ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
)
_SIGNATURE = "void f(const float* x, float* y, int n)"
_TABLE = "constexpr float kW[3] = {0.25f, 0.5f, 0.25f};\n"


def _task(body: str, before: str = _TABLE) -> Task:
    return make_task("f", f"{before}{_SIGNATURE} {{\n{body}\n}}\n", _SIGNATURE, _ARGS)


def test_the_table_moves_to_the_device_as_written() -> None:
    code, message = first_step(
        _task("  for (int i = 1; i < n - 1; ++i)\n    y[i] = kW[0] * x[i - 1] + kW[2] * x[i + 1];")
    )
    assert code is not None, message
    assert "__device__ const float kW[3] = {0.25f, 0.5f, 0.25f};" in code
    assert "constexpr float kW" not in code


def test_a_table_host_code_also_reads_stays_and_the_refusal_says_why() -> None:
    body = "  for (int i = 0; i < n; ++i) y[i] = kW[1] * x[i];\n  y[0] = kW[0];"
    code, message = first_step(_task(body))
    assert code is None
    assert "`kW`, a constant array that code outside the loop also reads" in message
    other = _TABLE + "float g() { return kW[2]; }\n"
    code, message = first_step(_task("  for (int i = 0; i < n; ++i) y[i] = kW[1] * x[i];", other))
    assert code is None and "`kW`" in message


def test_a_table_two_loops_read_stays_on_the_host_with_both() -> None:
    """Each loop sees the other read it on the host; mapped one by one, neither may take
    it to the device, and the entry keeps both loops."""
    body = (
        "  for (int i = 0; i < n; ++i) y[i] = kW[1] * x[i];\n"
        "  for (int i = 0; i < n; ++i) y[i] += kW[0];"
    )
    code, message = first_step(_task(body))
    assert code is None
    assert "loop 1 stays on the host: the loop uses `kW`, a constant array" in message
    assert "loop 2 stays on the host: the loop uses `kW`, a constant array" in message


def test_a_mutable_table_is_still_refused() -> None:
    """Only arrays const all the way: a mutable one could carry state, and the device
    could not see the host's writes to it."""
    code, message = first_step(
        _task("  for (int i = 0; i < n; ++i) y[i] = kW[1] * x[i];", "float kW[3] = {1, 2, 3};\n")
    )
    assert code is None
    assert "device code cannot see" in message


def test_every_corpus_entry_with_a_table_now_has_a_first_step_the_gate_accepts() -> None:
    """The 17 corpus entries refused for their tables; each candidate passes the
    verifier's gate (a `__device__` global must be const all the way down)."""
    tabled = [
        e
        for e in load_manifest(CORPUS / "manifest.toml")
        if file_symbols(parse(e.task().source).root_node).tables
    ]
    opened = []
    for entry in tabled:
        task = entry.task()
        code, _ = first_step(task)
        if code is not None and "__device__ const" in code:
            assert not check(code, task).violations, entry.name
            opened.append(entry.name)
    assert len(opened) == 17
    assert len(tabled) == 17


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.entry)
def test_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    all_pass(task, [first_code(task)], tmp_path)


@pytest.mark.slow
@requires_nvcc
def test_a_27_point_stencils_weights_compile_for_the_device(tmp_path: Path) -> None:
    """Indexed by how far a neighbour lies (``kWeight[|dx| + |dy| + |dz|]``): nvcc takes
    the table in device code."""
    entry = next(
        e
        for e in load_manifest(CORPUS / "manifest.toml")
        if e.name == "stencil3d_twentyseven_f32_vec"
    )
    compile_cuda(first_code(entry.task()), tmp_path)


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.entry)
def test_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    all_pass(task, [first_code(task)], tmp_path, run=run_on_gpu)
