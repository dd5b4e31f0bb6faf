"""Where the snapshot is read from and written to: #15's install findings.

Install finding of #15: at c509905 the default snapshot was ``<checkout>/graph_snapshots``,
absent from a wheel, and ``--learn`` rewrote whatever file was read (in an install, a file
inside site-packages).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import regrapht_core
from regrapht_core.errors import GraphError
from regrapht_core.graph.paths import (
    SNAPSHOT_ENV,
    build_target,
    checkout_dir,
    default_trajectory_dirs,
    learned_snapshot,
    learning_snapshot,
    shipped_snapshot,
    snapshot_path,
    user_data_dir,
)

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT / "graph_snapshots" / "regraph.msgpack"
PACKAGE = Path(regrapht_core.__file__).resolve().parent


def test_the_packaged_snapshot_is_the_built_one_byte_for_byte() -> None:
    """The wheel's copy comes from ``graph_snapshots/regraph.msgpack``, which ``graph
    build`` writes; the package holds a link to it, never a second, drifting copy."""
    packaged = PACKAGE / "data" / "regraph.msgpack"
    assert packaged.is_symlink()
    assert packaged.read_bytes() == SOURCE.read_bytes()
    assert shipped_snapshot().read_bytes() == SOURCE.read_bytes()
    assert shipped_snapshot().is_file() and not shipped_snapshot().is_symlink()


def test_the_data_directory_follows_xdg(tmp_path: Path) -> None:
    home = {"HOME": str(tmp_path)}
    assert user_data_dir(home) == tmp_path / ".local" / "share" / "regrapht"
    xdg = {**home, "XDG_DATA_HOME": str(tmp_path / "data")}
    assert user_data_dir(xdg) == tmp_path / "data" / "regrapht"
    relative = {**home, "XDG_DATA_HOME": "data"}
    assert user_data_dir(relative) == tmp_path / ".local" / "share" / "regrapht"


def test_reading_prefers_flag_then_environment_then_learned_copy_then_shipped(
    tmp_path: Path,
) -> None:
    env = {"HOME": str(tmp_path)}
    assert snapshot_path(None, env) == shipped_snapshot()
    learned = learned_snapshot(env)
    learned.parent.mkdir(parents=True)
    learned.write_bytes(b"x")
    assert snapshot_path(None, env) == learned
    named = {**env, SNAPSHOT_ENV: str(tmp_path / "env.msgpack")}
    assert snapshot_path(None, named) == tmp_path / "env.msgpack"
    assert snapshot_path(tmp_path / "flag.msgpack", named) == tmp_path / "flag.msgpack"


def test_learning_copies_the_shipped_snapshot_into_the_data_directory_once(
    tmp_path: Path,
) -> None:
    env = {"HOME": str(tmp_path / "home")}
    target = learning_snapshot(None, env)
    assert target == tmp_path / "home" / ".local" / "share" / "regrapht" / "regraph.msgpack"
    assert target.read_bytes() == SOURCE.read_bytes()
    assert PACKAGE not in target.parents and ROOT not in target.parents
    target.write_bytes(b"grown")
    assert learning_snapshot(None, env) == target
    assert target.read_bytes() == b"grown"
    assert snapshot_path(None, env) == target


def test_learning_writes_a_named_snapshot_as_it_is(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), SNAPSHOT_ENV: str(tmp_path / "mine.msgpack")}
    assert learning_snapshot(None, env) == tmp_path / "mine.msgpack"
    assert learning_snapshot(tmp_path / "flag.msgpack", env) == tmp_path / "flag.msgpack"
    assert not user_data_dir(env).exists()


def test_a_data_directory_that_cannot_be_made_names_the_fix(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "file")}
    with pytest.raises(GraphError, match=r"XDG_DATA_HOME.*--snapshot"):
        learning_snapshot(None, env)


def test_a_checkout_builds_into_graph_snapshots(tmp_path: Path) -> None:
    assert checkout_dir() == ROOT
    assert default_trajectory_dirs() == [
        ROOT / "graph_snapshots" / "trajectories",
        ROOT / "graph_snapshots" / "mined" / "trajectories",
        ROOT / "graph_snapshots" / "explored" / "trajectories",
    ]
    assert build_target(None, {}) == SOURCE
    assert build_target(None, {SNAPSHOT_ENV: str(tmp_path / "e")}) == tmp_path / "e"
    assert build_target(tmp_path / "f", {}) == tmp_path / "f"
