"""Where the snapshot lives: the one shipped in the package, the user's learned copy, a file
the user names; and, in a checkout, the trajectories the shipped one is built from.

An installed tool must neither need the source tree nor write into its own installation:
reading falls back to the snapshot shipped as package data, and learning grows a copy in
the user's data directory (``$XDG_DATA_HOME/regrapht``, else ``~/.local/share/regrapht``),
made from the shipped one on first use. ``regrapht graph build`` still writes the source of
truth, ``graph_snapshots/regraph.msgpack`` of a checkout; the packaged file is a link to it,
so a wheel carries exactly the committed snapshot.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

import regrapht_core
from regrapht_core.errors import GraphError

__all__ = [
    "SNAPSHOT_ENV",
    "build_target",
    "checkout_dir",
    "default_trajectory_dirs",
    "learned_snapshot",
    "learning_snapshot",
    "shipped_snapshot",
    "snapshot_path",
    "user_data_dir",
]

SNAPSHOT_ENV = "REGRAPHT_SNAPSHOT"
"""Environment variable naming the snapshot file; a command-line flag overrides it."""

_FILE = "regraph.msgpack"
_SOURCE = Path("graph_snapshots")


def shipped_snapshot() -> Path:
    """The snapshot inside the installed package: a wheel's copy, or in a checkout the file
    its link points to (resolved, so a loader that accepts regular files only reads it)."""
    return Path(str(resources.files(regrapht_core) / "data" / _FILE)).resolve()


def user_data_dir(env: Mapping[str, str] = os.environ) -> Path:
    """The XDG data directory of this tool; a relative ``$XDG_DATA_HOME`` is ignored, as
    the XDG base directory specification says."""
    base = env.get("XDG_DATA_HOME", "")
    if not base or not Path(base).is_absolute():
        home = env.get("HOME") or str(Path.home())
        base = str(Path(home) / ".local" / "share")
    return Path(base) / "regrapht"


def learned_snapshot(env: Mapping[str, str] = os.environ) -> Path:
    """Where ``--learn`` grows the user's own copy of the graph."""
    return user_data_dir(env) / _FILE


def _named(flag: Path | None, env: Mapping[str, str]) -> Path | None:
    if flag is not None:
        return flag
    from_env = env.get(SNAPSHOT_ENV)
    return Path(from_env) if from_env else None


def snapshot_path(flag: Path | None = None, env: Mapping[str, str] = os.environ) -> Path:
    """The snapshot to read: ``flag``, else ``$REGRAPHT_SNAPSHOT``, else the user's learned
    copy if there is one, else the shipped snapshot."""
    named = _named(flag, env)
    if named is not None:
        return named
    learned = learned_snapshot(env)
    return learned if learned.is_file() else shipped_snapshot()


def learning_snapshot(flag: Path | None = None, env: Mapping[str, str] = os.environ) -> Path:
    """The snapshot that learning rewrites: the one the user named, else their learned
    copy, created from the shipped snapshot on first use (never the installed package's
    file). A copy that cannot be made is a :class:`GraphError` naming the folder."""
    named = _named(flag, env)
    if named is not None:
        return named
    learned = learned_snapshot(env)
    if learned.is_file():
        return learned
    try:
        learned.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shipped_snapshot(), learned)
    except OSError as err:
        raise GraphError(
            f"cannot make the learned snapshot {learned}: {err.strerror or err}; "
            f"set $XDG_DATA_HOME to a writable folder or pass --snapshot"
        ) from err
    return learned


def checkout_dir() -> Path | None:
    """The source checkout holding the trajectories, or ``None`` for an installed package."""
    root = Path(regrapht_core.__file__).resolve().parents[1]
    return root if (root / _SOURCE / "trajectories").is_dir() else None


def default_trajectory_dirs() -> list[Path]:
    """What the shipped snapshot is built from, in a checkout: the seed's trajectories, the
    ones mined on the GPU over the graph's edges and the ones mined exploring beyond them
    (issue 20, docs/mining.md); none when installed (they are not shipped)."""
    root = checkout_dir()
    if root is None:
        return []
    return [root / _SOURCE / "trajectories"] + [
        root / _SOURCE / mined / "trajectories" for mined in ("mined", "explored")
    ]


def build_target(flag: Path | None = None, env: Mapping[str, str] = os.environ) -> Path | None:
    """Where ``graph build`` writes: ``flag``, else ``$REGRAPHT_SNAPSHOT``, else a checkout's
    ``graph_snapshots/regraph.msgpack`` (the source of the shipped snapshot); ``None`` when
    installed, so a build never writes into the installation."""
    named = _named(flag, env)
    if named is not None:
        return named
    root = checkout_dir()
    return None if root is None else root / _SOURCE / _FILE
