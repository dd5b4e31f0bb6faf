"""A loop that appends one element per iteration is sized first and written by index;
every other use of ``push_back`` (a compaction above all) is left to refuse as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.appends import appends_as_writes
from regrapht_core.tasks.validate import validate_task
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    unvalidated_task,
)

CXX = Path(__file__).parents[3] / "benchmarks" / "cxx"
ROOTS = unvalidated_task((CXX / "vec_sqrt_pushback.cpp").read_text(), "collect_roots")

HEAD = "#include <vector>\n#include <cstddef>\n"
SIGNATURE = "void f(const std::vector<float>& x, std::vector<float>& out) {\n"
LOOP = "  for (std::size_t i = 0; i < x.size(); ++i) {\n    BODY\n  }\n"


NOTE = "// regrapht: x[n] in; out[n] inout\n"
"""How long ``out`` may end: the analysis knows it only for one append per iteration."""


def _code(body: str, before: str = "  out.clear();\n", note: str = NOTE) -> str:
    return f"{HEAD}{note}{SIGNATURE}{before}{LOOP.replace('BODY', body)}}}\n"


def test_the_corpus_loop_is_sized_first_and_written_by_index() -> None:
    code = appends_as_writes(ROOTS.source, ROOTS, frozenset({"out"}))
    assert code is not None
    assert "push_back" not in code
    assert code.index("out.resize(out.size() + ") < code.index("for (")
    assert "out[out.size() - " in code


def test_the_first_step_maps_it() -> None:
    code, message = first_step(ROOTS)
    assert code is not None, message
    assert "__global__" in code and "out.resize(out.size() + " in code


@pytest.mark.parametrize(
    "body",
    [
        "if (x[i] > 0) out.push_back(x[i]);",  # a compaction: its length depends on the data
        "out.push_back(x[i]); out.push_back(-x[i]);",
        "out.push_back(x[i] + out.size());",  # reads what it appends to
        "out.push_back(x[i]); if (x[i] < 0) break;",
        "float v = x[i]; out.push_back(v); out[0] = v;",
    ],
    ids=["compaction", "twice", "reads-it", "breaks", "writes-it"],
)
def test_any_other_append_is_left_as_written(body: str) -> None:
    task = unvalidated_task(_code(body), "f")
    assert appends_as_writes(task.source, task, frozenset({"out"})) is None


def test_a_loop_after_other_work_keeps_the_refusal_that_quotes_the_users_append() -> None:
    task = unvalidated_task(_code("out.push_back(s * x[i]);", before="  float s = 2.0f;\n"), "f")
    code, message = first_step(task)
    assert code is None
    assert "`out.push_back(s * x[i])` changes or walks the container `out`" in message


def test_a_container_that_may_not_grow_is_left_as_written() -> None:
    task = unvalidated_task(_code("out.push_back(x[i]);"), "f")
    assert appends_as_writes(task.source, task, frozenset()) is None


@requires_nvcc
def test_the_candidate_compiles_with_nvcc(tmp_path: Path) -> None:
    code, message = first_step(ROOTS)
    assert code is not None, message
    compile_cuda(code, tmp_path)


APPEND = _code(
    "out.push_back(2.0f * x[i] - 1.0f);",
    before="",
    note="// regrapht: n = 1<<10; x[n] in; out[3] inout\n",
)
"""No ``clear``: the caller's three elements stay in front of the appended ones (unannotated,
how long ``out`` ends depends on the caller, and the task is refused)."""


RETURNED = unvalidated_task(
    HEAD
    + "#include <cmath>\n"
    + "std::vector<float> softplus(const std::vector<float>& x) {\n"
    + "  std::vector<float> out;\n"
    + "  for (std::size_t i = 0; i < x.size(); ++i) out.push_back(std::log1p(std::exp(x[i])));\n"
    + "  return out;\n}\n",
    "softplus",
)
"""A returned vector built by ``push_back``, unannotated: the task analysis reads its length
from the loop (``tasks.infer``), the rewriter sizes it first."""

RANGE_FOR = unvalidated_task(
    HEAD
    + "#include <cmath>\n"
    + "std::vector<double> roots(const std::vector<double>& x) {\n"
    + "  std::vector<double> out;\n"
    + "  for (const double& v : x) {\n    out.push_back(std::sqrt(std::fabs(v)));\n  }\n"
    + "  return out;\n}\n",
    "roots",
)
"""The same with a range-for: its trip count is the size of what it walks."""


@pytest.mark.parametrize("task", [RETURNED, RANGE_FOR], ids=["counted", "range-for"])
def test_a_returned_vector_built_by_push_back_is_mapped(task: Task) -> None:
    assert task.return_length == "n"
    code, message = first_step(task)
    assert code is not None, message
    assert "__global__" in code and "out.resize(out.size() + " in code


def test_a_range_for_becomes_a_counted_loop_over_what_it_walks() -> None:
    code = appends_as_writes(RANGE_FOR.source, RANGE_FOR, frozenset({"out"}))
    assert code is not None
    assert "out.resize(out.size() + x.size());" in code
    assert "for (std::size_t k = 0; k < x.size(); ++k) { const double& v = x[k]; {" in code
    assert "out[out.size() - x.size() + k] = std::sqrt(std::fabs(v));" in code


@pytest.mark.parametrize(
    "loop",
    [
        "for (float v : x) { if (v > 0) out.push_back(v); }",  # a compaction
        "for (float v : out) out.push_back(v);",  # walks what it grows
        "for (float v : x) { out.push_back(v); x.clear(); }",  # changes what it walks
        "for (float v : std::vector<float>(4)) out.push_back(v);",  # walks no named container
    ],
    ids=["compaction", "walks-itself", "changes-walked", "temporary"],
)
def test_a_range_for_that_is_not_one_append_per_element_is_left_as_written(loop: str) -> None:
    code = f"{HEAD}void f(std::vector<float>& x, std::vector<float>& out) {{\n  {loop}\n}}\n"
    entry_f = unvalidated_task(_code("out.push_back(x[i]);"), "f")
    assert appends_as_writes(code, entry_f, frozenset({"out"})) is None


@requires_nvcc
@pytest.mark.parametrize("task", [RETURNED, RANGE_FOR], ids=["counted", "range-for"])
def test_the_returned_vectors_candidate_compiles_with_nvcc(task: Task, tmp_path: Path) -> None:
    code, message = first_step(task)
    assert code is not None, message
    compile_cuda(code, tmp_path)


@pytest.mark.parametrize(
    "task",
    [ROOTS, unvalidated_task(APPEND, "f"), RETURNED, RANGE_FOR],
    ids=["roots", "append", "returned", "range-for"],
)
def test_the_rewritten_loop_computes_what_the_loop_computes(task: Task) -> None:
    written = appends_as_writes(task.source, task, frozenset({"out"}))
    assert written is not None
    sizes = [{"n": 1}, {"n": 37}]
    before = validate_task(task, sizes=sizes, seed=3)
    after = validate_task(replace(task, source=written), sizes=sizes, seed=3)
    for old, new in zip(before, after, strict=True):
        assert old.outputs.keys() == new.outputs.keys()
        for name, values in old.outputs.items():
            assert values.tolist() == new.outputs[name].tolist(), name
