"""scripts/gpu_lock_busy.py: a GPU lock held by the engine reads as busy from outside, a
free one as free, and sampling it takes nothing from a process that wants it."""

from __future__ import annotations

import threading
from pathlib import Path
from types import ModuleType

import pytest

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.verify.gpu_lock import GpuLock
from tests.scripts import load_script


def _script() -> ModuleType:
    return load_script("gpu_lock_busy")


def test_a_lock_the_engine_holds_is_busy_and_a_free_one_is_not(tmp_path: Path) -> None:
    lock = GpuLock("0", folder=tmp_path)
    with lock.hold(Deadline.after(5.0)) as got:
        assert got
        assert _script().held(lock.path)
    assert not _script().held(lock.path)
    with lock.hold(Deadline.after(5.0)) as got:  # sampling left nothing behind
        assert got


def test_rows_give_each_locks_busy_share(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    busy, free = GpuLock("0", folder=tmp_path), GpuLock("1", folder=tmp_path)
    with free.hold(Deadline.after(5.0)):
        pass  # creates its file
    release = threading.Event()
    holding = threading.Event()

    def hold() -> None:
        with busy.hold(Deadline.after(5.0)):
            holding.set()
            release.wait(5.0)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait(5.0)
    try:
        argv = ["--folder", str(tmp_path), "--every", "0.01", "--report", "0.2"]
        assert _script().main(argv, rounds=1) == 0
    finally:
        release.set()
        holder.join()
    header, *rows = capsys.readouterr().out.splitlines()
    assert header == "time,lock,busy_share,samples"
    shares = {row.split(",")[1]: float(row.split(",")[2]) for row in rows}
    assert shares == {"gpu-0.lock": 1.0, "gpu-1.lock": 0.0}
