"""Positions between the core and the client: the one place that knows the client's units.

The core counts rows and code points; LSP counts in the position encoding the client
negotiated (UTF-16 by default), which pygls's ``PositionCodec`` converts, line by line.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from regrapht_core import api

__all__ = ["to_core", "to_lsp", "to_range"]


def to_core(document: api.Document, codec: PositionCodec, position: types.Position) -> api.Position:
    row = min(position.line, len(document.lines) - 1)
    column = types.Position(0, position.character)
    where = codec.position_from_client_units([document.lines[row]], column)
    return api.Position(row, where.character)


def to_lsp(document: api.Document, codec: PositionCodec, position: api.Position) -> types.Position:
    """Past the last line: the start of the line after it, as the core means it."""
    if position.row >= len(document.lines):
        return types.Position(len(document.lines), 0)
    prefix = document.lines[position.row][: position.column]
    return types.Position(position.row, codec.client_num_units(prefix))


def to_range(document: api.Document, codec: PositionCodec, span: api.Span) -> types.Range:
    return types.Range(to_lsp(document, codec, span.start), to_lsp(document, codec, span.end))
