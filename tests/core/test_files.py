"""Reading the user's source files in any encoding, and refusing what is not source text
(issue 17: "any source encoding read without a crash")."""

from __future__ import annotations

import codecs
import logging
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrapht_core.errors import TaskError
from regrapht_core.files import SourceText, decode_source, read_regular, read_source

CODE = "// résumé: café €\nvoid f(float* a, int n) {\n  for (int i = 0; i < n; ++i) a[i] *= 2;\n}\n"


@pytest.mark.parametrize(
    ("data", "encoding", "bom"),
    [
        (CODE.encode("utf-8"), "utf-8", False),
        (codecs.BOM_UTF8 + CODE.encode("utf-8"), "utf-8", True),
        (CODE.encode("utf-16"), "utf-16-le", True),  # the platform's order, with its mark
        (codecs.BOM_UTF16_BE + CODE.encode("utf-16-be"), "utf-16-be", True),
        (CODE.encode("utf-32"), "utf-32-le", True),
        (codecs.BOM_UTF32_BE + CODE.encode("utf-32-be"), "utf-32-be", True),
        (CODE.encode("cp1252"), "cp1252", False),
    ],
)
def test_every_usual_encoding_reads_as_the_same_text(data: bytes, encoding: str, bom: bool) -> None:
    source = decode_source(data, "f.cpp")
    assert (source.text, source.encoding, source.bom) == (CODE, encoding, bom)


def test_bytes_no_single_byte_encoding_but_latin1_knows_are_read_as_latin1() -> None:
    # 0x81 is unassigned in Windows-1252 and not UTF-8: only Latin-1 reads it.
    source = decode_source(b"// \x81 caf\xe9\n" + b"int x;\n" * 4)
    assert source.encoding == "latin-1" and source.text == "// \x81 café\n" + "int x;\n" * 4


def test_a_reading_other_than_utf8_is_logged_at_info(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="regrapht_core.files")
    decode_source(CODE.encode("utf-8"), "plain.cpp")
    decode_source(codecs.BOM_UTF8 + CODE.encode("utf-8"), "marked.cpp")
    assert caplog.records == []
    decode_source(CODE.encode("cp1252"), "old.cpp")
    decode_source(CODE.encode("utf-16"), "wide.cpp")
    assert [r.levelno for r in caplog.records] == [logging.INFO, logging.INFO]
    old, wide = (r.getMessage() for r in caplog.records)
    assert "old.cpp: read as Windows-1252 (not UTF-8 at byte 4)" in old
    assert "wide.cpp: read as UTF-16-LE (by its byte-order mark)" in wide


@pytest.mark.parametrize(("ending", "newline"), [("\n", "\n"), ("\r\n", "\r\n"), ("\r", "\r")])
def test_line_endings_are_read_as_lf_and_written_back_as_they_were(
    ending: str, newline: str
) -> None:
    source = decode_source(CODE.replace("\n", ending).encode())
    assert source.text == CODE and source.newline == newline
    written = source.encode("a\nb\r\nc\n")
    assert written == f"a{ending}b{ending}c{ending}".encode()


def test_mixed_line_endings_take_the_most_common() -> None:
    assert decode_source(b"a\r\nb\r\nc\nd").newline == "\r\n"
    assert decode_source(b"a\r\nb\nc\n").newline == "\n"
    assert decode_source(b"no line end").newline == "\n"


def test_output_is_utf8_with_the_mark_when_the_source_had_one() -> None:
    """nvcc reads UTF-8 only: a Latin-1 byte in a string literal does not compile."""
    assert decode_source(CODE.encode("cp1252")).encode("é") == "é".encode()
    assert decode_source(CODE.encode("utf-16")).encode("é") == codecs.BOM_UTF8 + "é".encode()
    marked = decode_source(codecs.BOM_UTF8 + CODE.encode())
    assert marked.encode(CODE) == codecs.BOM_UTF8 + CODE.encode()


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\x7fELF\x02\x01\x01\x00\x00\x00", "contains NUL bytes"),
        ("int x;\n".encode("utf-16-le"), "a UTF-16 or UTF-32 file needs its byte-order mark"),
        (bytes(range(1, 32)) * 4 + b"int x;", "are control characters"),
        (codecs.BOM_UTF16_LE + b"i\x00\x00\xd8", "starts with a UTF-16-LE byte-order mark"),
        (codecs.BOM_UTF8 + b"\xff\xfe", "but is not UTF-8 (at byte 3)"),
        (codecs.BOM_UTF16_LE + "a\0b".encode("utf-16-le"), "contains NUL characters"),
    ],
)
def test_what_is_not_source_text_is_refused_by_name(data: bytes, problem: str) -> None:
    with pytest.raises(TaskError, match=r"^blob\.cpp: ") as error:
        decode_source(data, "blob.cpp")
    assert problem in str(error.value)


def test_only_what_looks_like_wide_text_gets_the_byte_order_mark_hint() -> None:
    with pytest.raises(TaskError) as error:
        decode_source(b"int x = 1;\0 int y = 2;\n", "stray.cpp")
    assert str(error.value).endswith("contains NUL bytes; expected C, C++ or CUDA source text")


def test_an_empty_file_and_a_lone_mark_are_empty_text() -> None:
    assert decode_source(b"").text == ""
    for mark in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF32_BE):
        assert decode_source(mark).text == ""


def test_a_few_stray_control_characters_are_still_text() -> None:
    text = "int x; // \x1b[1m bold \x1b[0m\n" + "int y;\n" * 20 + "\f\x1a"
    assert decode_source(text.encode()).text == text


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=4096))
def test_any_bytes_are_text_or_a_task_error(data: bytes) -> None:
    try:
        source = decode_source(data, "any.cpp")
    except TaskError as err:
        assert str(err).startswith("any.cpp: ")
        return
    assert "\r" not in source.text and "\0" not in source.text
    again = decode_source(source.encode(source.text))
    assert again.text == source.text and again.newline == source.newline


_TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff")
    | st.sampled_from("\n\r\t"),
    max_size=300,
)


@settings(max_examples=100, deadline=None)
@given(_TEXT, st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32"]))
def test_any_text_in_a_unicode_encoding_reads_back_whole(text: str, encoding: str) -> None:
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    source = decode_source(data)
    assert source.text == text.replace("\r\n", "\n").replace("\r", "\n")


# -- files -----------------------------------------------------------------------------------


def test_reading_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "f.cpp"
    path.write_bytes(CODE.replace("\n", "\r\n").encode("cp1252"))
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    source = read_source(path)
    assert isinstance(source, SourceText) and source.text == CODE
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_only_small_regular_files_are_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "big.cpp").write_bytes(b"int x;\n" * 100)
    cases = {
        tmp_path: "a directory, not a file",
        tmp_path / "fifo": "a FIFO (named pipe), not a file",
        Path("/dev/zero"): "a device, not a file",
    }
    for path, problem in cases.items():
        with pytest.raises(TaskError, match=re.escape(f"{path}: {problem}")):
            read_source(path)
    with pytest.raises(TaskError, match="larger than 600 bytes"):
        read_source(tmp_path / "big.cpp", limit=600)
    assert read_regular(tmp_path / "big.cpp", limit=700) == b"int x;\n" * 100
    with pytest.raises(TaskError, match="cannot contain a NUL"):
        read_source(tmp_path / "a\0b.cpp")


def test_a_missing_or_unreadable_file_is_an_os_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as missing:
        read_source(tmp_path / "gone.cpp")
    assert missing.value.filename == str(tmp_path / "gone.cpp")
    if os.geteuid() == 0:
        return  # root reads any file
    locked = tmp_path / "locked.cpp"
    locked.write_text("int x;\n")
    locked.chmod(0)
    with pytest.raises(PermissionError) as denied:
        read_source(locked)
    assert denied.value.filename == str(locked)
