"""Files the user gives and keeps.

Reading: :func:`read_source` turns any C, C++ or CUDA file into text (UTF-8 with or without
a byte-order mark, UTF-16 or UTF-32 with one, else Windows-1252 or Latin-1; any line
endings) and refuses, with the file's name, what is not source text: a binary file, a
device, a FIFO, a directory, a file too large to be source. :func:`read_regular` is its
first half, for any small input file.

Writing: :func:`atomic_write`: a crash or a full disk leaves the old file or the new one,
never half of one.
"""

from __future__ import annotations

import codecs
import logging
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from regrapht_core.errors import TaskError

__all__ = [
    "MAX_SOURCE_BYTES",
    "SourceText",
    "atomic_write",
    "decode_source",
    "file_kind",
    "read_regular",
    "read_source",
]

_log = logging.getLogger(__name__)

MAX_SOURCE_BYTES = 64 << 20
"""Larger than any source file a person writes; a bigger one is generated data."""

_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_FALLBACKS = ("cp1252", "latin-1")
"""Tried in turn when a file without a byte-order mark is not UTF-8. Windows-1252 is the
usual other encoding of source files; Latin-1 decodes any bytes (C/C++ syntax is ASCII, so
it stays intact whichever single-byte encoding the file really is in)."""

_CONTROLS = bytes(b for b in range(32) if b not in b"\t\n\v\f\r\x1a") + b"\x7f"
"""Characters no source text has (tab, line ends, form feed and DOS's end-of-file mark are
text). In a Latin-1 reading the C1 controls 0x80-0x9f count too."""
_C1 = bytes(range(0x80, 0xA0))
_MAX_CONTROL_SHARE = 0.05


@dataclass(frozen=True, slots=True)
class SourceText:
    """A source file as text, and how to write text back in its manner."""

    text: str
    """The content without a byte-order mark and with ``\\n`` line endings."""
    encoding: str
    """The codec it was decoded with: ``utf-8``, ``utf-16-le``, ``cp1252``, ..."""
    bom: bool
    """The file began with a byte-order mark."""
    newline: str = "\n"
    """The file's most common line ending: ``\\n``, ``\\r\\n`` or ``\\r``."""

    def encode(self, text: str) -> bytes:
        """``text`` as a file beside this one: with its line endings and, if it had one, a
        byte-order mark, in UTF-8 whatever this file's encoding (nvcc reads UTF-8 only:
        non-ASCII bytes of another encoding in a string literal do not compile, and UTF-16
        not at all)."""
        body = _lf(text)
        if self.newline != "\n":
            body = body.replace("\n", self.newline)
        return (codecs.BOM_UTF8 if self.bom else b"") + body.encode("utf-8")


def read_regular(path: Path, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """The bytes of ``path``, a regular file (after symlinks) of at most ``limit`` bytes.

    Opened without blocking (a FIFO would wait for a writer forever) and checked on the open
    descriptor (``/dev/zero`` never ends). Raises ``TaskError`` for anything but a regular
    file and ``OSError`` (with the file name) when it cannot be opened or read.
    """
    if "\0" in os.fspath(path):
        raise TaskError(f"{str(path)!r}: a file name cannot contain a NUL character")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise TaskError(f"{path}: {file_kind(info.st_mode)}, not a file")
        with open(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        size = f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
        raise TaskError(f"{path}: larger than {size}, more than this tool reads")
    return data


def read_source(path: Path, limit: int = MAX_SOURCE_BYTES) -> SourceText:
    """The source file at ``path`` as text (see :func:`decode_source`); the file itself is
    only read. Raises ``TaskError`` naming the file for what is not source text, and
    ``OSError`` (with the file name) when it cannot be read."""
    return decode_source(read_regular(path, limit), str(path))


def decode_source(data: bytes, origin: str = "<source>") -> SourceText:
    """Source bytes as text: by their byte-order mark, else UTF-8, else Windows-1252, else
    Latin-1. Line endings become ``\\n`` (compilers take ``\\r\\n`` and a lone ``\\r`` as
    line ends too). Raises ``TaskError`` naming ``origin`` when the bytes are not text: a NUL
    byte, a byte-order mark the rest does not follow, or more than 5% control characters.

    A reading other than UTF-8 is logged at INFO, not warned about: the text is whole.
    """
    for mark, encoding in _BOMS:
        if data.startswith(mark):
            try:
                text = data[len(mark) :].decode(encoding)
            except UnicodeDecodeError as err:
                raise TaskError(
                    f"{origin}: starts with a {_label(encoding)} byte-order mark but is not "
                    f"{_label(encoding)} (at byte {err.start + len(mark)}); expected C, C++ "
                    "or CUDA source text"
                ) from None
            return _checked(text, encoding, True, origin)
    nuls = data.count(b"\0")
    if nuls:
        wide = nuls * 4 >= len(data)  # ASCII in UTF-16 is half NULs, in UTF-32 three quarters
        hint = " (a UTF-16 or UTF-32 file needs its byte-order mark)" if wide else ""
        raise TaskError(f"{origin}: contains NUL bytes; expected C, C++ or CUDA source text{hint}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        where = err.start
    else:
        return _checked(text, "utf-8", False, origin)
    for encoding in _FALLBACKS:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        return _checked(text, encoding, False, origin, not_utf8_at=where)
    raise AssertionError("Latin-1 decodes any bytes")  # pragma: no cover


def _checked(
    text: str, encoding: str, bom: bool, origin: str, *, not_utf8_at: int | None = None
) -> SourceText:
    if "\0" in text:
        raise TaskError(f"{origin}: contains NUL characters; expected C, C++ or CUDA source text")
    raw = text.encode(encoding if encoding == "latin-1" else "utf-8", "surrogatepass")
    odd = _CONTROLS + (_C1 if encoding == "latin-1" else b"")
    controls = len(raw) - len(raw.translate(None, odd))
    if controls > _MAX_CONTROL_SHARE * len(raw):
        raise TaskError(
            f"{origin}: {controls} of its {len(raw)} bytes are control characters; "
            "expected C, C++ or CUDA source text"
        )
    crlf = text.count("\r\n")
    ends = {"\r\n": crlf, "\r": text.count("\r") - crlf, "\n": text.count("\n") - crlf}
    newline = max(ends, key=lambda end: (ends[end], end == "\n"))
    if encoding != "utf-8":
        why = "by its byte-order mark" if bom else f"not UTF-8 at byte {not_utf8_at}"
        _log.info(
            "%s: read as %s (%s); files written from it are UTF-8", origin, _label(encoding), why
        )
    return SourceText(_lf(text), encoding, bom, newline)


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _label(encoding: str) -> str:
    return {"cp1252": "Windows-1252", "latin-1": "Latin-1"}.get(encoding, encoding.upper())


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is, for a one-line refusal."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a socket or special file"


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary sibling and a rename.

    Raises ``OSError``; callers translate it into the error their user acts on.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    created = False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        created = True
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        temp.replace(path)
    except BaseException:
        if created:
            temp.unlink(missing_ok=True)
        raise
