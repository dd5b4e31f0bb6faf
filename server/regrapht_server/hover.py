"""Hover on optimized code: the record in its header, read from the text itself.

Two places carry a record: a function with a header directly above it (CUDA documents and
the separate ``.regrapht.cu`` files), and the pointer comment left above a C/C++ function,
whose record lives in the file it names.
"""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.functions import function_name
from regrapht_server.header import header_rows, parse_header, pointer_target
from regrapht_server.regions import Parsed, comment_block

__all__ = ["hover_markdown"]

ReadFile = Callable[[str], str | None]
"""Text of a file named relative to the hovered document, ``None`` if it cannot be read."""


def hover_markdown(parsed: Parsed, position: types.Position, read: ReadFile) -> str | None:
    row = parsed.point(position).row
    lines = parsed.lines
    if lines[row].lstrip().startswith("//"):
        block = comment_block(lines, row, above=False)
        target = pointer_target(lines[row])
        if target is not None:
            return _elsewhere(parsed, block.stop, target, read)
    else:
        fn = parsed.function_at(position, position)
        if fn is None:
            return None
        block = comment_block(lines, fn.start_point.row, above=True)
        target = next((t for r in block if (t := pointer_target(lines[r])) is not None), None)
        if target is not None:
            return _elsewhere(parsed, fn.start_point.row, target, read)
    return _record(parsed, block)


def _record(parsed: Parsed, block: range, where: str | None = None) -> str | None:
    rows = header_rows(parsed.lines, block)
    if rows is None:
        return None
    return parse_header([parsed.lines[r] for r in rows]).markdown(where)


def _elsewhere(parsed: Parsed, row: int, target: str, read: ReadFile) -> str | None:
    """The record of the function starting at ``row``, from the CUDA file ``target``."""
    line = parsed.lines[row] if row < len(parsed.lines) else ""
    start = types.Position(row, len(line) - len(line.lstrip()))
    fn = parsed.function_at(start, start)
    name = function_name(fn) if fn is not None else None
    text = read(target)
    if name is None or text is None:
        return f"**ReGraphT**: the CUDA version is in `{target}`, which cannot be read now."
    cuda = Parsed(text, SourceLanguage.CUDA, parsed.codec)
    same = cuda.functions_named(name)
    if len(same) != 1:
        return f"**ReGraphT**: `{target}` has no single definition of `{name}`."
    block = comment_block(cuda.lines, same[0].start_point.row, above=True)
    return _record(cuda, block, where=target)
