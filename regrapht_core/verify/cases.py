"""Correctness cases on disk: the files the harness reads, and reading back what it wrote.

A case is one size binding with one seed. Its arguments become one file each (raw bytes
of the element type; a scalar is a one-element file), written by the verifier into a
private directory per process: the candidate's and the reference's runs never share one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from regrapht_core.contracts.task import ParamKind, Role, SizeBinding, Task
from regrapht_core.tasks.dtypes import numpy_dtype
from regrapht_core.tasks.sizes import arg_length, scalar_value
from regrapht_core.verify.protocol import input_hash

__all__ = [
    "Array",
    "Case",
    "InputMaker",
    "build_case",
    "case_folder",
    "read_hashes",
    "read_outputs",
    "stage_case",
    "write_cases",
]

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
        dtype = numpy_dtype(arg.ctype)
        value = made.get(arg.name)
        if arg.kind is ParamKind.SCALAR:
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
        found[arg.name] = np.fromfile(path, dtype=numpy_dtype(arg.ctype))
    if task.returns != "void":
        path = folder / f"o{tag}_ret.bin"
        if not path.exists():
            return None
        found["return"] = np.fromfile(path, dtype=numpy_dtype(task.returns))
    return found


def read_hashes(folder: Path, tag: str) -> dict[int, int] | None:
    path = folder / f"h{tag}.txt"
    if not path.exists():
        return None
    hashes = {}
    for line in path.read_text().splitlines():
        index, value = line.split()
        hashes[int(index)] = int(value)
    return hashes
