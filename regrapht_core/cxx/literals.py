"""A number literal's C++ type, read from its spelling.

Code written for the user (an accumulator's declaration, a loop counter's type) must give
a variable the type C++ deduces from its initial value, or it computes something else:
``0`` is an ``int`` (overflow and all), ``0u`` an ``unsigned int``, ``0.0f`` a ``float``.
"""

from __future__ import annotations

__all__ = ["INTEGER_TYPES", "literal_type"]

_LARGEST = {
    "int": 2**31 - 1,
    "unsigned int": 2**32 - 1,
    "long": 2**63 - 1,
    "unsigned long": 2**64 - 1,
    "long long": 2**63 - 1,
    "unsigned long long": 2**64 - 1,
}
"""Each integer type's largest value on the targets nvcc compiles for (LP64)."""
INTEGER_TYPES = frozenset(_LARGEST)


def literal_type(text: str) -> str | None:
    """The type of the literal ``text`` (lower case, no digit separators), or None where
    the value does not fit the type its suffix names: C++ then picks a wider type by rules
    that depend on the base, which this does not follow."""
    hexadecimal = text.startswith("0x")
    if "." in text or ("p" in text if hexadecimal else "e" in text):
        suffixes = {"f": "float", "l": "long double"}
        return suffixes.get(text[-1], "double")
    digits = text.rstrip("ul")
    suffix = text[len(digits) :]
    longs = suffix.count("l")
    width = "long long" if longs == 2 else "long" if longs else "int"
    kind = f"unsigned {width}" if "u" in suffix else width
    try:  # octal's leading zero is Python's 0o
        octal = digits.startswith("0") and digits[1:2].isdigit()
        value = int(digits, 8) if octal else int(digits, 0)
    except ValueError:
        return None
    return kind if value <= _LARGEST[kind] else None
