"""The server's copy of each document, its parses and the files it reads beside it, under
line breaks, large documents and hostile file names (#15 findings 7, 8, 11 and 12)."""

from __future__ import annotations

import asyncio
import codecs
import os
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.workspace import TextDocument
from pytest_lsp import LanguageClient
from regrapht_server.documents import (
    MAX_PARSED,
    MAX_READ,
    EditorText,
    Parses,
    read_beside,
    read_file,
)

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.errors import TaskError

from .conftest import open_file
from .test_server import OPTIMIZED, actions_at, hover_at

LOOP = "void {0}(float* v, int n) {{ for (int i = 0; i < n; ++i) v[i] = {1}; }}"
IN_LINE = {"form feed": "\f", "U+0085": "\x85", "U+2028": "\u2028"}
NEWLINES = {"lone CR": "\r", "CRLF": "\r\n", "LF": "\n"}
SEPARATED = {
    **{name: (f"// one{c}two\n", "\n") for name, c in IN_LINE.items()},
    **{name: (f"// one{nl}", nl) for name, nl in NEWLINES.items()},
}
"""A first part holding the separator, and the line break of the rest of the document."""


def editor_text(text: str) -> EditorText:
    return EditorText.adopt(TextDocument("file:///w/a.cpp", text, 1, "cpp"))


def change(text: EditorText, start: tuple[int, int], end: tuple[int, int], new: str) -> str:
    where = types.Range(types.Position(*start), types.Position(*end))
    text.apply_change(types.TextDocumentContentChangePartial(where, new))
    return text.source


@pytest.mark.parametrize("name", list(SEPARATED))
def test_a_change_below_a_separator_lands_on_the_editors_row(name: str) -> None:
    """Finding 7 of #15: pygls split rows with ``str.splitlines``, so below a form feed,
    U+0085 or U+2028 a change landed one row up, and the copy drifted from the editor's."""
    head, nl = SEPARATED[name]
    text = editor_text(f"{head}int b;{nl}int c;{nl}")
    row = head.count("\n") + head.count("\r") - head.count("\r\n")
    assert change(text, (row + 1, 0), (row + 1, 0), f"int x;{nl}") == (
        f"{head}int b;{nl}int x;{nl}int c;{nl}"
    )
    assert change(text, (row, 4), (row + 2, 4), "") == f"{head}int c;{nl}"


def test_columns_are_utf16_units_and_clamp_to_the_line_end() -> None:
    text = editor_text("a\U0001f600b\u2028c\nend")
    assert change(text, (0, 3), (0, 4), "B") == "a\U0001f600B\u2028c\nend"
    assert change(text, (0, 99), (1, 0), " ") == "a\U0001f600B\u2028c end"
    assert change(text, (5, 0), (5, 0), "!") == "a\U0001f600B\u2028c end!"
    assert editor_text("a\rb\r\nc\n").lines == ("a\r", "b\r\n", "c\n")


async def code_action_target(client: LanguageClient, uri: str, line: int) -> tuple[str, int]:
    actions = await actions_at(client, uri, line, 30)
    assert len(actions) == 1 and actions[0].command and actions[0].command.arguments
    argument = actions[0].command.arguments[0]
    assert isinstance(argument, dict)
    return argument["function"], argument["line"]


@pytest.mark.parametrize("name", list(SEPARATED))
async def test_the_action_after_an_edit_below_a_separator_is_for_the_function_there(
    client: LanguageClient, tmp_path: Path, name: str
) -> None:
    """Finding 7 of #15, through the server: after the edit the copy matches the editor's,
    and each row's action is for the function the editor shows there."""
    head, nl = SEPARATED[name]
    path = tmp_path / "lines.cpp"
    path.write_bytes(f"{head}{LOOP.format('f', 1)}{nl}{LOOP.format('g', 2)}{nl}".encode())
    uri = open_file(client, path, "cpp")
    row = head.count("\n") + head.count("\r") - head.count("\r\n")
    assert await code_action_target(client, uri, row + 1) == ("g", row + 1)
    where = types.Range(types.Position(row + 1, 0), types.Position(row + 1, 0))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangePartial(where, LOOP.format("h", 3) + nl)],
        )
    )
    assert await code_action_target(client, uri, row) == ("f", row)
    assert await code_action_target(client, uri, row + 1) == ("h", row + 1)
    assert await code_action_target(client, uri, row + 2) == ("g", row + 2)


async def test_a_version_sent_twice_is_parsed_for_its_new_text(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Finding 11 of #15: the parse was cached by version, so a version number repeated
    with new text answered for the old text."""
    path = tmp_path / "again.cpp"
    path.write_text(LOOP.format("f", 1) + "\n")
    uri = open_file(client, path, "cpp")
    assert await code_action_target(client, uri, 0) == ("f", 0)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=1),
            [types.TextDocumentContentChangeWholeDocument(LOOP.format("g", 2) + "\n")],
        )
    )
    assert await code_action_target(client, uri, 0) == ("g", 0)


def big_source(characters: int) -> str:
    body = "".join(f"{LOOP.format(f'f{i}', i)}\n" for i in range(characters // 60 + 1))
    return body[: body.rindex("\n", 0, characters) + 1]


async def test_other_requests_are_answered_while_a_large_document_parses(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Finding 12 of #15: parsing ran on the event loop, so every request waited for it
    (5.8 s for 20 MB). Now the hover on another document comes back while the large one
    is still parsing, and the large one's action comes after."""
    small = tmp_path / "small.cu"
    small.write_text(OPTIMIZED)
    small_uri = open_file(client, small, "cuda-cpp")
    assert await hover_at(client, small_uri, 3, 8) is None
    large = tmp_path / "large.cpp"
    large.write_text(big_source(MAX_PARSED - 1000))
    large_uri = open_file(client, large, "cpp")
    where = types.Position(20_000, 30)
    action = client.text_document_code_action(  # sent now, before the hover
        types.CodeActionParams(
            types.TextDocumentIdentifier(large_uri),
            types.Range(where, where),
            types.CodeActionContext(diagnostics=[]),
        )
    )
    async with asyncio.timeout(5):
        hover = await hover_at(client, small_uri, 9, 8)
    assert hover is not None and "Shared-memory tiling" in hover
    assert not action.done()
    async with asyncio.timeout(120):
        answer = await asyncio.wrap_future(action)
    assert answer is not None and len(answer) == 1


async def test_a_newer_text_supersedes_a_parse_not_yet_begun() -> None:
    """Finding 12 of #15: while the worker parses, edits queue up; only the newest text of
    a document is parsed, and a request for an older one gets ``None`` at once."""
    parses = Parses()
    parses.schedule("file:///big.cpp", big_source(2_000_000), SourceLanguage.CPP)
    old, new = LOOP.format("f", 1), LOOP.format("g", 2)
    first = asyncio.ensure_future(parses.get("file:///a.cpp", old, SourceLanguage.CPP))
    await asyncio.sleep(0)
    second = asyncio.ensure_future(parses.get("file:///a.cpp", new, SourceLanguage.CPP))
    async with asyncio.timeout(60):
        assert await first is None
        document = await second
    assert document is not None and document.text is new and document.definitions("g")
    assert await parses.get("file:///a.cpp", new, SourceLanguage.CPP) is document


async def test_a_document_over_the_size_cap_is_not_parsed(
    client: LanguageClient, tmp_path: Path
) -> None:
    """Finding 12 of #15: a document too large to parse gets no action, at once."""
    path = tmp_path / "huge.cpp"
    path.write_text(big_source(MAX_PARSED + 1000))
    uri = open_file(client, path, "cpp")
    async with asyncio.timeout(10):
        assert await actions_at(client, uri, 20_000, 30) == []


POINTER = "// ReGraphT CUDA version: {0} (8.10x faster, verified on NVIDIA H100)\n"


def hostile_sidecar(folder: Path, kind: str) -> str:
    """A file name for the pointer comment, set up to harm the server that reads it."""
    outside = folder.parent / f"{folder.name}-outside.regrapht.cu"
    outside.write_text(OPTIMIZED)
    match kind:
        case "fifo":
            os.mkfifo(folder / "scale.regrapht.cu")
        case "dev-zero":
            (folder / "scale.regrapht.cu").symlink_to("/dev/zero")
        case "link-out":
            (folder / "scale.regrapht.cu").symlink_to(outside)
        case "parent":
            return f"../{outside.name}"
        case "absolute":
            return str(outside)
        case "oversized":
            (folder / "scale.regrapht.cu").write_text(OPTIMIZED + " " * MAX_READ)
    return "scale.regrapht.cu"


@pytest.mark.parametrize(
    "kind", ["fifo", "dev-zero", "link-out", "parent", "absolute", "oversized"]
)
async def test_hover_reads_only_a_small_regular_file_beside_the_document(
    client: LanguageClient, tmp_path: Path, kind: str
) -> None:
    """Finding 8 of #15: the hover read the named file on the event loop, whatever it was:
    a FIFO froze the server, a link to /dev/zero grew it 1.2 GB/s, ``../`` and absolute
    names read files elsewhere. Now it says the file cannot be read, and goes on."""
    folder = tmp_path / "work"
    folder.mkdir()
    path = folder / "scale.cpp"
    name = hostile_sidecar(folder, kind)
    path.write_text(POINTER.format(name) + LOOP.format("scale", 2) + "\n")
    uri = open_file(client, path, "cpp")
    async with asyncio.timeout(10):
        text = await hover_at(client, uri, 0, 10)
        assert text is None or "Shared-memory tiling" not in text
        (folder / "other.cu").write_text(OPTIMIZED)
        other = open_file(client, folder / "other.cu", "cuda-cpp")
        assert "Shared-memory tiling" in (await hover_at(client, other, 9, 8) or "")


def test_reading_refuses_what_is_not_a_small_regular_file(tmp_path: Path) -> None:
    """Finding 8 of #15, without a server: the checks themselves, quickly. A file that is
    there but no source text is one line saying so, naming it; no file is ``None``."""
    regular = tmp_path / "a.regrapht.cu"
    regular.write_text("int x;\n")
    assert read_file(regular) == "int x;\n"
    with pytest.raises(TaskError, match=r"a\.regrapht\.cu: larger than 3 bytes"):
        read_file(regular, limit=3)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(TaskError, match=r"fifo: a FIFO \(named pipe\), not a file"):
        read_file(tmp_path / "fifo")
    with pytest.raises(TaskError, match=r"/dev/zero: a device, not a file"):
        read_file(Path("/dev/zero"))
    assert read_file(tmp_path / "missing") is None
    (tmp_path / "locked").write_text("int x;\n")
    (tmp_path / "locked").chmod(0)
    if not os.access(tmp_path / "locked", os.R_OK):  # root reads it anyway
        with pytest.raises(TaskError, match=r"locked: cannot be read \(Permission denied\)"):
            read_file(tmp_path / "locked")
    assert read_beside(tmp_path, "a.regrapht.cu", read_file) == "int x;\n"
    inner = tmp_path / "inner"
    inner.mkdir()
    for name in ["../a.regrapht.cu", str(regular), "", ".", "..", "a\0b"]:
        assert read_beside(inner, name, read_file) is None, name
    (inner / "link.regrapht.cu").symlink_to(regular)
    assert read_beside(inner, "link.regrapht.cu", read_file) is None


TEXT = "// caf\u00e9 \u2014 r\u00e9sum\u00e9\nint x;\n"


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (TEXT.encode("utf-8"), TEXT),
        (TEXT.replace("\u2014", "-").encode("latin-1"), TEXT.replace("\u2014", "-")),
        (TEXT.encode("cp1252"), TEXT),
        (TEXT.encode("utf-16"), TEXT),
        (codecs.BOM_UTF8 + TEXT.replace("\n", "\r\n").encode("utf-8"), TEXT),
    ],
    ids=["utf-8", "latin-1", "windows-1252", "utf-16 with BOM", "utf-8 BOM CRLF"],
)
def test_a_file_in_any_encoding_reads_as_its_text(tmp_path: Path, data: bytes, text: str) -> None:
    path = tmp_path / "a.regrapht.cu"
    path.write_bytes(data)
    assert read_file(path) == text


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (bytes(range(256)) * 4, "contains NUL bytes"),
        (TEXT.encode("utf-16-le"), "contains NUL bytes; expected C, C++ or CUDA source text (a "),
        (codecs.BOM_UTF16_LE + b"\x00\xd8", "starts with a UTF-16-LE byte-order mark but is not"),
        (b"\x1b[1m\x07\x08" * 100, "are control characters"),
    ],
    ids=["binary", "utf-16 without BOM", "broken utf-16", "control characters"],
)
def test_a_file_that_is_no_text_is_one_line_naming_it(
    tmp_path: Path, data: bytes, problem: str
) -> None:
    path = tmp_path / "a.regrapht.cu"
    path.write_bytes(data)
    with pytest.raises(TaskError) as raised:
        read_file(path)
    assert str(raised.value).startswith(f"{path}: ") and problem in str(raised.value)
    assert "\n" not in str(raised.value)
