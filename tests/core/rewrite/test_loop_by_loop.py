"""Entries with several top-level loops: each loop mapped by the rewriter that takes it.

The corpus's two-loop tasks (a histogram zeroed then filled, a minimum then its first
position, a mean then the spread, in-degrees counted after zeroing) were mapped loop by
loop by the map rewriter alone, which left the loop that needs atomics or a search on the
host: the first step was as slow as the sequential code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.task import ArgSpec, LoopSelection, ParamKind, Role, Task
from regrapht_core.cxx.entry import entry_loops
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import parse
from regrapht_core.rewrite.loop_by_loop import LoopByLoop
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.registry import default_registry
from regrapht_core.rewrite.sequential import split_entry
from tests.core.rewrite.cases import make_task
from tests.core.rewrite.support import (
    all_pass,
    first_step,
    requires_nvcc,
    run_on_gpu,
    small_corpus_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus"


HISTOGRAM = small_corpus_task(
    CORPUS / "histograms/histograms_binned_f64_skip_ptr.cpp", "histogram_skip_f64", "1<<24", "5000"
)
FIRSTMIN = small_corpus_task(
    CORPUS / "arg_reductions/arg_reductions_firstmin_f64_ptr.cpp", "firstmin_f64", "1<<24", "5000"
)
VARIANCE = small_corpus_task(
    CORPUS / "predicate_reductions/predicate_reductions_variance_f32_ptr.cpp",
    "variance_f32",
    "1<<24",
    "5000",
)
INDEGREE = small_corpus_task(
    CORPUS / "graph_steps/graph_steps_indegree_u32_ptr.cpp", "in_degrees", "1<<20", "300"
)
TASKS = [HISTOGRAM, FIRSTMIN, VARIANCE, INDEGREE]


def _loop_by_loop() -> LoopByLoop:
    (found,) = (r for r in default_registry()["parallelization"] if isinstance(r, LoopByLoop))
    return found


def _codes(task: Task) -> list[str]:
    return [c.code for c in _loop_by_loop().apply(task.source, RewriteContext(task))]


def test_a_histogram_is_zeroed_by_a_map_and_filled_by_privatized_then_plain_atomics() -> None:
    first, second = _loop_by_loop().apply(HISTOGRAM.source, RewriteContext(HISTOGRAM))
    for candidate in (first, second):
        assert candidate.code.count("__global__") >= 2
        assert "hist[b] = 0;" in candidate.code
        assert "loop 1: mapped each iteration" in candidate.description
    assert "__shared__" in first.code and "shared-memory copy" in first.description
    assert "__shared__" not in second.code and "atomicAdd(&hist[b]" in second.code


def test_a_first_position_of_the_minimum_is_a_reduction_then_a_search() -> None:
    (candidate,) = _loop_by_loop().apply(FIRSTMIN.source, RewriteContext(FIRSTMIN))
    assert "loop 1: reduced the loop (min of `lo`)" in candidate.description
    assert "loop 2: the first `i` with" in candidate.description


def test_the_first_step_of_a_two_loop_entry_maps_both_loops() -> None:
    code, message = first_step(HISTOGRAM)
    assert code is not None, message
    host = code[code.index("void histogram_skip_f64(") :]
    assert "for (int i = 0;" not in host, "the filling loop stays on the host"


_ARGS = (
    ArgSpec("x", ParamKind.POINTER, "float", length="n"),
    ArgSpec("y", ParamKind.POINTER, "float", Role.INOUT, length="n"),
    ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
)
_SIGNATURE = "void f(const float* x, float* y, int n)"


def _task(body: str) -> Task:
    return make_task("f", f"{_SIGNATURE} {{\n{body}\n}}\n", _SIGNATURE, _ARGS)


def _refusal(task: Task) -> str:
    with pytest.raises(Refusal) as refused:
        _loop_by_loop().build(task.source, RewriteContext(task), {})
    return refused.value.reason


def test_a_loop_no_rewriter_takes_stays_on_the_host_and_the_description_says_why() -> None:
    task = _task(
        "  for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];\n"
        "  for (int i = 1; i < n; ++i) y[i] = y[i - 1] + x[i] * y[i];"
    )
    (candidate,) = _loop_by_loop().apply(task.source, RewriteContext(task))
    assert "loop 2 stays on the host: " in candidate.description
    assert "loop-carried" in candidate.description
    assert candidate.code.count("__global__") == 1


def test_entries_with_no_loop_mapped_one_loop_or_a_selected_loop_are_refused() -> None:
    two = (
        "  for (int i = 1; i < n; ++i) y[i] = y[i - 1];\n"
        "  for (int i = 0; i < n; ++i) y[i / 2] = y[i] + x[i];"
    )
    assert "loop 1 stays on the host" in _refusal(_task(two))
    assert "loop 2 stays on the host" in _refusal(_task(two))
    assert "one top-level loop" in _refusal(_task("  for (int i = 0; i < n; ++i) y[i] = x[i];"))
    selected = replace(_task(two), loop=LoopSelection(1, 2, "for (int i = 0; i < n; ++i)"))
    assert "mapped alone" in _refusal(selected)


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("task", TASKS, ids=[t.entry for t in TASKS])
def test_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    codes = _codes(task)
    assert codes
    all_pass(task, codes, tmp_path)


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", TASKS, ids=[t.entry for t in TASKS])
def test_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    all_pass(task, _codes(task), tmp_path, run=run_on_gpu)


def test_the_corpus_entries_with_several_loops_map_29_whole() -> None:
    """The counts docs/rewriters.md quotes."""
    whole, part, refused = 0, 0, 0
    for entry in load_manifest(CORPUS / "manifest.toml"):
        task = entry.task()
        try:
            code, split = split_entry(task.source, task)
        except Refusal:  # no pointer form: not a loop rewriter's input at all
            continue
        if len(entry_loops(parse(code).root_node, split)) < 2:
            continue
        found = _loop_by_loop().apply(task.source, RewriteContext(task))
        if not found:
            refused += 1
        elif "stays on the host" in found[0].description:
            part += 1
        else:
            whole += 1
    assert (whole, part, refused) == (29, 0, 5)


class _KeepsTheLoop(RefusingRewriter):
    """A rewriter whose answer leaves the entry's loops as they were (host code of its own
    with a loop of its own would do the same to the count)."""

    technique = "parallelization"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        return [RewriteCandidate(code + "\n", "kept the loop")]


def test_an_answer_that_does_not_remove_its_loop_is_dropped() -> None:
    """The next loop is found by its position among those left: an answer that leaves as
    many loops would make the next step rewrite the wrong one."""
    keeps = _KeepsTheLoop()
    task = _task(
        "  for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];\n"
        "  for (int i = 0; i < n; ++i) y[i] += 1.0f;"
    )
    with pytest.raises(Refusal) as refused:
        LoopByLoop([keeps], explains=keeps).build(task.source, RewriteContext(task), {})
    assert "loop 1 stays on the host: its rewrites change the entry's other" in refused.value.reason
