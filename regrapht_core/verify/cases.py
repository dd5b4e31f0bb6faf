"""Correctness cases on disk: the files the harness reads, and reading back what it wrote.

A case is one size binding with one seed. Its arguments become one file each (raw bytes
of the element type, padding included for structs; a ``std::vector<bool>`` one byte per
element; a scalar is a one-element file), written by the verifier into a
private directory per process: the candidate's and the reference's runs never share one.
A harness session hands its outputs back through a shared memory window
(:func:`window_bytes`, :func:`outputs_from_window`); the kernel runner writes files
(:func:`read_outputs`).
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.task import ParamKind, Role, SizeBinding, Task
from regrapht_core.tasks.dtypes import numpy_dtype, vector_element
from regrapht_core.tasks.expr import evaluate_length
from regrapht_core.tasks.sizes import arg_length, scalar_value
from regrapht_core.verify.chunks import chunk_map
from regrapht_core.verify.protocol import input_hash

__all__ = [
    "Array",
    "Case",
    "InputMaker",
    "build_case",
    "case_folder",
    "outputs_from_window",
    "read_hashes",
    "read_outputs",
    "return_dtype",
    "returned_bytes",
    "stage_case",
    "window_bytes",
    "write_cases",
]

WINDOW_ALIGN = 64
"""Where each output starts in the window: a multiple of this (the harness's ``kWindowAlign``)."""

Array = npt.NDArray[np.generic]
InputMaker = Callable[[Task, SizeBinding, int], Mapping[str, object]]
"""``generate_inputs(task, binding, seed)``: arrays and scalars by argument name."""


@dataclass(frozen=True, slots=True)
class Case:
    binding: SizeBinding
    arrays: tuple[Array, ...]
    """One per argument, in declaration order, already in the element type."""

    def input_hashes(self, task: Task) -> dict[int, int]:
        return {
            index: input_hash(self.arrays[index].tobytes())
            for index, arg in enumerate(task.args)
            if arg.role is Role.IN and arg.kind is not ParamKind.SCALAR
        }


def build_case(task: Task, binding: SizeBinding, seed: int, make: InputMaker) -> Case:
    """Inputs from the generator; ``out`` arguments (which it leaves out) are zero-filled to
    their length here and poisoned by the harness before every call."""
    made = make(task, binding, seed)
    arrays = []
    for arg in task.args:
        dtype = numpy_dtype(arg.ctype, records=task.records)
        value = made.get(arg.name)
        if arg.kind is ParamKind.SCALAR and isinstance(value, np.ndarray):
            arrays.append(np.ascontiguousarray(value.reshape(-1)[:1], dtype=dtype))
        elif arg.kind is ParamKind.SCALAR:
            scalar = scalar_value(arg, binding) if value is None else value
            arrays.append(np.array([scalar]).astype(dtype))
        elif isinstance(value, np.ndarray):
            arrays.append(np.ascontiguousarray(value.reshape(-1), dtype=dtype))
        else:
            arrays.append(np.zeros(arg_length(arg, binding), dtype=dtype))
    return Case(binding, tuple(arrays))


def case_folder(k: int) -> str:
    """The folder of the ``k``-th case in a run directory."""
    return f"case{k}"


def stage_case(root: Path, folder: str, arrays: Sequence[Array]) -> None:
    """Write one case's arguments, a file each, where a harness loads them from."""
    target = root / folder
    target.mkdir(parents=True, exist_ok=True)
    for index, array in enumerate(arrays):
        array.tofile(target / f"a{index}.bin")


def write_cases(root: Path, cases: Sequence[Case], reps: int) -> None:
    """The kernel runner's run directory: ``cases.txt`` and a folder per case."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "cases.txt").write_text(f"{len(cases)} {reps}\n")
    for k, case in enumerate(cases):
        stage_case(root, case_folder(k), case.arrays)


def read_outputs(task: Task, folder: Path, tag: str) -> dict[str, Array] | None:
    """Outputs (and the return value, as ``"return"``) a run wrote, or ``None`` if missing."""
    found: dict[str, Array] = {}
    for index, arg in enumerate(task.args):
        if arg.role is Role.IN:
            continue
        path = folder / f"o{tag}_{index}.bin"
        if not path.exists():
            return None
        found[arg.name] = np.fromfile(path, dtype=numpy_dtype(arg.ctype, records=task.records))
    if task.returns != "void":
        path = folder / f"o{tag}_ret.bin"
        if not path.exists():
            return None
        found["return"] = np.fromfile(path, dtype=return_dtype(task))
    return found


def return_dtype(task: Task) -> np.dtype[np.generic]:
    """One element of what the entry returns (of a returned vector: one of its elements)."""
    return numpy_dtype(vector_element(task.returns) or task.returns, records=task.records)


def read_hashes(folder: Path, tag: str) -> dict[int, int] | None:
    path = folder / f"h{tag}.txt"
    if not path.exists():
        return None
    hashes = {}
    for line in path.read_text().splitlines():
        index, value = line.split()
        hashes[int(index)] = int(value)
    return hashes


def _padded(nbytes: int) -> int:
    return -(-nbytes // WINDOW_ALIGN) * WINDOW_ALIGN


def _output_dtypes(task: Task) -> list[tuple[str, np.dtype[np.generic]]]:
    """The outputs a dump holds, in the order the harness writes them."""
    found = [
        (arg.name, numpy_dtype(arg.ctype, records=task.records))
        for arg in task.args
        if arg.role is not Role.IN
    ]
    if task.returns != "void":
        found.append(("return", return_dtype(task)))
    return found


def returned_bytes(task: Task, case: Case) -> int:
    """What the return value holds at ``case``'s sizes: a returned vector's elements at the
    task's ``return_length``, a returned value's bytes, nothing for ``void``."""
    if task.returns == "void":
        return 0
    size = return_dtype(task).itemsize
    if task.return_length is None:
        return size
    return evaluate_length(task.return_length, case.binding, where="return_length") * size


def window_bytes(task: Task, cases: Sequence[Case]) -> int:
    """A window that holds any of ``cases``' outputs (what the reference writes for them):
    output arguments (``T&`` scalars included) and the return value, a returned vector at
    the task's ``return_length``."""
    returned = _padded(return_dtype(task).itemsize) if task.returns != "void" else 0
    return max(
        (
            _padded(returned_bytes(task, case))
            + sum(
                _padded(array.nbytes)
                for arg, array in zip(task.args, case.arrays, strict=True)
                if arg.role is not Role.IN
            )
            for case in cases
        ),
        default=returned,
    )


def outputs_from_window(
    task: Task, window: mmap.mmap, sizes: Sequence[str]
) -> dict[str, Array] | None:
    """Copies of the outputs a dump put in ``window``, given the byte counts it answered;
    ``None`` when the counts do not describe the task's outputs inside the window.

    Copies, because the window is the candidate's to write again once it runs.
    """
    wanted = _output_dtypes(task)
    if len(sizes) != len(wanted) or not all(size.isdecimal() for size in sizes):
        return None
    found: dict[str, Array] = {}
    offset = 0
    for (name, dtype), size in zip(wanted, sizes, strict=True):
        nbytes = int(size)
        if nbytes % dtype.itemsize or offset + nbytes > len(window):
            return None
        found[name] = _copied(np.frombuffer(window, dtype, nbytes // dtype.itemsize, offset))
        offset += _padded(nbytes)
    return found


def _copied(source: Array) -> Array:
    copy = np.empty_like(source)
    chunk_map(lambda a, b: np.copyto(copy[a:b], source[a:b]), source.size)
    return copy
