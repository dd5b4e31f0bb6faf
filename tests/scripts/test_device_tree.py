"""scripts/device-tree.sh, run in a throwaway repository: ``slim`` takes the trajectory
folders no device call reads out of the working tree and leaves the rest, ``full`` puts
them back, and ``size`` counts only what is on disk."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = (
    "graph_snapshots/mined/a.json",
    "graph_snapshots/mined/deep/b.json",
    "graph_snapshots/mined-h200x4/c.json",
    "graph_snapshots/explored/d.json",
)
KEPT = ("README.md", "graph_snapshots/regraph.msgpack", "graph_snapshots/seed/e.json")


def _git(tree: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=tree, check=True, capture_output=True, text=True, timeout=60
    )
    return done.stdout


def _script(tree: Path, command: str) -> str:
    done = subprocess.run(
        ["bash", "scripts/device-tree.sh", command],
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A committed repository with files in and beside the folders ``slim`` leaves out."""
    tree = tmp_path / "repo"
    for name in (*LEFT_OUT, *KEPT):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(f"{name}\n" * 2000)  # 8 KiB and more each
    (tree / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "device-tree.sh", tree / "scripts")
    _git(tree, "init", "-q")
    _git(tree, "add", ".")
    _git(tree, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "tree")
    return tree


def _mib(report: str) -> float:
    """The first size in ``report``: the tree's on its first line."""
    found = re.search(r"([\d.]+) MiB", report)
    assert found is not None, report
    return float(found.group(1))


def test_slim_leaves_out_the_trajectories_and_full_puts_them_back(tree: Path) -> None:
    before = _mib(_script(tree, "size"))
    _script(tree, "slim")
    assert not any((tree / name).exists() for name in LEFT_OUT)
    assert all((tree / name).exists() for name in (*KEPT, "scripts/device-tree.sh"))
    assert _git(tree, "status", "--porcelain") == ""  # nothing reads as deleted
    assert _mib(_script(tree, "size")) < before
    _script(tree, "full")
    assert all((tree / name).exists() for name in (*LEFT_OUT, *KEPT))
    assert _mib(_script(tree, "size")) == before


def test_size_adds_the_wheels_once(tree: Path) -> None:
    before = _mib(_script(tree, "size"))
    (tree / ".whl").mkdir()  # not ignored here: it still counts once
    (tree / ".whl" / "x.whl").write_bytes(b"\0" * 2**20)
    (tree / "untracked.txt").write_text("x\n" * 2**19)  # 1 MiB that travels too
    lines = _script(tree, "size").splitlines()
    assert _mib(lines[0]) == pytest.approx(before + 1.0, abs=0.05)
    assert _mib(lines[1]) == 1.0
    assert lines[2].startswith("total") and _mib(lines[2]) == pytest.approx(before + 2.0, abs=0.1)
