"""Finding what can be optimized under the cursor, and the function again after edits."""

from __future__ import annotations

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.document import (
    Document,
    DocumentCache,
    FunctionKind,
    Position,
    comment_block,
)
from tests.server.conftest import EXAMPLE, SOURCES

MIXED = """\
#include <cuda_runtime.h>

__device__ float sum(const float* a, int n) { float s = 0; while (n--) s += a[n]; return s; }
template <typename T> void zero(T* a, int n) { for (int i = 0; i < n; ++i) a[i] = 0; }
int main() { for (;;) {} }
namespace ns {
void inner(float* a, int n) { while (n--) a[n] = 0; }
}
void copy(float* a, const float* b) { a[0] = b[0]; }
__host__ __device__ void both(float* a, int n) { for (int i = 0; i < n; ++i) a[i] = 1; }
__global__ void k(float* a) { a[threadIdx.x] = 0; }
void overload(float* a, int n) { for (int i = 0; i < n; ++i) a[i] = 0; }
void overload(double* a, int n) { for (int i = 0; i < n; ++i) a[i] = 0; }
"""


def at(row: int, column: int) -> Position:
    return Position(row, column)


def parsed(source: str = MIXED, language: SourceLanguage = SourceLanguage.CUDA) -> Document:
    return Document(source, language)


@pytest.mark.parametrize(
    ("line", "name", "kind"),
    [
        (6, "inner", FunctionKind.LOOP),
        (9, "both", FunctionKind.LOOP),
        (10, "k", FunctionKind.KERNEL),
        (11, "overload", FunctionKind.LOOP),
    ],
)
def test_loops_and_kernels_are_eligible(line: int, name: str, kind: FunctionKind) -> None:
    function = parsed().eligible_at(at(line, 40))
    assert function is not None
    assert (function.name, function.span.start.row, function.kind) == (name, line, kind)


@pytest.mark.parametrize("line", [0, 1, 2, 3, 4, 5, 8])
def test_device_code_templates_main_and_loopless_functions_are_not(line: int) -> None:
    assert parsed().eligible_at(at(line, 30), at(line, 30)) is None


def test_a_selection_across_two_functions_is_not_eligible() -> None:
    assert parsed().eligible_at(at(11, 40), at(12, 40)) is None


def test_the_eligible_functions_of_a_document_in_order() -> None:
    found = parsed().eligible()
    assert [f.qualified_name for f in found] == ["ns::inner", "both", "k", "overload", "overload"]
    inner = found[0]
    assert inner.text.startswith("void inner(") and inner.text.endswith("}")
    assert inner.declarator == ((6, 5), (6, 27))


def test_qualified_names_follow_namespaces_classes_and_out_of_class_definitions() -> None:
    source = (
        "namespace a { namespace b {\n"
        "struct Grid { void step(float* v, int n) { for (int i = 0; i < n; ++i) v[i] = 0; } };\n"
        "} }\n"
        "void a::b::Grid::run(float* v, int n) { for (int i = 0; i < n; ++i) v[i] = 1; }\n"
    )
    names = [f.qualified_name for f in parsed(source, SourceLanguage.CPP).eligible()]
    assert names == ["a::b::Grid::step", "a::b::Grid::run"]


def test_columns_are_code_points() -> None:
    source = "/* 😋 é */ void f(float* a, int n) { for (int i = 0; i < n; ++i) a[i] = 0; }\n"
    doc = parsed(source, SourceLanguage.CPP)
    function = doc.eligible_at(at(0, 12))
    assert function is not None and function.name == "f"
    assert function.span.start == at(0, 10)
    assert source[10:].startswith("void f(")
    assert doc.end() == at(1, 0)


def test_locate_tells_overloads_apart_by_line() -> None:
    doc = parsed()
    located = doc.locate("overload", 12)
    assert located is not None and located.span.start.row == 12
    assert doc.locate("overload") is None
    located = doc.locate("inner")
    assert located is not None and located.span.start.row == 6
    assert doc.locate("copy") is None and doc.locate("missing") is None


def test_find_follows_a_function_whose_text_is_unchanged() -> None:
    source = EXAMPLE.read_text()
    before = parsed(source, SourceLanguage.CPP).locate("smooth")
    assert before is not None
    moved = parsed("// new line\n" + source, SourceLanguage.CPP).find("smooth", before.text)
    assert moved is not None and moved.span.start.row == before.span.start.row + 1
    changed = source.replace("acc += x[j]", "acc += 2 * x[j]")
    assert parsed(changed, SourceLanguage.CPP).find("smooth", before.text) is None


def test_a_function_value_leads_back_to_its_definition() -> None:
    doc = parsed()
    function = doc.locate("overload", 12)
    assert function is not None
    assert doc.definition(function).start_point.row == 12
    with pytest.raises(ValueError, match="not a function"):
        parsed("int x;\n").definition(function)


def test_a_parse_is_reused_while_the_version_is_unchanged() -> None:
    cache = DocumentCache()
    text = (SOURCES / "saxpy.c").read_text()
    first = cache.get("file:///a.c", 1, text, SourceLanguage.CPP)
    assert cache.get("file:///a.c", 1, text, SourceLanguage.CPP) is first
    assert cache.get("file:///a.c", 2, text, SourceLanguage.CPP) is not first
    cache.drop("file:///a.c")
    assert cache.get("file:///a.c", 2, text, SourceLanguage.CPP) is not first
    assert cache.get("file:///a.c", None, text, SourceLanguage.CPP) is not first


def test_comment_blocks_are_consecutive_line_comments() -> None:
    lines = ["int x;", "// a", "  // b", "void f();", "// c"]
    assert comment_block(lines, 3, above=True) == range(1, 3)
    assert comment_block(lines, 1, above=False) == range(1, 3)
    assert comment_block(lines, 0, above=True) == range(0, 0)
    assert comment_block(lines, 4, above=False) == range(4, 5)
