"""Positions between the core and the client: the one place that knows the client's units.

The core counts rows and code points; LSP counts in the position encoding the client
negotiated (UTF-16 by default), which pygls's ``PositionCodec`` converts, line by line.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from regrapht_core import api

__all__ = ["column_from_client", "to_core", "to_lsp", "to_range"]


def column_from_client(line: str, character: int, codec: PositionCodec) -> int:
    """A column in the client's units as code points; past the line's end, its end (the
    LSP's rule; pygls's codec gives the last character instead)."""
    if line.isascii():
        return min(character, len(line))
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += codec.client_num_units(char)
    return len(line)


def to_core(document: api.Document, codec: PositionCodec, position: types.Position) -> api.Position:
    row = min(position.line, len(document.lines) - 1)
    return api.Position(row, column_from_client(document.lines[row], position.character, codec))


def to_lsp(document: api.Document, codec: PositionCodec, position: api.Position) -> types.Position:
    """Past the last line: the start of the line after it, as the core means it."""
    if position.row >= len(document.lines):
        return types.Position(len(document.lines), 0)
    prefix = document.lines[position.row][: position.column]
    return types.Position(position.row, codec.client_num_units(prefix))


def to_range(document: api.Document, codec: PositionCodec, span: api.Span) -> types.Range:
    return types.Range(to_lsp(document, codec, span.start), to_lsp(document, codec, span.end))
