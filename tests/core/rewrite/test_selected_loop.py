"""One loop of several, selected by a line (``regrapht optimize --loop``, a code action on a
loop): only that loop becomes CUDA, the function's other loops and code stay on the host as
written. Candidates are checked for structure, with nvcc, and on the CPU emulator."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.task import LoopSelection, SourceLanguage, Task
from regrapht_core.cxx.functions import function_definitions, function_name, is_kernel
from regrapht_core.cxx.parse import node_text
from regrapht_core.cxx.syntax import parse
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.reduction import ParallelReduction
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import compile_cuda, requires_nvcc, run_on_cpu

TWO_MAPS = """\
// regrapht: n = 1<<16; x[n] in; y[n] out; z[n] out
void two_maps(int n, const float* x, float* y, float* z) {
    for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];
    const float shift = 1.5f;
    for (int i = 0; i < n; ++i) {
        z[i] = x[i] + shift;
    }
}
"""

SUM_THEN_SCALE = """\
// regrapht: n = 1<<16; x[n] in; y[n] out
float sum_then_scale(int n, const float* x, float* y) {
    float total = 0.0f;
    for (int i = 0; i < n; ++i) total += x[i];
    for (int i = 0; i < n; ++i) y[i] = x[i] * 0.5f;
    return total;
}
"""

VECTORS = """\
#include <vector>
// regrapht: n = 1<<16; x[n] inout; y[n] out
void offsets(std::vector<float>& x, std::vector<float>& y) {
    for (auto& e : x) e = e * 2.0f;
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] + 1.0f;
}
"""


def task_at(source: str, marker: str) -> Task:
    """The task for the function around the first line containing ``marker``."""
    line = next(n for n, text in enumerate(source.splitlines()) if marker in text)
    return extract_task(source, SourceLanguage.CPP, line=line, validate=False)


def kernels_and_entry(code: str, entry: str) -> tuple[list[str], str]:
    definitions = list(function_definitions(parse(code).root_node))
    kernels = [node_text(d) for d in definitions if is_kernel(d)]
    (host,) = (node_text(d) for d in definitions if function_name(d) == entry)
    return kernels, host


def first_step(task: Task) -> tuple[str, str]:
    """The code and producer the rewriters answer a parallelization step with."""
    proposal = rewriter_propose_fn()(
        ProposeRequest(task, "sequential", "parallelization", task.source)
    )
    assert proposal.code is not None, proposal.message
    return proposal.code, proposal.producer


def test_a_line_selects_its_top_level_loop_by_its_place_among_them() -> None:
    assert task_at(TWO_MAPS, "z[i] = x[i]").loop == LoopSelection(
        1, 2, "for (int i = 0; i < n; ++i)"
    )
    assert task_at(TWO_MAPS, "y[i] = 2.0f").loop == LoopSelection(
        0, 2, "for (int i = 0; i < n; ++i)"
    )
    assert task_at(TWO_MAPS, "const float shift").loop is None, "between loops: whole function"
    assert task_at(TWO_MAPS, "void two_maps").loop is None
    assert task_at(VECTORS, "y[i] = x[i]").loop == LoopSelection(
        1, 2, "for (size_t i = 0; i < x.size(); ++i)"
    ), "a range-for counts: the pointer form keeps it, as a counted loop"


def test_only_the_selected_loop_becomes_a_kernel() -> None:
    task = task_at(TWO_MAPS, "z[i] = x[i]")
    found = Parallelize().apply(task.source, RewriteContext(task))
    assert found
    for candidate in found:
        kernels, host = kernels_and_entry(candidate.code, "two_maps")
        assert len(kernels) == 1 and "z[i] = x[i] + shift;" in kernels[0]
        assert "for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];" in host, "stays on the host"
        assert "const float shift = 1.5f;" in host
        assert "top-level loop 2 of 2" in candidate.description
    other = task_at(TWO_MAPS, "y[i] = 2.0f")
    ((kernel,), host) = kernels_and_entry(first_step(other)[0], "two_maps")
    assert "y[i] = 2.0f * x[i];" in kernel and "z[i] = x[i] + shift;" in host


def test_without_a_selection_every_loop_is_mapped() -> None:
    task = extract_task(TWO_MAPS, SourceLanguage.CPP, function="two_maps", validate=False)
    assert task.loop is None
    kernels, _ = kernels_and_entry(first_step(task)[0], "two_maps")
    assert len(kernels) == 2


def test_a_selected_reduction_is_mapped_by_the_reduction_rewriter() -> None:
    task = task_at(SUM_THEN_SCALE, "total += x[i]")
    refused = Parallelize().applies(task.source, RewriteContext(task))
    assert not refused.ok and "reduction" in refused.reason
    code, producer = first_step(task)
    assert producer == "rewriter:warp_shuffle_reduction"
    ((kernel,), host) = kernels_and_entry(code, "sum_then_scale")
    assert "atomicAdd" in kernel
    assert "for (int i = 0; i < n; ++i) y[i] = x[i] * 0.5f;" in host
    mapped = task_at(SUM_THEN_SCALE, "y[i] = x[i] * 0.5f")
    assert not ParallelReduction().applies(mapped.source, RewriteContext(mapped)).ok
    ((kernel,), host) = kernels_and_entry(first_step(mapped)[0], "sum_then_scale")
    assert "y[i] = x[i] * 0.5f;" in kernel and "total += x[i];" in host


def test_the_selection_survives_the_pointer_form() -> None:
    task = task_at(VECTORS, "y[i] = x[i]")
    code, _ = first_step(task)
    ((kernel,), host) = kernels_and_entry(code, "offsets_impl")
    assert "y[i] = x[i] + 1.0f;" in kernel
    assert "for (size_t k = 0; k < x_size; ++k) (x[k]) = (x[k]) * 2.0f;" in host


def test_a_mapped_selection_is_not_looked_for_again() -> None:
    """After its step the selected loop is a kernel launch; a second parallelization must
    not take the next loop for it."""
    task = task_at(TWO_MAPS, "z[i] = x[i]")
    code, _ = first_step(task)
    again = Parallelize().applies(code, RewriteContext(task))
    assert not again.ok and "mapped already" in again.reason


@requires_nvcc
@pytest.mark.parametrize(
    ("source", "marker"),
    [
        (TWO_MAPS, "z[i] = x[i]"),
        (TWO_MAPS, "y[i] = 2.0f"),
        (SUM_THEN_SCALE, "total += x[i]"),
        (SUM_THEN_SCALE, "y[i] = x[i] * 0.5f"),
    ],
)
def test_selected_candidates_compile_and_compute_what_the_reference_computes(
    source: str, marker: str, tmp_path: Path
) -> None:
    task = task_at(source, marker)
    code, _ = first_step(task)
    compile_cuda(code, tmp_path)
    assert run_on_cpu(task, code, tmp_path) == "PASS"
