"""scripts/graph_growth.py's count of later steps: neutral, faster or slower by their gain."""

from __future__ import annotations

from types import ModuleType

from regrapht_core.datatypes import Trajectory, TrajectoryStep
from tests.scripts import load_script


def _script() -> ModuleType:
    return load_script("graph_growth")


def _trajectory(*speedups: float | None) -> Trajectory:
    steps = tuple(TrajectoryStep("", f"m{k}", "", "", s) for k, s in enumerate(speedups))
    return Trajectory("t", "void f() {}", steps)


def test_later_steps_are_counted_by_their_gain_over_the_step_before() -> None:
    counts = _script().later_steps(
        [
            _trajectory(240.0, 242.0, 300.0),  # neutral (1.008), faster (1.24)
            _trajectory(10.0, 9.0),  # slower (0.9)
            _trajectory(5.0, None, 5.0),  # an unmeasured step compares with nothing
            _trajectory(3.0),  # a first step alone is not a later step
        ]
    )
    assert counts == {"steps": 3, "neutral": 1, "faster": 1, "slower": 1}
