"""Integer variables declared by deduction (``auto i = 0u``, ``decltype(n) i``) are written
with the type the language gives them, so the analysis can name a loop counter's type."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.counters import spell_deduced_counters
from regrapht_core.cxx.parse import parse_source
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


def _spelled(body: str) -> str:
    source = (
        "#include <vector>\n#include <string>\n"
        "void f(const std::vector<float>& x, std::string s, int m, const long c, float* p) {\n"
        f"  {body}\n}}\n"
    )
    function = parse_source(source, SourceLanguage.CPP).root_node.named_children[-1]
    written = spell_deduced_counters(source, function)
    assert written.count("\n") == source.count("\n"), "lines keep their numbers"
    return written.splitlines()[-2].strip()


@pytest.mark.parametrize(
    ("body", "spelled"),
    [
        ("for (auto i = 0; i < m; ++i) p[i] = 0;", "for (int i = 0; i < m; ++i) p[i] = 0;"),
        ("for (auto i = 0u; i < m; ++i);", "for (unsigned int i = 0u; i < m; ++i);"),
        ("for (auto i = 0UL; i < m; ++i);", "for (unsigned long i = 0UL; i < m; ++i);"),
        ("for (auto i = 0ll; i < m; ++i);", "for (long long i = 0ll; i < m; ++i);"),
        ("for (auto i = 0x10; i < m; ++i);", "for (int i = 0x10; i < m; ++i);"),
        ("const auto n = x.size();", "const std::size_t n = x.size();"),
        ("auto n = s.size();", "std::size_t n = s.size();"),
        (
            "auto n = x.size(); for (decltype(n) i = 0; i < n; i++);",
            "std::size_t n = x.size(); for (std::size_t i = 0; i < n; i++);",
        ),
        ("for (decltype(m) i = 0; i < m; i++);", "for (int i = 0; i < m; i++);"),
        (
            "unsigned short k = 3; for (decltype(k) i = 0; i < k; i++);",
            "unsigned short k = 3; for (unsigned short i = 0; i < k; i++);",
        ),
    ],
    ids=[
        "int",
        "unsigned",
        "unsigned-long",
        "long-long",
        "hex",
        "const-size",
        "string-size",
        "decltype-of-size",
        "decltype-of-parameter",
        "decltype-of-local",
    ],
)
def test_a_deduced_integer_is_written_with_its_type(body: str, spelled: str) -> None:
    assert _spelled(body) == spelled


@pytest.mark.parametrize(
    "body",
    [
        "for (auto i = 3000000000; i < m; ++i);",
        "for (auto i = m; i < 9; ++i);",
        "for (auto i = 0.0f; i < m; ++i);",
        "for (decltype(c) i = 0; i < c; ++i);",
        "for (decltype(p) q = p; q < p + m; ++q);",
        "for (decltype(m + 1) i = 0; i < m; ++i);",
        "auto n = x.size() - 1;",
        "struct Box { int size() const { return 3; } } b; auto n = b.size();",
        "decltype(b) a = 0; decltype(a) b = 0;",
    ],
    ids=[
        "too-large-for-int",
        "not-a-literal",
        "floating",
        "const-variable",
        "pointer",
        "expression",
        "size-arithmetic",
        "not-a-standard-container",
        "circular",
    ],
)
def test_other_declarations_are_left_as_written(body: str) -> None:
    """Where the type is not plain from the text, the user's spelling stays, and so does
    the refusal quoting it."""
    source = f"void f(float* p, int m, const long c) {{\n  {body}\n}}\n"
    function = parse_source(source, SourceLanguage.CPP).root_node.named_children[-1]
    assert spell_deduced_counters(source, function) == source


DECLTYPE = """#include <vector>
#include <cstddef>
// regrapht: n = 4099
void saxpy(float a, const std::vector<float>& x, std::vector<float>& y) {
    auto n = x.size();
    for (decltype(n) i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
"""

AUTO_UNSIGNED = """#include <vector>
// regrapht: n = 4099
void threshold(const std::vector<unsigned char>& img, std::vector<unsigned char>& out,
               unsigned char t) {
    const auto n = img.size();
    for (auto i = 0u; i < n; ++i) out[i] = img[i] > t ? 255 : 0;
}
"""


@requires_nvcc
@pytest.mark.parametrize(
    ("source", "function"), [(DECLTYPE, "saxpy"), (AUTO_UNSIGNED, "threshold")]
)
def test_deduced_counters_get_a_kernel_that_computes_the_loop(
    source: str, function: str, tmp_path: Path
) -> None:
    """Both were refused: "the loop variable is not of an integer type"."""
    task = unvalidated_task(source, function)
    assert "__global__" in first_step_computes(task, tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_a_deduced_counter_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    task = unvalidated_task(AUTO_UNSIGNED, "threshold")
    first_step_computes(task, tmp_path, run=run_on_gpu)
