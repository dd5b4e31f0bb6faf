"""What the verifier and the programs it runs agree on: exit statuses, patterns, the input hash.

Two kinds of program run candidates: the generated C++ harness (host-function candidates)
and the Python kernel runner (``__global__`` candidates, :mod:`kernel_runner`). Both must
report the same way so the pipeline judges them alike, so the shared facts live here. This
module imports nothing from the project (numpy only): the kernel runner is staged into a
private run directory with it and nothing else.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "EXIT_CUDA_ERROR",
    "EXIT_IO",
    "EXIT_MANAGED_MEMORY",
    "EXIT_OUT_OF_BOUNDS",
    "GUARD_BYTE",
    "input_hash",
    "poison",
]

EXIT_CUDA_ERROR = 2
EXIT_MANAGED_MEMORY = 3
EXIT_OUT_OF_BOUNDS = 4
EXIT_IO = 5
EXIT_PROTOCOL = 7
"""The harness got a command it does not understand (or none where one was due)."""

GUARD_BYTE = 0xA5
"""Fills the bytes around every buffer; any other value there afterwards is a spill."""

_MASK64 = (1 << 64) - 1
_HASH_SEED = 0x9E3779B97F4A7C15
_HASH_MIX = 0xBF58476D1CE4E5B9
_INT_POISON = bytes((0xEF, 0xBE, 0xAD, 0xDE))


def input_hash(data: bytes) -> int:
    """Python twin of the harness's ``hash_bytes``: a position-dependent 64-bit mix.

    Not cryptographic: it detects a candidate that writes to its inputs, which cannot aim
    for a collision without knowing the (fresh, secret) input values in advance.
    """
    padded = data + b"\0" * (-len(data) % 8)
    words = np.frombuffer(padded, dtype="<u8")
    x = words ^ (words >> np.uint64(29))
    x = x * np.uint64(_HASH_MIX)
    x = x ^ (x >> np.uint64(32))
    weights = np.arange(words.size, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    total = int(np.sum(x * weights, dtype=np.uint64))
    return (len(data) * _HASH_SEED + total) & _MASK64


def poison(nbytes: int, *, floating: bool) -> npt.NDArray[np.uint8]:
    """What an output holds before each call: all-ones bytes (a NaN) for floats, repeated
    ``0xDEADBEEF`` for integers, as the C++ harness's ``poison_float``/``poison_int``."""
    if floating:
        return np.full(nbytes, 0xFF, dtype=np.uint8)
    pattern = np.frombuffer(_INT_POISON, dtype=np.uint8)
    return np.resize(pattern, nbytes)
