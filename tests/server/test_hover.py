"""Hover finds the record above a function, or follows a pointer comment to it."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from regrapht_server.hover import hover_markdown
from regrapht_server.regions import Parsed

from regrapht_core.contracts.task import SourceLanguage

HEADER = (
    "// ReGraphT: compiled only - not run, not timed (no GPU was available)\n"
    "//   techniques: Parallelization\n"
    "//   model: m; candidates tried: 1\n"
)
CUDA = f"// regrapht: n = 1<<20; v[n] inout\n{HEADER}void f(int n, float* v) {{\n    g(v);\n}}\n"
CPP = (
    "// regrapht: n = 1<<20; v[n] inout\n"
    "// ReGraphT CUDA version: f.regrapht.cu (compiled only - not run, not timed)\n"
    "void f(int n, float* v) {\n"
    "    for (int i = 0; i < n; ++i) v[i] = 0;\n"
    "}\n"
)


def hover(source: str, line: int, files: dict[str, str] | None = None) -> str | None:
    language = SourceLanguage.CPP if files is not None else SourceLanguage.CUDA
    parsed = Parsed(source, language, PositionCodec())
    return hover_markdown(parsed, types.Position(line, 5), (files or {}).get)


def test_the_function_below_a_header_and_the_whole_comment_block_show_it() -> None:
    for line in range(6):
        text = hover(CUDA, line)
        assert text is not None and "1. Parallelization" in text, line
    assert hover(CUDA + "\nvoid h() {}\n", 7) is None


def test_a_pointer_comment_shows_the_record_of_the_same_function_in_its_file() -> None:
    other = "void other() {}\n"
    files = {"f.regrapht.cu": f"{other}{CUDA}"}
    for line in (1, 3):
        text = hover(CPP, line, files)
        assert text is not None and "in `f.regrapht.cu`" in text, line
    assert hover(CPP, 0, files) is None  # the annotation is not the record
    assert "cannot be read" in (hover(CPP, 1, {}) or "")
    assert "no single definition of `f`" in (hover(CPP, 1, {"f.regrapht.cu": other}) or "")
