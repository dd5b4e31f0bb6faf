"""Grow the ReGraph from the user's own verified results, only when they ask for it.

A verified search path is exactly what the graph is made of (paper, Algorithm 1): the
sequential code, then each technique's code with its measured speedup. Merging it makes
the next search on similar code find a proven step first. It is opt-in because it changes
a file the user owns and puts their code into it as examples; nothing is learned silently,
and nothing that was only compiled (no GPU) or not faster is ever learned.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from regrapht_core.datatypes import Trajectory
from regrapht_core.graph.merge import merge_trajectory
from regrapht_core.graph.snapshot import BuildInfo, load_snapshot, save_snapshot, source_digest

__all__ = ["LEARN_BUILDER", "Learned", "learn"]

LEARN_BUILDER = "regrapht learn"
"""``BuildInfo.builder`` of a snapshot that gained examples from user runs."""


@dataclass(frozen=True, slots=True)
class Learned:
    snapshot: Path
    steps: int
    """Examples added, one per technique on the verified path."""


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
