"""Where the snapshot and its trajectories live unless the user says otherwise.

Resolved against the repository (the parent of the ``regrapht_core`` package), not the
working directory, so ``regrapht graph stats`` means the same file from any folder.
"""

from __future__ import annotations

import os
from pathlib import Path

import regrapht_core

__all__ = ["SNAPSHOT_ENV", "default_trajectory_dir", "snapshot_path"]

SNAPSHOT_ENV = "REGRAPHT_SNAPSHOT"
"""Environment variable naming the snapshot file; a command-line flag overrides it."""

_REPO = Path(regrapht_core.__file__).resolve().parents[1]


def snapshot_path(flag: Path | None = None) -> Path:
    """The snapshot to use: ``flag``, else ``$REGRAPHT_SNAPSHOT``, else the repository's."""
    if flag is not None:
        return flag
    from_env = os.environ.get(SNAPSHOT_ENV)
    if from_env:
        return Path(from_env)
    return _REPO / "graph_snapshots" / "regraph.msgpack"


def default_trajectory_dir() -> Path:
    return _REPO / "graph_snapshots" / "trajectories"
