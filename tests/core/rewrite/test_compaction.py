"""A compaction (``if (keep) out[at++] = value;``): flags, an exclusive scan of them, and a
scatter of each kept element to its position, loop after loop."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.compaction import Compaction
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
PARTITION = small_corpus_task(
    CORPUS / "sorting_selection_partition_i32_ptr.cpp", "stable_partition_i32", "1<<24", "5000"
)


def _task(body: str, before: str = "  int at = 0;\n", after: str = "  last[0] = at;\n") -> Task:
    """Values with repeats, a counter the loops advance, and its end read after them."""
    return unvalidated_task(
        "// regrapht: n = 5000; x[n] in ~ uniform(-1, 1); out[n] out; last[1] out\n"
        "void f(int n, const float* x, float* out, int* last) {\n"
        f"{before}{body}{after}}}\n",
        "f",
    )


TASKS = {
    "corpus stable partition": PARTITION,
    "a filter storing a function of the index": _task(
        "  for (int i = 0; i < n; ++i) {\n"
        "    if (x[i] > 0.25f && i % 3 != 0) out[at++] = x[i] * 2.0f + i;\n"
        "  }\n"
    ),
    "a counter that starts past a prefix": _task(
        "  for (int i = 0; i < n; ++i) if (i % 2 == 0 && x[i] < 0.0f) out[at++] = -x[i];\n",
        before="  int at = n / 2;\n  if (n > 0) out[0] = 1.5f;\n",
    ),
    "a 64-bit counter, three loops": _task(
        "  for (int i = 0; i < n; ++i) if (x[i] < -0.5f) out[at++] = x[i];\n"
        "  for (int i = 0; i < n; ++i) if (x[i] > 0.5f) out[at++] = x[i];\n"
        "  for (int i = 0; i < n; ++i) if (x[i] == 0.0f) out[at++] = 0.0f;\n",
        before="  long long at = 0;\n",
        after="  last[0] = static_cast<int>(at);\n",
    ),
}


def _code(task: Task) -> str:
    (candidate,) = Compaction().apply(task.source, RewriteContext(task))
    return candidate.code


def test_each_loop_flags_scans_and_scatters_in_order() -> None:
    code = _code(PARTITION)
    first = "#include <cub/device/device_scan.cuh>\n"
    assert code.startswith(first), "before any macro of the user's"
    assert "d_flags[i] = (x[i] < pivot) ? 1 : 0;" in code
    assert "d_flags[i] = (!(x[i] < pivot)) ? 1 : 0;" in code
    assert code.count("cub::DeviceScan::ExclusiveSum(temp, temp_bytes, d_flags") == 2
    assert "if (d_flags[i]) out[base + d_positions[i]] = x[i];" in code
    assert "at += last_position2 + last_flag2;" in code, (
        "the second loop starts where the first left"
    )
    # Past 32-bit positions, the loops as written run on the host.
    assert "if ((static_cast<long long>(n) <= 2147483647)) {" in code
    assert code.count("out[at++] = x[i];") == 2


def test_the_corpus_partitions_get_a_first_step() -> None:
    for task in (
        PARTITION,
        small_corpus_task(
            CORPUS / "sorting_selection_partition_f32_vec.cpp",
            "stable_partition_f32",
            "1<<24",
            "5000",
        ),
    ):
        code, message = first_step(task)
        assert code is not None, message
        assert "_put2<<<" in code


def test_loops_after_the_compactions_stay_on_the_host_after_them() -> None:
    task = _task(
        "  for (int i = 0; i < n; ++i) if (x[i] > 0.0f) out[at++] = x[i];\n"
        "  for (int i = 0; i < n; i += 1) if (x[i] > 0.5f) out[at++] = x[i];\n"
        "  for (int i = 1; i < n; ++i) if (x[i] < 0.0f) out[at++] = x[i];\n"
    )
    code = _code(task)
    assert "_put2<<<" in code and "_put3" not in code
    assert "for (int i = 1; i < n; ++i) if (x[i] < 0.0f) out[at++] = x[i];" in code


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("  for (int i = 0; i < n; ++i) if (x[i] > 0.0f) out[at++] = x[at];\n", "reads `at`"),
        ("  for (int i = 0; i < n; ++i) if (out[i] > 0.0f) out[at++] = x[i];\n", "reads `at`"),
        ("  for (int i = 0; i < n; ++i) if (x[i] > 0.0f) out[at] = x[i];\n", "not a compaction"),
        (
            "  for (int i = 0; i < n; ++i) if (x[i] > 0.0f) out[at++] = x[i]; else at++;\n",
            "not a compaction",
        ),
        ("  for (int i = 0; i < n; ++i) if (x[i] > 0.0f) out[at++] = x[i];\n", "not an integer"),
    ],
    ids=["value-reads-counter", "test-reads-output", "no-advance", "else", "float-counter"],
)
def test_other_loops_are_refused(body: str, reason: str) -> None:
    before = (
        "  float at = 0;\n" if "float-counter" in reason or reason == "not an integer" else None
    )
    task = _task(body, before=before or "  int at = 0;\n", after="  last[0] = (int)at;\n")
    assert reason in refusal_of(Compaction(), task, task.source)


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("name", TASKS)
def test_each_compaction_computes_what_the_loops_compute(name: str, tmp_path: Path) -> None:
    all_pass(TASKS[name], [_code(TASKS[name])], tmp_path)


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("name", TASKS)
def test_each_compaction_agrees_with_the_loops_on_the_gpu(name: str, tmp_path: Path) -> None:
    all_pass(TASKS[name], [_code(TASKS[name])], tmp_path, run=run_on_gpu)
