"""The GPU lock: one timed candidate per GPU across threads and processes, never a hang."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.verify.gpu_lock import GpuLock, gpu_key, lock_folder


@pytest.mark.parametrize(
    ("environment", "key"),
    [
        ({}, "0"),
        ({"CUDA_VISIBLE_DEVICES": "3"}, "3"),
        ({"CUDA_VISIBLE_DEVICES": "2,0"}, "2"),
        ({"CUDA_VISIBLE_DEVICES": " GPU-1a2b/../x "}, "GPU-1a2b_.._x"),
        ({"CUDA_VISIBLE_DEVICES": ""}, "none"),
    ],
)
def test_the_key_is_the_first_visible_gpu(environment: dict[str, str], key: str) -> None:
    assert gpu_key(environment) == key


def test_the_folder_is_the_users_own(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert lock_folder() == tmp_path / "regrapht"
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert lock_folder().name == f"regrapht-{os.getuid()}"


def _hold(
    path: str, ready: multiprocessing.synchronize.Event, seconds: float, shared: bool
) -> None:
    lock = GpuLock("0", Path(path))
    with lock.hold(NO_DEADLINE, shared=shared) as held:
        assert held
        ready.set()
        time.sleep(seconds)


def _holder(tmp_path: Path, seconds: float, *, shared: bool = False) -> multiprocessing.Process:
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    process = context.Process(target=_hold, args=(str(tmp_path), ready, seconds, shared))
    process.start()
    assert ready.wait(30), "the holding process never took the lock"
    return process


def test_another_process_holding_the_gpu_makes_a_run_wait_until_its_deadline(
    tmp_path: Path,
) -> None:
    holder = _holder(tmp_path, 60)
    try:
        start = time.monotonic()
        with GpuLock("0", tmp_path).hold(Deadline.after(0.3)) as held:
            assert not held
        assert 0.3 <= time.monotonic() - start < 2
        # A different GPU is not blocked by it.
        with GpuLock("1", tmp_path).hold(Deadline.after(0.3)) as held:
            assert held
    finally:
        holder.kill()
        holder.join()


def test_a_killed_holder_frees_the_gpu(tmp_path: Path) -> None:
    holder = _holder(tmp_path, 60)
    assert holder.pid is not None
    os.kill(holder.pid, signal.SIGKILL)
    holder.join()
    with GpuLock("0", tmp_path).hold(Deadline.after(5)) as held:
        assert held


def test_the_lock_is_taken_once_the_holder_is_done(tmp_path: Path) -> None:
    holder = _holder(tmp_path, 0.5)
    start = time.monotonic()
    try:
        with GpuLock("0", tmp_path).hold(Deadline.after(20)) as held:
            assert held
            waited = time.monotonic() - start
    finally:
        holder.join()
    assert holder.exitcode == 0
    assert 0.2 < waited < 10


def test_threads_of_one_process_take_turns(tmp_path: Path) -> None:
    assert _most_at_once(GpuLock("0", tmp_path), [False] * 6, hold_s=0.02) == 1


def test_an_expired_deadline_takes_nothing(tmp_path: Path) -> None:
    lock = GpuLock("0", tmp_path)
    with lock.hold(Deadline(at=0.0)) as held:
        assert not held
    with lock.hold(NO_DEADLINE) as held:
        assert held


def _cancelled_after(seconds: float) -> threading.Event:
    cancel = threading.Event()
    threading.Timer(seconds, cancel.set).start()
    return cancel


def test_a_cancel_stops_the_wait_for_another_process(tmp_path: Path) -> None:
    """A model's answer waits for the GPU with no deadline in the editor; a cancel must
    still end the wait within a poll, not when the other process is done."""
    holder = _holder(tmp_path, 60)
    try:
        start = time.monotonic()
        with GpuLock("0", tmp_path).hold(NO_DEADLINE, _cancelled_after(0.3)) as held:
            assert not held
        assert 0.3 <= time.monotonic() - start < 1.5
    finally:
        holder.kill()
        holder.join()


def test_a_cancel_stops_the_wait_for_another_thread(tmp_path: Path) -> None:
    lock = GpuLock("0", tmp_path)
    taken = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with lock.hold(NO_DEADLINE) as held:
            assert held
            taken.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert taken.wait(10)
        start = time.monotonic()
        with lock.hold(NO_DEADLINE, _cancelled_after(0.3)) as held:
            assert not held
        assert 0.3 <= time.monotonic() - start < 1.5
    finally:
        release.set()
        holder.join()
    with lock.hold(NO_DEADLINE, threading.Event()) as held:
        assert held


def _most_at_once(lock: GpuLock, shared: list[bool], hold_s: float = 0.2) -> int:
    """How many of these holders (one thread each, holding ``hold_s``) held the GPU at the
    same time."""
    inside = most = 0
    guard = threading.Lock()

    def work(mode: bool) -> None:
        nonlocal inside, most
        with lock.hold(NO_DEADLINE, shared=mode) as held:
            assert held
            with guard:
                inside += 1
                most = max(most, inside)
            time.sleep(hold_s)
            with guard:
                inside -= 1

    threads = [threading.Thread(target=work, args=(mode,)) for mode in shared]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return most


def test_answers_share_the_gpu_with_one_another_but_never_with_a_run(tmp_path: Path) -> None:
    lock = GpuLock("0", tmp_path)
    assert _most_at_once(lock, [True, True, True]) == 3
    assert _most_at_once(lock, [True, False]) == 1
    assert _most_at_once(lock, [False, False]) == 1


def test_a_waiting_run_goes_before_answers_that_come_after_it(tmp_path: Path) -> None:
    """Answers overlapping one another would otherwise keep a run off the GPU for ever."""
    lock = GpuLock("0", tmp_path)
    order: list[str] = []
    first_in, release = threading.Event(), threading.Event()

    def answer(name: str, hold_s: float, entered: threading.Event | None = None) -> None:
        with lock.hold(NO_DEADLINE, shared=True) as held:
            assert held
            order.append(name)
            if entered is not None:
                entered.set()
                release.wait(10)
            time.sleep(hold_s)

    def run() -> None:
        with lock.hold(NO_DEADLINE) as held:
            assert held
            order.append("run")
            time.sleep(0.1)

    threads = [threading.Thread(target=answer, args=("first", 0.0, first_in))]
    threads[0].start()
    assert first_in.wait(10)
    threads.append(threading.Thread(target=run))
    threads[1].start()
    time.sleep(0.3)  # the run waits, holding the gate
    threads.append(threading.Thread(target=answer, args=("later", 0.0)))
    threads[2].start()
    time.sleep(0.3)
    assert order == ["first"], "the later answer waits behind the run"
    release.set()
    for thread in threads:
        thread.join()
    assert order == ["first", "run", "later"]


def test_another_process_answering_lets_answers_in_and_keeps_runs_out(tmp_path: Path) -> None:
    holder = _holder(tmp_path, 60, shared=True)
    try:
        with GpuLock("0", tmp_path).hold(Deadline.after(5), shared=True) as held:
            assert held
        with GpuLock("0", tmp_path).hold(Deadline.after(0.3)) as held:
            assert not held
    finally:
        holder.kill()
        holder.join()
