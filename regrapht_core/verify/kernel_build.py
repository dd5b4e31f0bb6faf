"""Turn a compiled candidate kernel and the original kernel into the runner's three programs.

Both modules define the kernel under the same name, so they are loaded as separate modules
and each is looked up by the symbol nvcc emitted for it (see :mod:`cubin`). When the
original kernel has C++ linkage its mangled name encodes the parameter types: a candidate
whose mangled name differs has another signature, the kernel-mode twin of a host candidate
that does not link against the harness's declaration.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from regrapht_core.contracts.task import Task
from regrapht_core.errors import TaskError
from regrapht_core.verify.cubin import CubinError, find_kernel, kernel_entries
from regrapht_core.verify.programs import Program, kernel_program

__all__ = ["KernelBuildError", "kernel_programs", "kernel_symbol"]

_CANDIDATE = "candidate.cubin"
_REFERENCE = "reference.cubin"


class KernelBuildError(Exception):
    """The candidate's module cannot stand in for the original kernel (feedback text)."""


def kernel_symbol(module: Path, name: str) -> str:
    """The symbol of kernel ``name`` in ``module``; :class:`KernelBuildError` if not one."""
    try:
        entries = kernel_entries(module.read_bytes())
    except CubinError as error:
        raise KernelBuildError(f"cannot read the compiled module: {error}") from None
    symbol = find_kernel(entries, name)
    if symbol is None:
        found = ", ".join(entries) or "none"
        raise KernelBuildError(
            f"the module does not define exactly one __global__ kernel `{name}` "
            f"(kernels found: {found})"
        )
    return symbol


def kernel_programs(
    task: Task, candidate: Path, reference: Path, work: Path
) -> tuple[Program, Program, Program]:
    """``(check, timing, reference check)`` programs over copies of both modules in ``work``."""
    try:
        original = kernel_symbol(reference, task.entry)
    except KernelBuildError as error:
        raise TaskError(f"task {task.name}: the original kernel: {error}") from None
    symbol = kernel_symbol(candidate, task.entry)
    if original.startswith("_Z") and symbol != original:
        raise KernelBuildError(
            f"`{task.entry}` compiles to `{symbol}` but the original kernel to `{original}`: "
            f"the parameter types differ; the task requires `{task.signature}`"
        )
    mine, theirs = work / _CANDIDATE, work / _REFERENCE
    shutil.copyfile(candidate, mine)
    shutil.copyfile(reference, theirs)
    check = kernel_program({_CANDIDATE: mine}, ("check", _CANDIDATE, symbol))
    timing = kernel_program(
        {_CANDIDATE: mine, _REFERENCE: theirs},
        ("timing", _CANDIDATE, symbol, _REFERENCE, original),
    )
    return check, timing, kernel_program({_REFERENCE: theirs}, ("check", _REFERENCE, original))
