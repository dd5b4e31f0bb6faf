"""A counting sort (count the keys, then write each key as often as it was counted): a
shared-memory histogram, then one thread per output element finding its bin in the scan."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.counting_sort import CountingSort
from regrapht_core.rewrite.protocol import RewriteContext
from tests.core.rewrite.support import (
    all_pass,
    first_step,
    refusal_of,
    requires_nvcc,
    run_on_gpu,
    small_corpus_task,
    unvalidated_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus" / "sorting_selection"
BYTES = small_corpus_task(
    CORPUS / "sorting_selection_countsort_u8_ptr.cpp", "counting_sort_u8", "1<<25", "5000"
)


def _task(write: str, prelude: str = "", keys: str = "int(0, 99)", bins: str = "100") -> Task:
    """Keys in a small range, so bins repeat and some stay empty; ``bins`` may be named."""
    return unvalidated_task(
        f"{prelude}// regrapht: n = 5000; keys[n] in ~ {keys}; out[n] out; last[1] out\n"
        "void f(int n, const int* keys, int* out, int* last) {\n"
        f"  int count[{bins}] = {{0}};\n"
        "  for (int i = 0; i < n; ++i) count[keys[i]] += 1;\n"
        "  int at = 0;\n"
        f"  for (int v = 0; v < {bins}; ++v) {{\n"
        "    for (int c = 0; c < count[v]; ++c) {\n"
        f"      {write}\n"
        "    }\n  }\n"
        "  last[0] = at * 1000 + count[7];\n}\n",
        "f",
    )


TASKS = {
    "corpus bytes": BYTES,
    "a value of the bin, the run's end read after": _task("out[at++] = 3 * v - 1;"),
    "named bins, two empty": _task(
        "out[at++] = v;", prelude="#define BINS 2000\n", keys="int(2, 1999)", bins="BINS"
    ),
}


def _code(task: Task) -> str:
    (candidate,) = CountingSort().apply(task.source, RewriteContext(task))
    return candidate.code


def test_the_histogram_is_shared_then_each_element_searches_its_bin() -> None:
    code = _code(BYTES)
    first = "#include <cub/block/block_scan.cuh>\n"
    assert code.startswith(first), "before any macro of the user's"
    assert "atomicAdd(&bins[key], 1u);" in code
    assert "Scan(temp).ExclusiveSum(items, items, total);" in code
    assert "out[p] = (unsigned char)v;" in code
    assert "for (int b = 0; b < 256; ++b) at += count[b];" in code, "the run's end, as after"


def test_the_corpus_counting_sort_gets_a_first_step() -> None:
    code, message = first_step(BYTES)
    assert code is not None, message
    assert "counting_sort_u8_fill<<<" in code


@pytest.mark.parametrize(
    ("write", "reason"),
    [
        ("out[at++] = v + keys[c];", "reads more than the bin"),
        ("out[at] = v;", "not a counting sort"),
    ],
    ids=["reads-data", "no-run"],
)
def test_other_writes_are_refused(write: str, reason: str) -> None:
    task = _task(write)
    assert reason in refusal_of(CountingSort(), task, task.source)


def test_bins_beyond_shared_memory_are_refused() -> None:
    task = _task("out[at++] = v;", bins="5000", keys="int(0, 4999)")
    assert "up to 4096 bins" in refusal_of(CountingSort(), task, task.source)


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("name", TASKS)
def test_each_counting_sort_computes_what_the_loops_compute(name: str, tmp_path: Path) -> None:
    all_pass(TASKS[name], [_code(TASKS[name])], tmp_path)


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("name", TASKS)
def test_each_counting_sort_agrees_with_the_loops_on_the_gpu(name: str, tmp_path: Path) -> None:
    all_pass(TASKS[name], [_code(TASKS[name])], tmp_path, run=run_on_gpu)
