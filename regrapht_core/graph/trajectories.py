"""Strict loader for trajectory source files (docs/trajectory-format.md).

The snapshot is only as good as these files, and they are written by hand: a misspelt key
or a number where code belongs must fail the build with the file and the field named,
rather than quietly produce an edge without an example.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from regrapht_core.datatypes import Trajectory, TrajectoryStep
from regrapht_core.errors import GraphError, TrajectoryError

__all__ = ["TRAJECTORY_SCHEMA", "load_trajectory", "load_trajectory_dir", "trajectory_document"]

TRAJECTORY_SCHEMA = 1

_TOP_KEYS = frozenset(("schema", "task", "description", "source", "verified_on", "steps"))
_STEP_KEYS = frozenset(("think", "method", "detail", "code", "speedup"))
_TASK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")

_T = TypeVar("_T")


class _Problem(Exception):
    """Internal: a malformed field, turned into a ``TrajectoryError`` with the path."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _Problem(f"key {key!r} appears twice in one object")
        seen.add(key)
    return dict(pairs)


def _reject_constant(name: str) -> float:
    raise _Problem(f"{name} is not a number JSON allows")


def _field(obj: Mapping[str, Any], key: str, where: str, check: Callable[[Any], _T | None]) -> _T:
    value = check(obj[key])
    if value is None:
        raise _Problem(f"{where}{key!r} has the wrong type or value: {obj[key]!r:.60}")
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _any_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _speedup(value: Any) -> tuple[float | None] | None:
    """Wrapped in a 1-tuple so that a valid ``null`` is told apart from a wrong type."""
    if value is None:
        return (None,)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return (number,) if math.isfinite(number) and number > 0 else None


def _verified_on(value: Any) -> tuple[str | None] | None:
    return (value,) if value is None or _text(value) is not None else None


def _keys(obj: Any, expected: frozenset[str], where: str) -> Mapping[str, Any]:
    if not isinstance(obj, dict):
        raise _Problem(f"{where.removesuffix(': ') or 'the file'} must be a JSON object")
    missing, extra = sorted(expected - obj.keys()), sorted(obj.keys() - expected)
    if missing:
        raise _Problem(f"{where}missing key(s) {', '.join(missing)}")
    if extra:
        raise _Problem(f"{where}unknown key(s) {', '.join(extra)}")
    return obj


def _step(obj: Any, index: int) -> TrajectoryStep:
    where = f"steps[{index}]: "
    fields = _keys(obj, _STEP_KEYS, where)
    return TrajectoryStep(
        think=_field(fields, "think", where, _any_text),
        method=_field(fields, "method", where, _text),
        detail=_field(fields, "detail", where, _any_text),
        code=_field(fields, "code", where, _text),
        speedup=_field(fields, "speedup", where, _speedup)[0],
    )


def _trajectory(document: Any) -> Trajectory:
    fields = _keys(document, _TOP_KEYS, "")
    schema = fields["schema"]
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise _Problem(f"'schema' must be an integer, not {schema!r:.60}")
    if schema != TRAJECTORY_SCHEMA:
        raise _Problem(f"schema {schema} is not supported (this version reads schema 1)")
    task = _field(fields, "task", "", _text)
    if not _TASK_NAME.fullmatch(task):
        raise _Problem(f"task name {task!r} must be letters, digits, '_', '.' or '-'")
    _field(fields, "description", "", _any_text)
    steps = fields["steps"]
    if not isinstance(steps, list) or not steps:
        raise _Problem("'steps' must be a non-empty list")
    return Trajectory(
        task=task,
        source=_field(fields, "source", "", _text),
        steps=tuple(_step(step, i) for i, step in enumerate(steps)),
        verified_on=_field(fields, "verified_on", "", _verified_on)[0],
    )


def load_trajectory(path: Path) -> Trajectory:
    """Read and validate one trajectory file; every defect raises ``TrajectoryError``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise TrajectoryError(path, f"cannot read the file ({err})") from err
    try:
        document = json.loads(
            text, object_pairs_hook=_no_duplicate_keys, parse_constant=_reject_constant
        )
        return _trajectory(document)
    except json.JSONDecodeError as err:
        raise TrajectoryError(path, f"not valid JSON: {err}") from err
    except _Problem as problem:
        raise TrajectoryError(path, str(problem)) from problem


def load_trajectory_dir(directory: Path) -> Sequence[tuple[Path, Trajectory]]:
    """Every ``*.json`` in ``directory`` by file name; task names must be unique."""
    if not directory.is_dir():
        raise GraphError(f"{directory}: no trajectory directory here (see --trajectories)")
    files = sorted(directory.glob("*.json"))
    if not files:
        raise GraphError(f"{directory}: no trajectory files (*.json) to build the ReGraph from")
    loaded = [(path, load_trajectory(path)) for path in files]
    seen: dict[str, Path] = {}
    for path, trajectory in loaded:
        first = seen.setdefault(trajectory.task, path)
        if first != path:
            raise TrajectoryError(path, f"task {trajectory.task!r} is also defined in {first}")
    return loaded


def trajectory_document(
    trajectory: Trajectory, description: str, *, task: str | None = None
) -> dict[str, Any]:
    """The JSON document :func:`load_trajectory` reads back as ``trajectory`` (named
    ``task`` instead of its own task name when given: a folder's names must be unique)."""
    return {
        "schema": TRAJECTORY_SCHEMA,
        "task": task or trajectory.task,
        "description": description,
        "source": trajectory.source,
        "verified_on": trajectory.verified_on,
        "steps": [
            {
                "think": step.think,
                "method": step.method,
                "detail": step.detail,
                "code": step.code,
                "speedup": step.speedup,
            }
            for step in trajectory.steps
        ],
    }
