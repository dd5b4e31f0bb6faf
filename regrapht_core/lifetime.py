"""What the engine leaves behind while it works, and how it goes when the process goes.

Compilers, references and candidates run as child process groups (``verify.sandbox``, and
the reference validation of ``tasks.validate``), in
directories that hold the user's code. None of it may outlive the process:

- every directory is made under one scratch root per process, removed at exit (``atexit``);
- every live child group is known here, so :func:`release` can kill them all; a process
  that is told to stop (SIGTERM) calls it before it exits (:func:`exit_on_signals`);
- a process killed outright (SIGKILL) runs nothing, so each child also gets a parent-death
  signal (the sandbox sets it) and the kernel kills it with its parent; the scratch root it
  left is removed by the next process that makes one (:func:`sweep_stale`).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import logging
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

__all__ = [
    "child_group",
    "die_with_parent",
    "exit_on_signals",
    "kill_children",
    "release",
    "scratch",
    "scratch_dir",
    "scratch_root",
    "sweep_stale",
]

log = logging.getLogger(__name__)


class _Leftovers:
    """This process's scratch root and live child process groups."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.groups: set[int] = set()
        self.root: Path | None = None
        self.owner = 0
        """The pid the root belongs to: a forked child makes its own."""


_LEFT = _Leftovers()
_PR_SET_PDEATHSIG = 1
_ROOT_PREFIX = "regrapht-"


def scratch_root() -> Path:
    """This process's private temp directory (``regrapht-<pid>-*``), made on first use."""
    with _LEFT.lock:
        if _LEFT.root is None or _LEFT.owner != os.getpid():
            sweep_stale()
            _LEFT.root = Path(tempfile.mkdtemp(prefix=f"{_ROOT_PREFIX}{os.getpid()}-"))
            _LEFT.owner = os.getpid()
            atexit.register(_remove, _LEFT.root, os.getpid())
        return _LEFT.root


def sweep_stale() -> None:
    """Remove the scratch roots of processes that are gone (killed before they could)."""
    for root in Path(tempfile.gettempdir()).glob(f"{_ROOT_PREFIX}*-*"):
        pid = root.name.removeprefix(_ROOT_PREFIX).split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):  # another process may be sweeping it too
            if root.lstat().st_uid == os.geteuid() and root.is_dir():
                shutil.rmtree(root, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def scratch_dir(prefix: str) -> Path:
    """A new directory under the scratch root; the caller removes it when done."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=scratch_root()))


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """A scratch directory for the ``with`` block."""
    path = scratch_dir(prefix)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def child_group(pgid: int) -> Iterator[None]:
    """Known as a live child group for the ``with`` block (the child's lifetime)."""
    with _LEFT.lock:
        _LEFT.groups.add(pgid)
    try:
        yield
    finally:
        with _LEFT.lock:
            _LEFT.groups.discard(pgid)


def die_with_parent() -> Callable[[], None]:
    """What a child runs between fork and exec to be killed with this process, for a kill
    that runs no handler (SIGKILL): ``PR_SET_PDEATHSIG``. Made in the parent (loading libc
    after a fork is unsafe). The signal comes when the forking thread ends; that thread
    waits for the child, so in effect when the process does. A privilege drop clears it:
    call this after one."""
    libc = ctypes.CDLL(None, use_errno=True)
    parent = os.getpid()

    def arm() -> None:
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot set the parent-death signal")
        if os.getppid() != parent:  # the parent died before the signal was set
            os._exit(1)

    return arm


def kill_children() -> None:
    """SIGKILL every live child group (compilers fork: the whole group goes)."""
    with _LEFT.lock:
        groups = list(_LEFT.groups)
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def release() -> None:
    """Kill every child group, then remove the scratch root with the code in it."""
    kill_children()
    with _LEFT.lock:
        root, owner = _LEFT.root, _LEFT.owner
        _LEFT.root = None  # a later scratch directory gets a new root
    if root is not None:
        _remove(root, owner)


def _remove(root: Path, owner: int) -> None:
    if owner == os.getpid():
        shutil.rmtree(root, ignore_errors=True)


def exit_on_signals(
    before: Callable[[], None] | None = None,
    signals: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGHUP),
) -> None:
    """On ``signals``: run ``before`` (e.g. cancel the jobs), :func:`release`, and end the
    process by the same signal. Call from the main thread, once, at start.

    The process ends at once, without waiting for worker threads: a job's thread may be
    in the middle of a step that a cancel only stops at its end.
    """

    def handle(signum: int, _: FrameType | None) -> None:
        try:
            if before is not None:
                before()
        finally:
            release()
            for handler in logging.getLogger().handlers:
                with contextlib.suppress(Exception):
                    handler.flush()
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

    for number in signals:
        signal.signal(number, handle)
