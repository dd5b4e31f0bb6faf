"""Scratch directories and child groups: what a process leaves behind, and how it goes."""

from __future__ import annotations

import subprocess
import time

from regrapht_core import lifetime


def test_scratch_directories_share_one_root_that_release_removes() -> None:
    """Finding 10 of #15: the code a job compiles lives under one root per process."""
    with lifetime.scratch("cc-") as work:
        assert work.parent == lifetime.scratch_root()
        (work / "unit.cu").write_text("// the user's code\n")
        kept = lifetime.scratch_dir("build-")
    assert not work.exists() and kept.exists()
    root = kept.parent
    lifetime.release()
    assert not root.exists()
    assert lifetime.scratch_root() != root and lifetime.scratch_root().is_dir()


def test_release_kills_every_live_child_group() -> None:
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        with lifetime.child_group(child.pid):
            lifetime.release()
            started = time.monotonic()
            assert child.wait(timeout=2) == -9
            assert time.monotonic() - started < 2
    finally:
        child.kill()
        child.wait()
