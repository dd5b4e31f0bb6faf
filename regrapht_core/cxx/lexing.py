"""The translation phases a lexer-level check must see through.

Before tokens exist, the compiler joins backslash-continued lines, replaces trigraphs and
reads universal character names in identifiers. A check that reads source text (the
verifier's static gate) applies the same phases, or ``pri\\<newline>ntf`` and
``\\u0070rintf`` slip past it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["Spliced", "decode_ucn", "splice_lines", "trigraph_lines"]

_TRIGRAPH_ENDS = frozenset(b"=/'()!<>-")


class Spliced(NamedTuple):
    code: bytes
    joins: tuple[int, ...]
    """Offsets in ``code`` where a backslash-newline was removed, ascending."""


def splice_lines(raw: bytes) -> Spliced:
    """Translation phase 2: join lines ended by a backslash (GCC allows trailing blanks)."""
    out = bytearray()
    joins: list[int] = []
    i, n = 0, len(raw)
    while i < n:
        byte = raw[i]
        if byte == 0x5C:  # backslash
            j = i + 1
            while j < n and raw[j] in b" \t":
                j += 1
            if j < n and raw[j] == 0x0D and j + 1 < n and raw[j + 1] == 0x0A:
                j += 1
            if j < n and raw[j] == 0x0A:
                joins.append(len(out))
                i = j + 1
                continue
        out.append(byte)
        i += 1
    return Spliced(bytes(out), tuple(joins))


def trigraph_lines(raw: bytes) -> Iterator[int]:
    start = 0
    while (found := raw.find(b"??", start)) >= 0:
        if found + 2 < len(raw) and raw[found + 2] in _TRIGRAPH_ENDS:
            yield raw.count(b"\n", 0, found) + 1
        start = found + 1


def decode_ucn(name: str) -> str:
    r"""The identifier nvcc sees for ``\u0070rintf``: universal character names decoded."""
    out: list[str] = []
    i = 0
    while i < len(name):
        if name[i] == "\\" and i + 1 < len(name) and name[i + 1] in "uU":
            width = 4 if name[i + 1] == "u" else 8
            digits = name[i + 2 : i + 2 + width]
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:
                out.append("\\")
                i += 1
                continue
            i += 2 + width
        else:
            out.append(name[i])
            i += 1
    return "".join(out)
