"""The small part of TOML that task files use, written so that ``tomllib`` reads it back.

The standard library reads TOML but does not write it; this covers strings (multi-line for
source code), numbers, booleans, inline tables, arrays, tables and arrays of tables.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = ["TomlValue", "toml_key", "toml_value"]

TomlValue = str | int | float | bool | Sequence["TomlValue"] | Mapping[str, "TomlValue"]

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b"}


def _basic(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _string(text: str) -> str:
    """Source code stays readable as a multi-line literal whenever TOML allows it."""
    literal_ok = (
        "\n" in text
        and "'''" not in text
        and not text.endswith("'")
        and all(ch in "\t\n" or (ord(ch) >= 0x20 and ord(ch) != 0x7F) for ch in text)
    )
    return f"'''\n{text}'''" if literal_ok else _basic(text)


def toml_key(key: str) -> str:
    bare = key and all(ch.isascii() and (ch.isalnum() or ch in "_-") for ch in key)
    return key if bare else _basic(key)


def toml_value(value: TomlValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        inner = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    return "[" + ", ".join(toml_value(v) for v in value) + "]"
