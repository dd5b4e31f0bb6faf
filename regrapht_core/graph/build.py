"""Trajectory files in, snapshot out: what ``regrapht graph build`` does, as a library call."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import regrapht_core
from regrapht_core.errors import TrajectoryError, UnknownTechniqueError
from regrapht_core.graph.merge import merge_trajectory
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.snapshot import BuildInfo, Snapshot, save_snapshot, source_digest
from regrapht_core.graph.trajectories import load_trajectory_dir

__all__ = ["BUILDER", "build_snapshot"]

_log = logging.getLogger(__name__)

BUILDER = f"regrapht {regrapht_core.__version__}"


def build_snapshot(
    trajectory_dirs: Sequence[Path], out: Path, *, allow_new: bool = False
) -> Snapshot:
    """Merge every trajectory file of ``trajectory_dirs`` (the seed's and a mining run's,
    say; a folder named twice counts once) and write the snapshot to ``out``.

    An unknown technique is reported against the file and step it came from, since that is
    where the fix (a synonym, or a renamed method) goes.
    """
    folders = list(dict.fromkeys(folder.resolve() for folder in trajectory_dirs))
    loaded = [found for folder in folders for found in load_trajectory_dir(folder)]
    graph = ReGraph()
    for path, trajectory in loaded:
        try:
            merge_trajectory(graph, trajectory, allow_new=allow_new)
        except UnknownTechniqueError as err:
            raise TrajectoryError(path, str(err)) from err
    trajectories = [trajectory for _, trajectory in loaded]
    build = BuildInfo(BUILDER, len(trajectories), source_digest(trajectories))
    save_snapshot(graph, build, out)
    _log.info("built %r from %d trajectories in %s", graph, len(trajectories), folders)
    return Snapshot(graph, build)
