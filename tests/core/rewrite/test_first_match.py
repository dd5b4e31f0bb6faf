"""The first-match rewriter: a loop that stops at the first index whose condition holds
becomes a min-reduction of the matching indices; other early exits are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.first_match import FirstMatch
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
)


def above(threshold: str) -> Task:
    return extract_task(
        f"// regrapht: n = 20000; t = {threshold}; x[n] in ~ uniform(0, 1)\n"
        "int find_first_above(int n, float t, const float* x) {\n"
        "  int found = -1;\n"
        "  for (int i = 0; i < n; ++i) {\n"
        "    if (x[i] > t) {\n"
        "      found = i;\n"
        "      break;\n"
        "    }\n"
        "  }\n"
        "  return found;\n"
        "}\n",
        "cpp",
        function="find_first_above",
    )


ABOVE, NONE = above("0.25"), above("2.0")
"""Most elements match: a thread whose later elements match too must still report its first."""
INDEX_OF = extract_task(
    "// regrapht: n = 1000; key = 7; x[n] in ~ int(0, 40)\n"
    "int index_of(int n, const int* x, int key) {\n"
    "  for (int i = 0; i < n; ++i)\n"
    "    if (x[i] == key) return i;\n"
    "  return -1;\n"
    "}\n",
    "cpp",
    function="index_of",
)


def below_from_the_end(threshold: str, header: str = "int i = n - 1; i >= 0; --i") -> Task:
    """The last element below the threshold, searched from the end."""
    return extract_task(
        f"// regrapht: n = 20000; t = {threshold}; x[n] in ~ uniform(0, 1)\n"
        "int find_last_below(int n, float t, const float* x) {\n"
        "  int found = -1;\n"
        f"  for ({header}) {{\n"
        "    if (x[i] < t) {\n"
        "      found = i;\n"
        "      break;\n"
        "    }\n"
        "  }\n"
        "  return found;\n"
        "}\n",
        "cpp",
        function="find_last_below",
    )


BELOW, BELOW_NONE = below_from_the_end("0.75"), below_from_the_end("-1.0")
"""Most elements match: a thread whose earlier elements match too must report its last."""
BELOW_PAST_FIRST = below_from_the_end("0.75", "int i = n - 1; i > 0; i--")
"""``i > 0``: index 0 is never tested."""
RUNS = [ABOVE, NONE, INDEX_OF, BELOW, BELOW_NONE, BELOW_PAST_FIRST]
RUN_IDS = ["above", "none", "index_of", "below from the end", "none below", "i > 0"]


def searched(task: Task) -> str:
    (candidate,) = FirstMatch().apply(task.source, RewriteContext(task))
    return candidate.code


def refusal(body: str) -> str:
    task = extract_task(
        "// regrapht: n = 1000; t = 0.5; x[n] in\n"
        "int find(int n, float t, const float* x) {\n"
        "  int found = -1;\n"
        f"  for (int i = 0; i < n; ++i) {{ {body} }}\n"
        "  return found;\n"
        "}\n",
        "cpp",
        function="find",
    )
    return FirstMatch().applies(task.source, RewriteContext(task)).reason


def test_a_first_match_search_becomes_a_min_reduction_of_the_matching_indices() -> None:
    code, message = first_step(ABOVE)
    assert code is not None, message
    kernel = code[: code.index("int find_first_above(")]
    assert "if (i < first) first = i;" in kernel and "atomicMin(first_total, first);" in kernel
    assert "break" not in kernel
    assert "if (first != std::numeric_limits<int>::max()) found = first;" in code


def test_a_search_that_returns_its_index_returns_the_minimum() -> None:
    code = searched(INDEX_OF)
    assert "if (first != std::numeric_limits<int>::max()) return first;" in code
    assert code.index("return first;") < code.index("return -1;")


def test_a_search_from_the_end_becomes_a_max_reduction_over_the_same_indices() -> None:
    code = searched(BELOW)
    assert "int last = std::numeric_limits<int>::min();" in code
    assert "if (i > last) last = i;" in code
    assert "if (last != std::numeric_limits<int>::min()) found = last;" in code
    assert "i < ((n - 1) + 1)" in code
    past_first = searched(BELOW_PAST_FIRST)
    assert "for (int i = ((0) + 1) + blockIdx.x * blockDim.x + threadIdx.x;" in past_first


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("if (x[i] > t) { found = i; break; } else { found = 0; }", "not a first-match"),
        ("if (x[i] > t) { found = i + 1; break; }", "not a first-match"),
        ("if (x[i] > t && found < 0) { found = i; break; }", "reads `found`"),
        ("x[i] > t; if (x[i] > t) { found = i; break; }", "not a first-match"),
        ("if (x[i] > t) return 2 * i;", "not its index"),
    ],
)
def test_other_early_exits_are_refused_with_the_reason(body: str, reason: str) -> None:
    assert reason in refusal(body)


@requires_nvcc
def test_the_candidates_compile_with_nvcc(tmp_path: Path) -> None:
    compile_cuda(searched(ABOVE), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", RUNS, ids=RUN_IDS)
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    assert run_on_cpu(task, searched(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", RUNS, ids=RUN_IDS)
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    assert run_on_gpu(task, searched(task), tmp_path) == "PASS"
