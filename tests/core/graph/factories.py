"""Small builders shared by the graph tests: trajectories in memory and as JSON files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from regrapht_core.datatypes import Trajectory, TrajectoryStep

METHODS = (
    "Parallelize the outer loop with CUDA threads",
    "grid-stride loop",
    "smem tiling",
    "memory coalescing",
    "loop unrolling",
    "use float4 loads",
    "warp shuffle reduction",
    "atomicAdd",
    "fast math",
)
"""Free-form names of nine distinct techniques, in the style trajectories use."""


def trajectory(task: str, methods: Sequence[str], speedup: float | None = 2.0) -> Trajectory:
    steps = tuple(
        TrajectoryStep(
            think=f"{task} think {i}",
            method=method,
            detail=f"{task} detail {i}",
            code=f"// {task} step {i}\n__global__ void k{i}(float* x) {{ x[{i}] = {i}; }}",
            speedup=speedup,
        )
        for i, method in enumerate(methods)
    )
    return Trajectory(task, f"void {task}(float* x) {{ x[0] = 0; }}", steps, "nvcc test")


def trajectory_document(task: str, methods: Sequence[str]) -> dict[str, Any]:
    """The JSON form of ``trajectory(task, methods)`` (docs/trajectory-format.md)."""
    t = trajectory(task, methods)
    return {
        "schema": 1,
        "task": t.task,
        "description": f"{task} for tests",
        "source": t.source,
        "verified_on": t.verified_on,
        "steps": [
            {
                "think": s.think,
                "method": s.method,
                "detail": s.detail,
                "code": s.code,
                "speedup": s.speedup,
            }
            for s in t.steps
        ],
    }


def write_trajectory(directory: Path, document: dict[str, Any]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{document['task']}.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path


@st.composite
def trajectories(draw: st.DrawFn, max_count: int = 8) -> list[Trajectory]:
    """Distinct tasks walking random technique sequences (repeats make cycles and loops)."""
    count = draw(st.integers(min_value=1, max_value=max_count))
    return [
        trajectory(f"task{i}", draw(st.lists(st.sampled_from(METHODS), min_size=1, max_size=6)))
        for i in range(count)
    ]
