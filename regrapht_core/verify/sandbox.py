"""Run an untrusted program in a fresh, bounded process and report what happened.

Every candidate binary (and every compiler invocation over candidate source) goes through
here. The child gets its own session so a wall-clock timeout kills the whole process group,
grandchildren included; the group is known to :mod:`lifetime` while it lives (a SIGTERM
of the verifier's process kills it), and the child dies with its parent even when the
parent is killed outright (``PR_SET_PDEATHSIG``); CPU-time and file-size limits stop
runaway loops and disk filling even if the wall clock is missed; stdout and stderr are
read through pipes and truncated, so a chatty candidate cannot exhaust the verifier's
memory. ``RLIMIT_AS`` is deliberately absent: the CUDA driver reserves terabytes of
virtual address space and would fail to start.

When the verifier runs as root (the GPU machine does), the child drops to ``nobody`` before
``exec`` and, where the kernel permits, enters an empty network namespace first (joining a
new namespace needs the privileges that are dropped right after). A user who is not root
gets the same namespaces inside a new user namespace where the kernel allows unprivileged
ones (the user mapped to itself, so files and the GPU's device nodes keep their owners).

Nothing outlives a run: where namespaces are available the program runs as the first
process (PID 1) of its own PID namespace (with a ``/proc`` of its own, in a mount namespace
of its own), so when it ends the kernel kills everything it started, also what left its
process group with ``setsid``; a small waiter process outside the namespace (this process
forked once more, doing nothing but wait) reports its exit status. The program is the
namespace's init: a signal it sends itself without a handler is ignored, and a spent CPU
limit ends it with SIGKILL. Nothing here raises for an outcome of the child: a timeout, a
signal or a failure to start is a field of :class:`RunOutcome`.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import io
import mmap
import os
import pwd
import resource
import select
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import cast

from regrapht_core.lifetime import child_group, die_with_parent

__all__ = [
    "Limits",
    "RunOutcome",
    "Runner",
    "allow_traversal",
    "network_isolation_available",
    "prepare_private_dir",
    "process_isolation_available",
    "run_isolated",
    "user_namespace_available",
]

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWNS = 0x00020000
_PR_SET_PDEATHSIG = 1
_MS_REC = 0x4000
_MS_PRIVATE = 0x40000
_MS_PROC = 0x2 | 0x4 | 0x8
"""MS_NOSUID | MS_NODEV | MS_NOEXEC"""
_NOBODY = "nobody"


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds for one child process; ``drop_privileges`` only has an effect as root."""

    wall_s: float = 60.0
    cpu_s: int = 120
    file_bytes: int = 1 << 30
    output_bytes: int = 64 * 1024
    isolate_network: bool = True
    drop_privileges: bool = True
    loopback: bool = False
    """With ``isolate_network``: the namespace's own loopback is up, for a program that
    talks to itself over 127.0.0.1 (compute-sanitizer and its target) and must still
    reach nothing else. Each such namespace has its own ports, so two sanitizers on one
    host cannot take each other's (four concurrent ones on four H200s hung)."""
    isolate_processes: bool = True
    """Run in a PID namespace of its own where one is available (see the module docstring)."""
    nice: int = 0
    """Added to the child's niceness: compilers yield the CPU to the GPU runs and their
    timing (a run's host side and the reference are timed on the CPU)."""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    returncode: int | None
    """Exit status; negative for a signal (as :mod:`subprocess` reports it); ``None`` if the
    program could not be started at all."""
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    truncated: bool = False
    network_isolated: bool = False
    processes_isolated: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def describe(self) -> str:
        """One line for feedback: why the process ended."""
        if self.timed_out:
            return f"timed out after {self.wall_s:.1f} s (process group killed)"
        if self.returncode is None:
            return "could not be started"
        if self.returncode < 0:
            name = signal.Signals(-self.returncode).name
            return f"killed by signal {name}"
        return f"exited with status {self.returncode}"


Runner = Callable[[Sequence[str], Path, Limits, Mapping[str, str]], RunOutcome]
"""How the verifier starts processes; tests and the pool inject their own."""


def _nobody() -> tuple[int, int] | None:
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(_NOBODY)
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def prepare_private_dir(path: Path) -> None:
    """Make a run directory writable by the (possibly unprivileged) child, and only by it.

    The directory is created by the verifier; as root the child runs as ``nobody`` and
    must own it, while every other user is shut out. The child starts inside it (the
    working directory is entered before privileges drop), so callers name programs and
    files relative to it and no ancestor needs to be reachable by ``nobody``.
    """
    path.mkdir(parents=True, exist_ok=True)
    ids = _nobody()
    for item in (path, *path.rglob("*")):
        if ids is not None:
            os.chown(item, *ids)
    path.chmod(0o700)


def allow_traversal(path: Path) -> None:
    """Let the child reach ``path`` by its absolute name: ancestors below the system temp
    directory get search permission (``o+x``), never read permission, so nothing in them
    can be listed. Needed by an interpreter, which turns its search path absolute; a
    native program reaches everything relative to its working directory instead.
    """
    top = Path(tempfile.gettempdir()).resolve()
    for parent in path.resolve().parents:
        if parent == top or top not in parent.parents:
            return
        parent.chmod(parent.stat().st_mode | 0o111)


def _probe(isolate_network: bool, isolate_processes: bool) -> bool:
    limits = Limits(
        wall_s=10.0,
        drop_privileges=False,
        isolate_network=isolate_network,
        isolate_processes=isolate_processes,
    )
    return _run(["/bin/true"], Path("/"), limits, {}).returncode == 0


@cache
def process_isolation_available() -> bool:
    """Whether a child can run in its own PID namespace here (root, or a user namespace).

    Probed once per process; where it is refused, runs go without it (and say so in
    :attr:`RunOutcome.processes_isolated`): the group kill and the candidate's system-call
    filter remain.
    """
    return _probe(isolate_network=False, isolate_processes=True)


@cache
def network_isolation_available() -> bool:
    """Whether a child can enter its own network namespace here: as root, or as another
    user where unprivileged user namespaces are allowed (:func:`user_namespace_available`).

    Probed once per process; where it is refused, callers run without it and say so, since
    failing every candidate on a workstation without the capability would be worse.
    """
    return _probe(isolate_network=True, isolate_processes=False)


def user_namespace_available() -> bool:
    """Whether the namespaces here come with a user namespace (a user who is not root)."""
    return os.geteuid() != 0 and (network_isolation_available() or process_isolation_available())


def _map_to_self(uid: int, gid: int) -> None:
    """Inside a fresh user namespace: the user and group map to themselves, supplementary
    groups can no longer be dropped (the kernel requires that before a group map)."""
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1\n")
    Path("/proc/self/setgroups").write_text("deny\n")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1\n")


def _become_init(libc: ctypes.CDLL, arm_parent_death: Callable[[], None]) -> None:
    """After ``unshare(CLONE_NEWPID | CLONE_NEWNS)``: fork; the child returns to be
    exec'd as PID 1 of the namespace, with a ``/proc`` of its own (the CUDA driver finds
    itself there by its PID and fails to start without one); the parent, which dies with
    this process, closes every descriptor (the pipes and subprocess's exec error pipe must
    see only the child), waits, and ends as the child ended."""
    child = os.fork()
    if child == 0:
        private = libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0
        if not private or libc.mount(b"proc", b"/proc", b"proc", _MS_PROC, None) != 0:
            raise OSError(ctypes.get_errno(), "cannot mount a /proc of its own")
        return
    arm_parent_death()
    os.closerange(0, 1 << 20)
    status = os.waitpid(child, 0)[1]
    if os.WIFSIGNALED(status):
        killer = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):
            signal.signal(killer, signal.SIG_DFL)
        os.kill(os.getpid(), killer)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = struct.Struct("16sH22x")
"""``struct ifreq`` (40 bytes on Linux x86-64 and arm64) holding a name and its flags."""


def _loopback_up() -> None:
    """Bring up ``lo`` in a fresh network namespace (it starts down): the
    ``ip link set lo up`` of a container runtime, by the interface-flags ioctl."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        _, flags = _IFREQ.unpack(fcntl.ioctl(probe, _SIOCGIFFLAGS, _IFREQ.pack(b"lo", 0)))
        fcntl.ioctl(probe, _SIOCSIFFLAGS, _IFREQ.pack(b"lo", flags | _IFF_UP))


def _limit_child(limits: Limits, ids: tuple[int, int] | None) -> Callable[[], None]:
    libc = ctypes.CDLL(None, use_errno=True)
    arm_parent_death = die_with_parent()
    own_pids = limits.isolate_processes
    flags = _CLONE_NEWNET if limits.isolate_network else 0
    flags |= _CLONE_NEWPID | _CLONE_NEWNS if own_pids else 0
    as_user = flags != 0 and os.geteuid() != 0
    uid, gid = os.getuid(), os.getgid()

    def apply() -> None:
        # Runs in the forked child before exec; order matters: the namespaces and the
        # /proc mount need root (or a user namespace of their own), the PID namespace's
        # init is the next child, privileges drop last.
        if flags and libc.unshare(flags | (_CLONE_NEWUSER if as_user else 0)) != 0:
            raise OSError(ctypes.get_errno(), "cannot enter new namespaces")
        if as_user:
            _map_to_self(uid, gid)
        if limits.isolate_network and limits.loopback:
            _loopback_up()
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if limits.nice:
            os.nice(limits.nice)
        if own_pids:
            _become_init(libc, arm_parent_death)
        if ids is not None:
            os.setgroups([])
            os.setgid(ids[1])
            os.setuid(ids[0])
        # After the uid change, which clears it; in a PID namespace the parent is the
        # waiter, outside it (the PID check of ``arm_parent_death`` does not apply there).
        if not own_pids:
            arm_parent_death()
        elif libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot set the parent-death signal")

    return apply


class _CappedReader(threading.Thread):
    """Keeps the first ``cap`` bytes of a pipe and drains the rest, so the child never blocks."""

    def __init__(self, stream: io.BufferedReader, cap: int) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self._cap = cap
        self.data = bytearray()
        self.truncated = False

    def run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := self._stream.read1(65536):
                room = self._cap - len(self.data)
                if room > 0:
                    self.data += chunk[:room]
                if len(chunk) > room:
                    self.truncated = True

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def run_isolated(
    argv: Sequence[str],
    cwd: Path,
    limits: Limits,
    env: Mapping[str, str],
) -> RunOutcome:
    """Start ``argv`` in ``cwd`` under ``limits``; wait, kill the group, report.

    The environment is exactly ``env`` (nothing is inherited), so secrets of the verifier's
    environment never reach the candidate.
    """
    return _run(argv, cwd, _available(limits), env)


def _available(limits: Limits) -> Limits:
    """``limits`` without a PID namespace where none can be had (probed once)."""
    if limits.isolate_processes and not process_isolation_available():
        return replace(limits, isolate_processes=False)
    return limits


class _Child:
    """A started child under ``limits``: its process, output readers and live group.

    Shared by :func:`run_isolated` (wait, then finish) and :class:`Session` (talk, then
    finish), so both start, bound and end a child the same way.
    """

    def __init__(self, proc: subprocess.Popen[bytes], limits: Limits) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.limits = limits
        self.began = time.monotonic()
        self._group = contextlib.ExitStack()
        self._group.enter_context(child_group(proc.pid))
        self._readers = [
            _CappedReader(cast(io.BufferedReader, stream), limits.output_bytes)
            for stream in (proc.stdout, proc.stderr)
        ]
        for reader in self._readers:
            reader.start()

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        cwd: Path,
        limits: Limits,
        env: Mapping[str, str],
        pass_fds: Sequence[int] = (),
    ) -> _Child | RunOutcome:
        """The started child, or the outcome of one that could not be started."""
        ids = _nobody() if limits.drop_privileges else None
        try:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=_limit_child(limits, ids),  # noqa: PLW1509 - limits must precede exec
                pass_fds=tuple(pass_fds),
            )
        except (OSError, subprocess.SubprocessError) as error:
            return RunOutcome(None, "", f"{argv[0]}: {error}", 0.0)
        return cls(proc, limits)

    def finish(self, *, timed_out: bool) -> RunOutcome:
        """Kill the group (a child that exited may have left grandchildren), reap, report."""
        _kill_group(self.proc.pid)
        self.proc.wait()
        self._group.close()
        wall = time.monotonic() - self.began
        for reader in self._readers:
            reader.join(timeout=5.0)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.proc.stdout.close()
        self.proc.stderr.close()
        out, err = self._readers
        return RunOutcome(
            returncode=self.proc.returncode,
            stdout=out.text(),
            stderr=err.text(),
            wall_s=wall,
            timed_out=timed_out,
            truncated=out.truncated or err.truncated,
            network_isolated=self.limits.isolate_network,
            processes_isolated=self.limits.isolate_processes,
        )


def _run(argv: Sequence[str], cwd: Path, limits: Limits, env: Mapping[str, str]) -> RunOutcome:
    child = _Child.start(argv, cwd, limits, env)
    if isinstance(child, RunOutcome):
        return child
    try:
        child.proc.wait(timeout=limits.wall_s)
    except subprocess.TimeoutExpired:
        return child.finish(timed_out=True)
    return child.finish(timed_out=False)


class Session:
    """A bounded child the verifier talks to while it runs: commands in, answers out.

    Started like :func:`run_isolated` (same limits, privileges, namespace, group kill) with
    two extra pipes and a shared memory ``window`` of ``window_bytes`` (for answers too big
    for a line) passed as file descriptors the child is told about in its arguments:
    ``argv IN_FD OUT_FD WINDOW_FD``. The window is made for this session alone, so nothing
    one child leaves in it reaches another. Reading an answer waits at most until the
    wall-clock limit; :meth:`close` always kills the whole group and reports how the child
    ended.
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        limits: Limits,
        env: Mapping[str, str],
        *,
        window_bytes: int,
    ) -> None:
        self._limits = _available(limits)
        shared = os.memfd_create("regrapht-window", os.MFD_CLOEXEC)
        try:
            os.ftruncate(shared, max(window_bytes, 1))
            self.window = mmap.mmap(shared, max(window_bytes, 1))
            command_read, self._command = os.pipe()
            self._answers, answer_write = os.pipe()
            try:
                self._child = _Child.start(
                    [*argv, str(command_read), str(answer_write), str(shared)],
                    cwd,
                    self._limits,
                    env,
                    pass_fds=(command_read, answer_write, shared),
                )
            finally:
                os.close(command_read)
                os.close(answer_write)
        finally:
            os.close(shared)
        self._start = time.monotonic()
        self._pending = b""
        self._timed_out = False

    def send(self, lines: Sequence[str]) -> bool:
        """Write commands without waiting; ``False`` if the child is gone."""
        if isinstance(self._child, RunOutcome):
            return False
        data = b"".join(line.encode() + b"\n" for line in lines)
        try:
            while data:
                data = data[os.write(self._command, data) :]
        except OSError:
            return False
        return True

    def ask(self, line: str | None, *, wall_s: float | None = None) -> str | None:
        """Send one command (``None``: none, just read) and wait for a one-line answer;
        ``None`` if the child ended, broke the protocol, or ran past its limit (then
        :meth:`close` says which)."""
        if isinstance(self._child, RunOutcome) or (line is not None and not self.send([line])):
            return None
        left = self._limits.wall_s - (time.monotonic() - self._start)
        limit = min(left, wall_s) if wall_s is not None else left
        end = time.monotonic() + max(limit, 0.0)
        while b"\n" not in self._pending:
            remaining = end - time.monotonic()
            if remaining <= 0:
                self._timed_out = True
                return None
            ready, _, _ = select.select([self._answers], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._answers, 65536)
            if not chunk:
                return None
            self._pending += chunk
            if len(self._pending) > self._limits.output_bytes:
                return None
        answer, _, self._pending = self._pending.partition(b"\n")
        return answer.decode("utf-8", errors="replace")

    def close(self) -> RunOutcome:
        """Kill the group (whatever it is doing), reap it, and say how it ended."""
        for end in (self._command, self._answers):
            with contextlib.suppress(OSError):
                os.close(end)
        with contextlib.suppress(BufferError):
            self.window.close()
        if isinstance(self._child, RunOutcome):
            return self._child
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._child.proc.wait(timeout=0.5)
        return self._child.finish(timed_out=self._timed_out)
