"""C element types as numpy dtypes, for the Linux x86-64 / CUDA data model.

The generator, the task checks and the validation driver must agree byte for byte on what
``long`` or ``unsigned char`` is, so the mapping lives in one place.
"""

from __future__ import annotations

import numpy as np

from regrapht_core.errors import TaskError

__all__ = ["c_type_name", "is_integer", "numpy_dtype"]

_DTYPES: dict[str, np.dtype[np.generic]] = {}


def _register(dtype: type[np.generic], *names: str) -> None:
    for name in names:
        _DTYPES[name] = np.dtype(dtype)


_register(np.float32, "float")
_register(np.float64, "double")
_register(np.float16, "half", "__half")
_register(np.bool_, "bool")
_register(np.int8, "char", "signed char", "int8_t")
_register(np.uint8, "unsigned char", "uint8_t")
_register(np.int16, "short", "short int", "signed short", "int16_t")
_register(np.uint16, "unsigned short", "unsigned short int", "uint16_t")
_register(np.int32, "int", "signed", "signed int", "int32_t")
_register(np.uint32, "unsigned", "unsigned int", "uint32_t")
_register(
    np.int64,
    "long",
    "long int",
    "long long",
    "long long int",
    "signed long",
    "int64_t",
    "ptrdiff_t",
    "ssize_t",
)
_register(
    np.uint64,
    "unsigned long",
    "unsigned long int",
    "unsigned long long",
    "unsigned long long int",
    "uint64_t",
    "size_t",
)


def c_type_name(ctype: str) -> str:
    """The canonical spelling: qualifiers and ``std::`` dropped, whitespace collapsed."""
    words = [w for w in ctype.replace("std::", "").split() if w not in ("const", "volatile")]
    return " ".join(words)


def numpy_dtype(ctype: str, *, where: str = "") -> np.dtype[np.generic]:
    name = c_type_name(ctype)
    try:
        return _DTYPES[name]
    except KeyError:
        prefix = f"{where}: " if where else ""
        raise TaskError(
            f"{prefix}element type {ctype!r} has no numeric mapping; supported: "
            "float, double, half, bool, (unsigned) char/short/int/long/long long, "
            "int8_t..uint64_t, size_t"
        ) from None


def is_integer(ctype: str) -> bool:
    """Integer and bool outputs are compared exactly, whatever the tolerance says."""
    return numpy_dtype(ctype).kind in "biu"
