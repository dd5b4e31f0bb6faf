"""Grow the ReGraph from the user's own verified results, only when they ask for it.

A verified search path is exactly what the graph is made of (paper, Algorithm 1): the
sequential code, then each technique's code with its measured speedup. Merging it makes
the next search on similar code find a proven step first. It is opt-in because it changes
a file the user owns and puts their code into it as examples; nothing is learned silently,
and nothing that was only compiled (no GPU) or not faster is ever learned.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from regrapht_core.datatypes import Trajectory, TrajectoryStep
from regrapht_core.graph.merge import merge_trajectory
from regrapht_core.graph.snapshot import BuildInfo, load_snapshot, save_snapshot, source_digest
from regrapht_core.search.types import Candidate

__all__ = ["LEARN_BUILDER", "Learned", "learn", "verified_trajectory"]

LEARN_BUILDER = "regrapht learn"
"""``BuildInfo.builder`` of a snapshot that gained examples from user runs."""


@dataclass(frozen=True, slots=True)
class Learned:
    snapshot: Path
    steps: int
    """Examples added, one per technique on the verified path."""


def verified_trajectory(
    task: str, source: str, best: Candidate, candidates: Sequence[Candidate]
) -> Trajectory | None:
    """The steps from the sequential ``source`` to ``best``, each verified and timed.

    ``None`` unless every step on the path passed on a GPU with a speedup and the last one
    is faster than the reference: a compiled-only or slower answer teaches nothing.
    """
    by_index = {c.index: c for c in candidates}
    path: list[Candidate] = []
    node: Candidate | None = best
    while node is not None:
        path.append(node)
        node = None if node.parent is None else by_index.get(node.parent)
    path.reverse()
    if path[0].parent is not None:  # the chain is broken: an ancestor is missing
        return None
    if not all(c.result.verified for c in path):
        return None
    if (best.result.speedup or 0.0) <= 1.0:
        return None
    device = best.result.device.name if best.result.device else None
    steps = tuple(
        TrajectoryStep(
            think=c.think,
            method=c.technique,
            detail=f"produced by {c.producer}",
            code=c.code,
            speedup=c.result.speedup,
        )
        for c in path
    )
    return Trajectory(task=task, source=source, steps=steps, verified_on=device)


def learn(snapshot: Path, trajectory: Trajectory) -> Learned:
    """Merge ``trajectory`` into the snapshot file, atomically; the old file stays on error.

    The build digest chains the previous digest with the new trajectory, so two snapshots
    that learned different runs never claim the same content.
    """
    loaded = load_snapshot(snapshot)
    merge_trajectory(loaded.graph, trajectory)
    chained = hashlib.sha256(
        f"{loaded.build.source_digest}+{source_digest([trajectory])}".encode()
    ).hexdigest()
    build = BuildInfo(LEARN_BUILDER, loaded.build.trajectories + 1, chained)
    save_snapshot(loaded.graph, build, snapshot)
    return Learned(snapshot, len(trajectory.steps))
