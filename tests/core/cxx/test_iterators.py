"""An iterator loop over a container (``for (auto it = v.begin(); it != v.end(); ++it)``)
is written as the index loop it is, so the analysis can read the container's role and
length."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.cxx.iterators import index_iterators
from tests.core.cxx.support import each_rewritten, printed_by, renamed, rewritten
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)

HEAD = "#include <vector>\nstruct P { float x, y; };\n"


def _source(body: str) -> str:
    params = "std::vector<float>& v, std::vector<P>& ps, const std::vector<int>& w"
    return f"{HEAD}void f({params}) {{\n{body}\n}}\n"


@pytest.mark.parametrize(
    ("body", "written"),
    [
        (
            "for (auto it = v.begin(); it != v.end(); ++it) *it *= 2;",
            "for (std::size_t it = 0; it < v.size(); ++it) v[it] *= 2;",
        ),
        (
            "for (std::vector<P>::iterator p = ps.begin(); p < ps.end(); p++) p->x = p->y;",
            "for (std::size_t p = 0; p < ps.size(); ++p) ps[p].x = ps[p].y;",
        ),
        (
            "for (auto it = w.cbegin(); it != w.cend(); ++it) v[it - w.begin()] = *it;",
            "for (std::size_t it = 0; it < w.size(); ++it) v[it] = w[it];",
        ),
    ],
    ids=["dereferenced", "arrow-and-less-than", "index-by-difference"],
)
def test_an_iterator_loop_is_its_index_loop(body: str, written: str) -> None:
    assert rewritten(_source(body), index_iterators).splitlines()[3].strip() == written


@pytest.mark.parametrize(
    "body",
    [
        "for (auto it = v.begin(); it != v.end(); ++it) std::iter_swap(it, v.begin());",
        "for (auto it = v.begin(); it != v.end(); ++it) if (it != v.begin()) *it = it[-1];",
        "for (auto it = v.begin(); it != v.end(); it += 2) *it = 0;",
        "for (auto it = v.begin(); it != w.end(); ++it) *it = 0;",
        "for (auto it = v.begin() + 1; it != v.end(); ++it) *it = 0;",
        "for (auto it = v.begin(); it != v.end(); ++it) { v.push_back(*it); }",
        "auto it = v.begin();\nfor (it = v.begin(); it != v.end(); ++it) *it = 0;",
        "for (auto it = v.begin(); it != v.end(); ++it) { auto jt = it; *jt = 0; }",
        "auto* p = &v;\nfor (auto it = p->begin(); it != p->end(); ++it) *it = 0;",
    ],
    ids=[
        "passed-on",
        "compared-and-subscripted",
        "steps-by-two",
        "another-end",
        "offset-start",
        "grows-the-container",
        "declared-outside",
        "copied",
        "through-a-pointer",
    ],
)
def test_other_iterator_loops_are_left_as_written(body: str) -> None:
    source = _source(body)
    assert rewritten(source, index_iterators) == source


LOOPS = (
    "#include <cstdio>\n#include <vector>\n"
    "void twice(std::vector<int>& v) { for (auto it = v.begin(); it != v.end(); ++it) *it *= 2; }\n"
    "long weigh(const std::vector<int>& v) { long s = 0;\n"
    "  for (auto it = v.cbegin(); it != v.cend(); it++) s += *it * (it - v.cbegin()); return s; }\n"
)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_index_loops_compute_what_the_iterator_loops_do(tmp_path: Path) -> None:
    names = ("twice", "weigh")
    written = each_rewritten(LOOPS, names, index_iterators)
    assert written.count("std::size_t it = 0") == 2
    main = (
        "int main() { int bad = 0;\n"
        "  for (int n = 0; n <= 30; ++n) {\n"
        "    std::vector<int> a(n), b; for (int k = 0; k < n; ++k) a[k] = k * 37 % 11 - 5;\n"
        "    b = a; twice(a); x_twice(b); bad += a != b || weigh(a) != x_weigh(a);\n"
        "  }\n"
        '  std::printf("%d\\n", bad); return bad != 0; }\n'
    )
    program = LOOPS + renamed(written, names).split("\n", 2)[2] + main
    assert printed_by(program, tmp_path) == "0"


DOUBLE = """#include <vector>
// regrapht: n = 4099
void double_all(std::vector<int>& v) {
    for (auto it = v.begin(); it != v.end(); ++it) *it *= 2;
}
"""


@requires_nvcc
def test_an_iterator_loop_gets_a_kernel_that_computes_it(tmp_path: Path) -> None:
    """It was refused: the role and length of ``v`` could not be inferred (its method
    ``begin`` is called)."""
    assert "__global__" in first_step_computes(unvalidated_task(DOUBLE, "double_all"), tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_iterator_loop_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    first_step_computes(unvalidated_task(DOUBLE, "double_all"), tmp_path, run=run_on_gpu)
