"""One GPU, one timed candidate at a time, across processes.

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
cancel event too, so a cancelled job stops waiting within a poll.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from regrapht_core.contracts.deadline import Deadline

__all__ = ["GpuLock", "gpu_key", "lock_folder"]

_POLL_S = 0.05
"""How often a waiting process tries the file lock again (and reads the deadline)."""


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
    """A thread lock and a file lock for one GPU; ``hold`` takes both or neither."""

    def __init__(self, key: str, folder: Path | None = None) -> None:
        self.path = (folder or lock_folder()) / f"gpu-{key}.lock"
        self._threads = threading.Lock()
        self.waited_s = 0.0
        """Seconds spent waiting for the GPU (this process's other threads, or others)."""
        self.held_s = 0.0
        """Seconds the GPU was held: with ``waited_s``, how busy sharing workers keep it."""

    @contextmanager
    def hold(self, deadline: Deadline, cancel: threading.Event | None = None) -> Iterator[bool]:
        """Yields ``True`` holding the GPU, or ``False`` if ``deadline`` passed or ``cancel``
        was set first (the caller reports that and must not run anything)."""
        began = time.monotonic()
        if not self._acquire_thread(deadline, cancel):
            self.waited_s += time.monotonic() - began
            yield False
            return
        try:
            fd = self._acquire_file(deadline, cancel)
            got = time.monotonic()
            self.waited_s += got - began
            try:
                yield fd is not None
            finally:
                if fd is not None:
                    os.close(fd)  # closing the descriptor releases the flock
                    self.held_s += time.monotonic() - got
        finally:
            self._threads.release()

    def _acquire_thread(self, deadline: Deadline, cancel: threading.Event | None) -> bool:
        while not deadline.stops(cancel):
            if self._threads.acquire(timeout=deadline.cap(_POLL_S)):
                return True
        return False

    def _acquire_file(self, deadline: Deadline, cancel: threading.Event | None) -> int | None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if deadline.stops(cancel):
                    os.close(fd)
                    return None
                time.sleep(_POLL_S)
