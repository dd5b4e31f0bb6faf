"""``regrapht optimize`` on any input file (issue 17): every encoding is read, and nothing a
user can pass as FILE prints a traceback: what cannot be optimized is exit 2 with a line
that names the file and the problem. FILE itself is never changed."""

from __future__ import annotations

import codecs
import errno
import logging
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from regrapht_core.cli import EXIT_USER_ERROR, main
from tests.conftest import gpu_present

FUNCTION = "void f(float* a, int n) {\n  for (int i = 0; i < n; i++) a[i] = a[i] * 2.0f;\n}\n"
COMMENT = "// résumé: café\n"

needs_no_gpu = pytest.mark.skipif(gpu_present(), reason="the compile-only path needs no GPU")
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


def optimize(file: Path | str, *extra: str) -> Result:
    return CliRunner().invoke(
        main, ["optimize", str(file), "--function", "f", "--no-model", "--budget", "1", *extra]
    )


def assert_no_crash(result: Result, codes: tuple[int, ...] = (1, EXIT_USER_ERROR)) -> None:
    """Exited on purpose (CliRunner keeps an unexpected exception in ``result.exception``
    and prints no traceback, so that is what tells a crash)."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code in codes, result.output
    assert "Traceback" not in result.output


# -- any bytes -------------------------------------------------------------------------------

_ENCODED_TEXT = st.builds(
    lambda text, encoding: text.encode(encoding, "replace"),
    st.text(max_size=400),
    st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-32", "cp1252", "latin-1"]),
)
_TOKENS = st.lists(
    st.sampled_from(
        [b"int n", b"float* a", b"(", b")", b"{", b"}", b"[", b"]", b";", b",", b"\n",
         b"for (int i = 0; i < n; i++)", b"a[i] = a[i] + 1;", b"a[i]", b" = ", b"n", b"i",
         b"/*", b"*/", b"//", b"\r\n", b"\r", b"\t", b"\xe9", b"\x81", b"\xff\xfe",
         b"\xef\xbb\xbf", b'"', b"'", b"\\", b"#include <x>", b"#define f g",
         b"template <int N>", b"// regrapht: n = 8; a[n] inout", b"\x00", b"\x1b"]
    ),
    max_size=12,
).map(b"".join)  # fmt: skip
_C_SOUP = st.builds(
    lambda before, body, after: (
        before
        + b"\nvoid f(float* a, int n) {\n  for (int i = 0; i < n; i++) {\n    "
        + body
        + b"\n    a[i] = a[i] * 2.0f;\n  }\n}\n"
        + after
    ),
    _TOKENS,
    _TOKENS,
    _TOKENS,
)
"""A loop in a function named f, with tokens of C before, in and after it."""


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(st.binary(max_size=4096), _ENCODED_TEXT))
def test_any_bytes_end_in_a_message_never_a_traceback(tmp_path: Path, data: bytes) -> None:
    source = tmp_path / "that.cpp"
    source.write_bytes(data)
    result = optimize(source)
    assert_no_crash(result)
    assert source.read_bytes() == data


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_C_SOUP)
def test_code_like_bytes_end_in_a_message_or_a_result(tmp_path: Path, data: bytes) -> None:
    """Tokens of C: some soups are functions named f, and those are optimized (exit 0)."""
    source = tmp_path / "that.cpp"
    source.write_bytes(data)
    result = optimize(source, "--out", str(tmp_path / "that.cu"))
    assert_no_crash(result, (0, 1, EXIT_USER_ERROR))
    assert source.read_bytes() == data


# -- nasty files -----------------------------------------------------------------------------


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "pipe.cpp")
    return folder / "pipe.cpp"


def _write(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        (folder / name).write_bytes(data)
        return folder / name

    return make


_RANDOM = random.Random(17)
NASTY: dict[str, tuple[Callable[[Path], Path], str]] = {
    "empty": (_write("empty.cpp", b""), "no definition of a function named 'f'"),
    "only a BOM": (_write("bom.cpp", codecs.BOM_UTF8), "no definition of a function named 'f'"),
    "NUL bytes": (
        _write("blob.cpp", bytes(_RANDOM.randrange(256) for _ in range(4096))),
        "contains NUL bytes",
    ),
    "control bytes": (
        _write("ctrl.cpp", bytes(_RANDOM.randrange(1, 256) for _ in range(4096))),
        "are control characters",
    ),
    "UTF-16 without its mark": (
        _write("wide.cpp", FUNCTION.encode("utf-16-le")),
        "a UTF-16 or UTF-32 file needs its byte-order mark",
    ),
    "a broken UTF-16 mark": (
        _write("half.cpp", codecs.BOM_UTF16_LE + b"v\x00\x00\xdc"),
        "starts with a UTF-16-LE byte-order mark but is not UTF-16-LE",
    ),
    "an unterminated comment": (
        _write("open.cpp", b"void f(int n) { /* never ends\n"),
        "no definition of a function named 'f'",
    ),
    "nesting too deep for the analysis": (
        _write("deep.cpp", f"void f(int* a, int n) {{ a[0] = {'(' * 800}1{')' * 800}; }}".encode()),
        "nests too deeply",
    ),
    "a directory": (lambda folder: folder, "is a directory"),
    "nothing there": (lambda folder: folder / "gone.cpp", "does not exist"),
    "a FIFO": (_fifo, "a FIFO (named pipe), not a file"),
    "a device": (lambda folder: Path("/dev/zero"), "a device, not a file"),
}


@pytest.mark.parametrize("case", list(NASTY))
def test_a_file_that_is_no_source_is_one_line_naming_it(tmp_path: Path, case: str) -> None:
    make, problem = NASTY[case]
    path = make(tmp_path)
    before = path.read_bytes() if path.is_file() else None
    result = optimize(path)
    assert_no_crash(result, (EXIT_USER_ERROR,))
    message = " ".join(result.stderr.split())
    assert problem in message
    assert path.name in message
    if before is not None:
        assert path.read_bytes() == before


def test_a_file_that_cannot_be_read_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Permission denied once click has looked (or for root, who may read anything)."""
    source = tmp_path / "locked.cpp"
    source.write_text(FUNCTION)
    real_open = os.open

    def denied(path: object, *args: int, **kwargs: int) -> int:
        if Path(str(path)) == source:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", denied)
    result = optimize(source)
    assert_no_crash(result, (EXIT_USER_ERROR,))
    assert result.stderr.strip() == f"error: {source}: Permission denied"


@pytest.mark.parametrize("flag", ["--out", "--trace"])
def test_output_that_names_file_itself_is_refused_before_any_work(
    tmp_path: Path, flag: str
) -> None:
    source = tmp_path / "f.cpp"
    source.write_text(FUNCTION)
    (tmp_path / "link.cpp").symlink_to(source)
    for target in (source, tmp_path / "link.cpp", tmp_path / "." / "f.cpp"):
        result = optimize(source, flag, str(target))
        assert_no_crash(result, (EXIT_USER_ERROR,))
        assert "is FILE itself, which is never changed" in " ".join(result.stderr.split())
    assert source.read_text() == FUNCTION


# -- encodings that work ---------------------------------------------------------------------


@needs_nvcc
@needs_no_gpu
@pytest.mark.parametrize(
    ("data", "bom", "newline"),
    [
        ((COMMENT + FUNCTION).encode("cp1252"), False, "\n"),
        ((COMMENT + FUNCTION).encode("latin-1").replace(b"\n", b"\r\n"), False, "\r\n"),
        ((COMMENT + FUNCTION).encode("utf-16"), True, "\n"),
        (codecs.BOM_UTF8 + (COMMENT + FUNCTION).replace("\n", "\r\n").encode(), True, "\r\n"),
    ],
    ids=["windows-1252", "latin-1 crlf", "utf-16", "utf-8 bom crlf"],
)
def test_any_encoding_is_optimized_and_the_output_keeps_its_manner(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, data: bytes, bom: bool, newline: str
) -> None:
    caplog.set_level(logging.INFO, logger="regrapht_core.files")
    source, out = tmp_path / "f.cpp", tmp_path / "f.cu"
    source.write_bytes(data)
    result = optimize(source, "--out", str(out))
    assert_no_crash(result, (0,))
    assert source.read_bytes() == data
    written = out.read_bytes()
    assert written.startswith(codecs.BOM_UTF8) == bom
    text = written.removeprefix(codecs.BOM_UTF8).decode("utf-8")  # UTF-8 for nvcc
    assert "__global__" in text
    lines = text.split("\n")[:-1]
    assert all(line.endswith("\r") == (newline == "\r\n") for line in lines), lines
    utf8 = written.startswith(codecs.BOM_UTF8) and not data.startswith(codecs.BOM_UTF16_LE)
    notes = [r.getMessage() for r in caplog.records if r.name == "regrapht_core.files"]
    assert bool(notes) != utf8 and all(r.levelno == logging.INFO for r in caplog.records)


# -- the installed command -------------------------------------------------------------------

COMMAND = Path(sys.executable).with_name("regrapht")


@pytest.mark.slow
@pytest.mark.skipif(not COMMAND.exists(), reason="needs the installed regrapht command")
def test_the_command_on_nasty_files_prints_no_traceback(tmp_path: Path) -> None:
    """Through a real process: what the user's terminal shows."""
    files = {
        "empty.cpp": b"",
        "bom.cpp": codecs.BOM_UTF8,
        "latin1.cpp": (COMMENT + "int g();\n").encode("latin-1"),
        "utf16.cpp": (COMMENT + "int g();\n").encode("utf-16"),
        "random.bin.cpp": bytes(random.Random(3).randrange(256) for _ in range(65536)),
        "one-line.cpp": b"int x = 1;" * (1 << 20),  # 10 MiB, one line
        "comment.cpp": b"void f(int n) { /* never ends",
        "locked.cpp": b"int g();\n",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "locked.cpp").chmod(0)  # root reads it anyway: then there is no f in it
    (tmp_path / "folder.cpp").mkdir()
    paths = [*files, "folder.cpp", "missing.cpp"]
    for name in paths:
        run = subprocess.run(
            [str(COMMAND), "optimize", name, "--function", "f", "--no-model", "--budget", "1"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        shown = run.stdout + run.stderr
        assert "Traceback" not in shown, (name, shown)
        assert run.returncode == EXIT_USER_ERROR, (name, shown)
        assert name in shown, (name, shown)
    (tmp_path / "locked.cpp").chmod(0o644)
    for name, data in files.items():
        assert (tmp_path / name).read_bytes() == data
    assert not list(tmp_path.glob("*.regrapht.cu"))


# -- the other commands that read the user's files -------------------------------------------

MANIFESTS = {
    "binary": (b"\x00\xff\xfe\x81" * 64, "not UTF-8 (byte 1)"),
    "latin-1": (b"# caf\xe9\n", "not UTF-8 (byte 5)"),
    "not TOML": (b"[[task]]\nfile = 3 = 4\n", "not a task manifest (TOML: "),
    "task a number": (b"task = 5\n", "'task' must be [[task]] tables"),
    "task a list of numbers": (b"task = [1, 2]\n", "'task' must be [[task]] tables"),
    "task one table": (b'[task]\nfile = "x.cpp"\n', "'task' must be [[task]] tables"),
    "file a number": (b'[[task]]\nfile = 3\nfunction = "f"\n', "'file' must be a non-empty"),
    "no function": (b'[[task]]\nfile = "x.cpp"\n', "task 1: 'function' must be a non-empty"),
    "NUL in a name": (
        b'[[task]]\nfile = "a.cpp"\nfunction = "f"\n[[task]]\nfile = "\\u0000"\nfunction = "f"\n',
        "task 2: 'file' must be a non-empty string",
    ),
}


@needs_nvcc
@pytest.mark.parametrize("case", list(MANIFESTS))
def test_a_corrupt_manifest_is_one_line_naming_it(tmp_path: Path, case: str) -> None:
    data, problem = MANIFESTS[case]
    manifest = tmp_path / "suite.toml"
    manifest.write_bytes(data)
    args = ["bench", "run", str(manifest), "--no-model", "--json", str(tmp_path / "r.json")]
    result = CliRunner().invoke(main, args)
    assert_no_crash(result, (EXIT_USER_ERROR,))
    message = " ".join(result.stderr.split())
    assert problem in message and "suite.toml" in message
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\xff\xfe{}", "not UTF-8 (byte 0)"),
        (b"[" * 100_000, "nested too deeply"),
        (b'{"runs": [', "Expecting value"),
        (b"[]", "is not a `regrapht bench` results file"),
    ],
)
def test_corrupt_results_are_one_line_naming_them(
    tmp_path: Path, data: bytes, problem: str
) -> None:
    pytest.importorskip("matplotlib")
    results = tmp_path / "results.json"
    results.write_bytes(data)
    result = CliRunner().invoke(main, ["bench", "report", str(results), "--out", str(tmp_path)])
    assert_no_crash(result, (EXIT_USER_ERROR,))
    assert problem in result.stderr and "results.json" in result.stderr


def test_results_that_are_a_fifo_are_refused_not_waited_for(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    os.mkfifo(tmp_path / "results.json")
    result = CliRunner().invoke(main, ["bench", "report", str(tmp_path / "results.json")])
    assert_no_crash(result, (EXIT_USER_ERROR,))
    assert "a FIFO (named pipe), not a file" in result.stderr


def test_a_trajectory_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "trajectories"
    folder.mkdir()
    (folder / "a.json").write_text("[" * 100_000)
    args = ["graph", "build", "--trajectories", str(folder), "--out", str(tmp_path / "g.msgpack")]
    result = CliRunner().invoke(main, args)
    assert_no_crash(result, (EXIT_USER_ERROR,))
    assert "nests its JSON too deeply" in result.stderr
