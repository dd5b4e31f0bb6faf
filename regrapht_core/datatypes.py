"""Plain values passed between the graph, the search and the tools around them.

Frozen and slotted: a trajectory or an example, once read, is never edited in place, so
the same object can sit on an edge, in a search trace and in a snapshot at once.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EdgeExample", "Trajectory", "TrajectoryStep"]


@dataclass(frozen=True, slots=True)
class EdgeExample:
    """One applied step, stored on the edge (previous technique → applied technique)."""

    task: str
    think: str
    detail: str
    before: str
    after: str
    speedup: float | None = None
    """Measured speedup of ``after`` over the task's sequential reference, if measured."""
    verified_on: str | None = None
    """What verified ``after``: a device name for runs, or e.g. ``"nvcc 13.0 (compile only)"``."""


@dataclass(frozen=True, slots=True)
class TrajectoryStep:
    """One step as the optimizing model reported it: a free-form method name and the code."""

    think: str
    method: str
    detail: str
    code: str
    speedup: float | None = None


@dataclass(frozen=True, slots=True)
class Trajectory:
    """A task's sequential source and the steps that optimized it, in order."""

    task: str
    source: str
    steps: tuple[TrajectoryStep, ...]
    verified_on: str | None = None
