"""One GPU, one timed candidate at a time, across processes; model answers alongside each other.

The verifier's timings are only true if nothing else runs on the GPU meanwhile. Inside one
process a lock has always serialized the runs; but two ReGraphT processes can share a GPU:
two editor windows, each with its language server, or several mining workers placed on one
GPU to keep its compilers busy (`regrapht graph mine --workers-per-gpu`). Each would time
its candidates against the other's kernels. So the lock is also an advisory ``flock`` on a
file named for the GPU, which the kernel releases when its holder exits or crashes: a
killed worker never leaves the GPU locked.

Waiting respects the job's deadline: a job whose time runs out while another process holds
the GPU stops waiting and reports that, instead of hanging the editor. A model that runs on
the same GPU takes the same lock for each answer (``model/llama.py``), passing the job's
cancel event too, so a cancelled job stops waiting within a poll. It takes it shared: an
answer must not overlap a timing run, but answers may overlap one another, and with four
benchmark processes on one H200, answers waited most of their time (issue 16's five-method
run: 3.6 to 5.6 s per answer in its one-shot searches, where ``regrapht model check``
generates 256 tokens in 0.5 s).
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from regrapht_core.contracts.deadline import Deadline

__all__ = ["GpuLock", "gpu_key", "lock_folder"]

_POLL_S = 0.01
"""How often a waiter tries the file lock again (and reads the deadline). Threads of one
process wait this way too, so it is also the most a handoff between them can lose; a try
is one system call."""


def gpu_key(run_environment: Mapping[str, str]) -> str:
    """The GPU a candidate's run lands on, as its process sees it: the first entry of
    ``CUDA_VISIBLE_DEVICES`` (an index or a UUID; Ray and schedulers set physical ones),
    else device 0. Two processes on one host that name the same GPU get the same key."""
    visible = run_environment.get("CUDA_VISIBLE_DEVICES")
    first = "0" if visible is None else (visible.split(",")[0].strip() or "none")
    return re.sub(r"[^A-Za-z0-9_.-]", "_", first)


def lock_folder() -> Path:
    """Per user, so another user's lock file can never block this one's (or be swapped
    for a link): ``$XDG_RUNTIME_DIR/regrapht``, else ``<tmp>/regrapht-<uid>``."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) / "regrapht" if runtime else None
    return base or Path(tempfile.gettempdir()) / f"regrapht-{os.getuid()}"


class GpuLock:
    """Turns on one GPU, across threads and processes: exclusive for what must run alone
    (every candidate's runs, the reference's timing), shared for a model's answers, which
    may overlap one another but never a run.

    Each turn is an ``flock`` on the GPU's file, taken through a second file, the gate: a
    waiter holds the gate until it has its turn, so an exclusive waiter keeps answers that
    arrive after it waiting behind it, and answers that overlap one another cannot keep the
    runs off the GPU for ever. ``flock`` belongs to an open file, not a process, so threads
    of one process take turns the same way."""

    def __init__(self, key: str, folder: Path | None = None) -> None:
        folder = folder or lock_folder()
        self.path = folder / f"gpu-{key}.lock"
        self.gate = folder / f"gpu-{key}.gate"
        self._counts = threading.Lock()
        self.waited_s = 0.0
        """Seconds spent waiting for the GPU (this process's other threads, or others)."""
        self.held_s = 0.0
        """Seconds the GPU was held (shared holds of several threads add up): with
        ``waited_s``, how busy sharing workers keep it."""

    @contextmanager
    def hold(
        self, deadline: Deadline, cancel: threading.Event | None = None, *, shared: bool = False
    ) -> Iterator[bool]:
        """Yields ``True`` holding the GPU (alone, or with other ``shared`` holders), or
        ``False`` if ``deadline`` passed or ``cancel`` was set first (the caller reports
        that and must not run anything)."""
        began = time.monotonic()
        fd = self._acquire(deadline, cancel, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        got = time.monotonic()
        with self._counts:
            self.waited_s += got - began
        try:
            yield fd is not None
        finally:
            if fd is not None:
                os.close(fd)  # closing the descriptor releases the flock
                with self._counts:
                    self.held_s += time.monotonic() - got

    def shared_turn(
        self, deadline: Deadline, cancel: threading.Event | None = None
    ) -> AbstractContextManager[bool]:
        """``hold(..., shared=True)``: what a model on this GPU holds for each answer."""
        return self.hold(deadline, cancel, shared=True)

    def _acquire(self, deadline: Deadline, cancel: threading.Event | None, mode: int) -> int | None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        gate = _open(self.gate)
        try:
            if not _flock(gate, fcntl.LOCK_EX, deadline, cancel):
                return None
            fd = _open(self.path)
            if _flock(fd, mode, deadline, cancel):
                return fd
            os.close(fd)
            return None
        finally:
            os.close(gate)  # through the gate or not, the next waiter may try it


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


def _flock(fd: int, mode: int, deadline: Deadline, cancel: threading.Event | None) -> bool:
    """Take ``mode`` on ``fd`` unless the deadline or the cancel comes first, trying again
    every poll: a waiting process reads its deadline and cancel between tries."""
    while not deadline.stops(cancel):
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            time.sleep(deadline.cap(_POLL_S))
    return False
