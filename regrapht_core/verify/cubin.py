"""Find a kernel's symbol in a compiled CUDA module (a cubin, which is an ELF file).

A ``__global__`` function with C++ linkage is known to the driver by its mangled name
(``_Z12saxpy_kernelifPKfPf``), which depends on the parameter types. Rather than mangle
the task's signature ourselves, the verifier reads the names nvcc actually emitted: every
kernel entry is a global function symbol marked ``STO_CUDA_ENTRY`` in the ELF symbol table.
Reading the table needs no GPU and no CUDA tool beyond the compiler, so it runs everywhere.
"""

from __future__ import annotations

import struct

__all__ = ["CubinError", "find_kernel", "kernel_entries"]

_ELF_MAGIC = b"\x7fELF"
_ELFCLASS64 = 2
_SHT_SYMTAB = 2
_STT_FUNC = 2
_STB_GLOBAL = 1
_STB_WEAK = 2
_STO_CUDA_ENTRY = 0x10
_SECTION = struct.Struct("<IIQQQQIIQQ")
_SYMBOL = struct.Struct("<IBBHQQ")


class CubinError(ValueError):
    """The module is not a 64-bit ELF file with a symbol table."""


def _string(data: bytes, offset: int) -> str:
    end = data.find(b"\0", offset)
    return data[offset : end if end >= 0 else len(data)].decode("utf-8", errors="replace")


def kernel_entries(data: bytes) -> tuple[str, ...]:
    """The symbol of every kernel entry point the module defines, in table order."""
    if data[:4] != _ELF_MAGIC or len(data) < 64 or data[4] != _ELFCLASS64:
        raise CubinError("not a 64-bit ELF cubin")
    (section_offset,) = struct.unpack_from("<Q", data, 0x28)
    entry_size, count, _ = struct.unpack_from("<HHH", data, 0x3A)
    try:
        sections = [
            _SECTION.unpack_from(data, section_offset + i * entry_size) for i in range(count)
        ]
        found = []
        for section in sections:
            if section[1] != _SHT_SYMTAB:
                continue
            strings = sections[section[6]][4]
            start, size = section[4], section[5]
            for offset in range(start, start + size, _SYMBOL.size):
                name, info, other, _, _, _ = _SYMBOL.unpack_from(data, offset)
                binding, kind = info >> 4, info & 0xF
                entry = kind == _STT_FUNC and binding in (_STB_GLOBAL, _STB_WEAK)
                if entry and other & _STO_CUDA_ENTRY:
                    found.append(_string(data, strings + name))
    except (struct.error, IndexError) as error:
        raise CubinError(f"truncated ELF cubin: {error}") from None
    return tuple(found)


def _is_named(symbol: str, name: str) -> bool:
    """``symbol`` is ``name`` with C linkage, or a global-scope C++ function ``name``.

    Itanium mangling of a function at global scope is ``_Z<len><name><parameters>``; the
    length prefix keeps ``saxpy`` from matching ``saxpy2`` (``_Z6saxpy2...``).
    """
    return symbol == name or symbol.startswith(f"_Z{len(name)}{name}")


def find_kernel(entries: tuple[str, ...], name: str) -> str | None:
    """The one entry called ``name``, or ``None`` when there is none or more than one."""
    matches = [symbol for symbol in entries if _is_named(symbol, name)]
    return matches[0] if len(matches) == 1 else None
