"""Finding what can be optimized under the cursor, and the function again after edits."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from regrapht_server.regions import ParseCache, Parsed, comment_block, document_language

from regrapht_core.contracts.task import SourceLanguage

from .conftest import EXAMPLE, SOURCES

CODEC = PositionCodec()
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


def at(line: int, character: int) -> types.Position:
    return types.Position(line, character)


def parsed(source: str = MIXED, language: SourceLanguage = SourceLanguage.CUDA) -> Parsed:
    return Parsed(source, language, CODEC)


@pytest.mark.parametrize(
    ("language_id", "path", "expected"),
    [
        ("cpp", "/x/a.txt", SourceLanguage.CPP),
        ("c", "/x/a.c", SourceLanguage.CPP),
        ("cuda-cpp", "/x/a.cpp", SourceLanguage.CUDA),
        ("python", "/x/a.cu", None),
        (None, "/x/a.cuh", SourceLanguage.CUDA),
        (None, "/x/a.hpp", SourceLanguage.CPP),
        (None, "/x/a.py", None),
    ],
)
def test_the_language_id_decides_and_the_suffix_is_the_fallback(
    language_id: str | None, path: str, expected: SourceLanguage | None
) -> None:
    assert document_language(path, language_id) is expected


@pytest.mark.parametrize(("line", "name"), [(6, "inner"), (9, "both"), (10, "k"), (11, "overload")])
def test_loops_and_kernels_are_regions(line: int, name: str) -> None:
    region = parsed().region_at(at(line, 40), at(line, 40))
    assert region is not None
    assert (region.name, region.row) == (name, line)


@pytest.mark.parametrize("line", [0, 1, 2, 3, 4, 5, 8])
def test_device_code_templates_main_and_loopless_functions_are_not(line: int) -> None:
    assert parsed().region_at(at(line, 30), at(line, 30)) is None


def test_a_selection_across_two_functions_is_not_a_region() -> None:
    assert parsed().region_at(at(11, 40), at(12, 40)) is None


def test_positions_count_in_the_clients_units() -> None:
    source = "/* 😋 */ void f(float* a, int n) { for (int i = 0; i < n; ++i) a[i] = 0; }\n"
    doc = parsed(source, SourceLanguage.CPP)
    region = doc.region_at(at(0, 12), at(0, 12))  # UTF-16: the emoji is two units
    assert region is not None and region.name == "f"
    assert doc.range(region.node).start == at(0, 9)
    utf8 = Parsed(source, SourceLanguage.CPP, PositionCodec(types.PositionEncodingKind.Utf8))
    assert utf8.range(region.node).start == at(0, 11)
    assert doc.end() == at(1, 0)


def test_locate_tells_overloads_apart_by_line() -> None:
    doc = parsed()
    assert doc.locate("overload", 12) is not None
    located = doc.locate("overload", 12)
    assert located is not None and located.row == 12
    assert doc.locate("overload") is None
    located = doc.locate("inner")
    assert located is not None and located.row == 6
    assert doc.locate("copy") is None and doc.locate("missing") is None


def test_find_follows_a_function_whose_text_is_unchanged() -> None:
    source = EXAMPLE.read_text()
    before = parsed(source, SourceLanguage.CPP).locate("smooth")
    assert before is not None
    moved = parsed("// new line\n" + source, SourceLanguage.CPP).find("smooth", before.text)
    assert moved is not None and moved.row == before.row + 1
    changed = source.replace("acc += x[j]", "acc += 2 * x[j]")
    assert parsed(changed, SourceLanguage.CPP).find("smooth", before.text) is None


def test_a_parse_is_reused_while_the_version_is_unchanged() -> None:
    cache = ParseCache()
    text = (SOURCES / "saxpy.c").read_text()
    first = cache.get("file:///a.c", 1, text, SourceLanguage.CPP, CODEC)
    assert cache.get("file:///a.c", 1, text, SourceLanguage.CPP, CODEC) is first
    assert cache.get("file:///a.c", 2, text, SourceLanguage.CPP, CODEC) is not first
    cache.drop("file:///a.c")
    assert cache.get("file:///a.c", 2, text, SourceLanguage.CPP, CODEC) is not first


def test_comment_blocks_are_consecutive_line_comments() -> None:
    lines = ["int x;", "// a", "  // b", "void f();", "// c"]
    assert comment_block(lines, 3, above=True) == range(1, 3)
    assert comment_block(lines, 1, above=False) == range(1, 3)
    assert comment_block(lines, 0, above=True) == range(0, 0)
    assert comment_block(lines, 4, above=False) == range(4, 5)
