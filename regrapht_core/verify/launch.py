"""The launch plan of a kernel→kernel run: argument layout and grid/block/shared per case.

The kernel runner knows nothing about tasks or expressions: the verifier evaluates the
task's launch contract at every case's size binding and writes the numbers, with each
argument's element type and role, to ``kernel.json`` in the run directory. Candidate and
reference are launched from the same plan, so they run under exactly the same contract.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from regrapht_core.contracts.task import LaunchSpec, ParamKind, SizeBinding, Task
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import is_arithmetic, numpy_dtype
from regrapht_core.tasks.expr import evaluate_length
from regrapht_core.verify.cases import Case

__all__ = ["PLAN_FILE", "launch_dims", "write_plan"]

PLAN_FILE = "kernel.json"
_MAX_BLOCK_THREADS = 1024


def _dims(exprs: Sequence[str], binding: SizeBinding, where: str) -> list[int]:
    values = [evaluate_length(e, binding, where=f"{where}[{i}]") for i, e in enumerate(exprs)]
    values += [1] * (3 - len(values))
    if min(values) < 1:
        raise TaskError(f"{where}: {values} at {dict(binding)} has an empty dimension")
    return values


def launch_dims(launch: LaunchSpec, binding: SizeBinding) -> dict[str, object]:
    """Grid, block (three dimensions each) and dynamic shared bytes at ``binding``."""
    grid = _dims(launch.grid, binding, "launch.grid")
    block = _dims(launch.block, binding, "launch.block")
    if block[0] * block[1] * block[2] > _MAX_BLOCK_THREADS:
        raise TaskError(f"launch.block: {block} has more than {_MAX_BLOCK_THREADS} threads")
    shared = evaluate_length(launch.shared_bytes, binding, where="launch.shared_bytes")
    return {"grid": grid, "block": block, "shared": shared}


def write_plan(root: Path, task: Task, cases: Sequence[Case]) -> None:
    """Write ``kernel.json`` for ``cases`` (in the order ``write_cases`` numbered them)."""
    if task.launch is None:
        raise TaskError(f"task {task.name}: a kernel run needs the task's launch contract")
    args = []
    for arg in task.args:
        if arg.kind in (ParamKind.VECTOR, ParamKind.ARRAY, ParamKind.SPAN):
            raise TaskError(f"task {task.name}: a kernel cannot take std::{arg.kind} '{arg.name}'")
        if arg.kind is ParamKind.SCALAR and not is_arithmetic(arg.ctype):
            raise TaskError(
                f"task {task.name}: a kernel takes number scalars only, not {arg.ctype} "
                f"'{arg.name}'"
            )
        args.append(
            {
                "name": arg.name,
                "pointer": arg.kind is ParamKind.POINTER,
                "role": arg.role.value,
                "dtype": numpy_dtype(arg.ctype, records=task.records).str,
            }
        )
    plan = {"args": args, "cases": [launch_dims(task.launch, case.binding) for case in cases]}
    root.mkdir(parents=True, exist_ok=True)
    (root / PLAN_FILE).write_text(json.dumps(plan))
