"""The system calls a candidate's process may not make, as one seccomp-BPF program.

A candidate is native code in a process we start (the C++ harness, or the Python kernel
runner's device code); the threat model says isolation is the operating system's job. Before
any candidate code runs, the process installs this filter on itself (and on every thread it
already has), so for the rest of its life it cannot create processes or run programs, signal
or re-prioritise any process but itself, arm timers or install signal handlers (work done
outside the timed call, or aimed at the reference), open network sockets, trace or read other
processes, or reach the kernel's administrative interfaces. Everything else stays allowed:
the CUDA driver needs ioctl, mmap, mprotect, openat, eventfd, poll and its own threads.

Denied calls fail with ``EPERM``, so a candidate sees an ordinary error instead of dying
mysteriously; ``clone3`` fails with ``ENOSYS``, the answer glibc takes as "use ``clone``",
which is then allowed for threads only (``CLONE_THREAD``, no namespace flags). The program
checks the architecture first (x86-64 only; another ABI, x32 included, kills the process),
because syscall numbers mean nothing across ABIs.

One source of truth, two installers: :data:`LOCKDOWN_CXX` (pasted into the generated C++
harness, called first thing in ``main``) and :func:`install_lockdown` (ctypes, for the
kernel runner). A few rules compare an argument with the process's own id; the program
holds a placeholder there, filled in at install time (fork is denied, so it never changes).
This module imports only the standard library: it is staged next to the kernel runner.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "DENIED",
    "LOCKDOWN_CXX",
    "RULES",
    "SYSCALLS",
    "Instruction",
    "filter_program",
    "install_lockdown",
    "render_cxx",
]

# Linux x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
SYSCALLS: Final = {
    "rt_sigaction": 13,
    "alarm": 37,
    "setitimer": 38,
    "socket": 41,
    "socketpair": 53,
    "clone": 56,
    "fork": 57,
    "vfork": 58,
    "execve": 59,
    "kill": 62,
    "ptrace": 101,
    "syslog": 103,
    "rt_sigqueueinfo": 129,
    "personality": 135,
    "setpriority": 141,
    "sched_setparam": 142,
    "sched_setscheduler": 144,
    "pivot_root": 155,
    "adjtimex": 159,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "iopl": 172,
    "ioperm": 173,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "tkill": 200,
    "sched_setaffinity": 203,
    "timer_create": 222,
    "clock_settime": 227,
    "tgkill": 234,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "ioprio_set": 251,
    "migrate_pages": 256,
    "unshare": 272,
    "move_pages": 279,
    "timerfd_create": 283,
    "rt_tgsigqueueinfo": 297,
    "perf_event_open": 298,
    "prlimit64": 302,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "finit_module": 313,
    "kexec_file_load": 320,
    "bpf": 321,
    "execveat": 322,
    "userfaultfd": 323,
    "pidfd_send_signal": 424,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "pidfd_open": 434,
    "clone3": 435,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "mount_setattr": 442,
}

DENIED: Final = (
    # New processes and programs (threads go through the clone rule below).
    "fork",
    "vfork",
    "execve",
    "execveat",
    # Signals to other processes (own-process signals: see the rules below).
    "tkill",
    "pidfd_send_signal",
    "pidfd_open",
    "pidfd_getfd",
    # Timers that run work outside the timed call.
    "alarm",
    "setitimer",
    "timer_create",
    "timerfd_create",
    # Other processes' memory.
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "process_madvise",
    "kcmp",
    # Namespaces, mounts and the file-system tree.
    "unshare",
    "setns",
    "mount",
    "umount2",
    "chroot",
    "pivot_root",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "name_to_handle_at",
    "open_by_handle_at",
    # Kernel interfaces a candidate has no use for.
    "bpf",
    "perf_event_open",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "personality",
    "keyctl",
    "add_key",
    "request_key",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "syslog",
    "acct",
    "quotactl",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
)
"""Always refused with ``EPERM``, whatever the arguments (and ``clone3`` with ``ENOSYS``)."""

# BPF opcodes and seccomp constants (linux/filter.h, linux/seccomp.h, linux/audit.h).
_LD_W_ABS: Final = 0x20
_JEQ: Final = 0x15
_JGE: Final = 0x35
_JSET: Final = 0x45
_RET: Final = 0x06
_KILL_PROCESS: Final = 0x80000000
_ERRNO: Final = 0x00050000
_ALLOW: Final = 0x7FFF0000
_EPERM: Final = 1
_ENOSYS: Final = 38
_AUDIT_ARCH_X86_64: Final = 0xC000003E
_X32_SYSCALL_BIT: Final = 0x40000000
_NR: Final = 0
_ARCH: Final = 4


def _low(arg: int) -> int:
    """Offset of the low 32 bits of ``seccomp_data.args[arg]`` (little-endian)."""
    return 16 + 8 * arg


def _high(arg: int) -> int:
    return _low(arg) + 4


_CLONE_THREAD: Final = 0x00010000
_CLONE_NAMESPACES: Final = 0x7E020000
"""CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET (clone has no CLONE_NEWTIME)."""
_GLIBC_SIGNALS: Final = (32, 33)
_AF_UNIX: Final = 1
_PRIO_PROCESS: Final = 0
_IOPRIO_WHO_PROCESS: Final = 1


@dataclass(frozen=True, slots=True)
class Instruction:
    """One ``struct sock_filter``; ``k=None`` is the process's own id, set at install."""

    code: int
    jt: int
    jf: int
    k: int | None


OWN: Final = None
"""An allowed argument value meaning "this process's id" (filled in at install)."""


@dataclass(frozen=True, slots=True)
class _Is:
    """The 64-bit argument is one of ``values``."""

    arg: int
    values: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class _Bits:
    """The argument's low 32 bits have some of ``mask`` set (``present``) or none of it."""

    arg: int
    mask: int
    present: bool


_Condition = _Is | _Bits


@dataclass(frozen=True, slots=True)
class _Rule:
    """Allowed when every condition of one of the alternatives holds; otherwise refused
    with ``errno``."""

    name: str
    alternatives: tuple[tuple[_Condition, ...], ...]
    errno: int = _EPERM


def _rule(name: str, *conditions: _Condition) -> _Rule:
    """Allowed when every condition holds."""
    return _Rule(name, (conditions,))


def _self(arg: int) -> _Is:
    """The argument names this process: 0 (the caller) or its own id."""
    return _Is(arg, (0, OWN))


RULES: Final = (
    # Threads only (glibc's pthread_create uses clone once clone3 says ENOSYS).
    _rule("clone", _Bits(0, _CLONE_NAMESPACES, False), _Bits(0, _CLONE_THREAD, True)),
    # Querying signal actions is fine; installing a handler is not, except on the two
    # signals glibc reserves for itself (SIGCANCEL, SIGSETXID): the SIGSETXID handler is
    # installed during the CUDA runtime's start-up (seen on the H100, driver 580).
    _Rule("rt_sigaction", ((_Is(1, (0,)),), (_Is(0, _GLIBC_SIGNALS),))),
    # Local sockets only: the CUDA driver's start-up creates, binds, listens on and
    # connects AF_UNIX sockets (the same machine); network families are refused, and the
    # run's own network namespace hides abstract-namespace sockets of other processes.
    _rule("socket", _Is(0, (_AF_UNIX,))),
    _rule("socketpair", _Is(0, (_AF_UNIX,))),
    # abort(), raise() and pthread_kill() signal the process itself.
    _rule("kill", _Is(0, (OWN,))),
    _rule("tgkill", _Is(0, (OWN,))),
    _rule("rt_sigqueueinfo", _Is(0, (OWN,))),
    _rule("rt_tgsigqueueinfo", _Is(0, (OWN,))),
    # Priorities, placement and limits of this process only, never of the reference's.
    _rule("setpriority", _Is(0, (_PRIO_PROCESS,)), _self(1)),
    _rule("ioprio_set", _Is(0, (_IOPRIO_WHO_PROCESS,)), _self(1)),
    _rule("sched_setaffinity", _self(0)),
    _rule("sched_setscheduler", _self(0)),
    _rule("sched_setparam", _self(0)),
    _rule("prlimit64", _self(0)),
    _rule("migrate_pages", _self(0)),
    _rule("move_pages", _self(0)),
)
"""Refused unless the arguments keep the call within this process."""

_Op = tuple[int, int | str, int | str, int | None]
_Item = _Op | str
"""A block before assembly: instructions with jumps to labels, and the labels."""


def _ret(action: int) -> _Op:
    return (_RET, 0, 0, action)


def _condition(condition: _Condition, deny: str, held: str) -> list[_Item]:
    """Falls through when ``condition`` holds, jumps to ``deny`` otherwise (``held``: a
    label of its own)."""
    if isinstance(condition, _Bits):
        load: _Op = (_LD_W_ABS, 0, 0, _low(condition.arg))
        if condition.present:
            return [load, (_JSET, 0, deny, condition.mask)]
        return [load, (_JSET, deny, 0, condition.mask)]
    items: list[_Item] = [
        (_LD_W_ABS, 0, 0, _high(condition.arg)),
        (_JEQ, 0, deny, 0),
        (_LD_W_ABS, 0, 0, _low(condition.arg)),
    ]
    *others, last = condition.values
    items += [(_JEQ, held, 0, value) for value in others]
    return [*items, (_JEQ, 0, deny, last), held]


def _rule_block(rule: _Rule) -> list[_Item]:
    """Matches the syscall number (in the accumulator), then returns in every path."""
    body: list[_Item] = []
    for a, conditions in enumerate(rule.alternatives):
        for c, condition in enumerate(conditions):
            body += _condition(condition, f"fail{a}", f"held{a}.{c}")
        body += [_ret(_ALLOW), f"fail{a}"]
    body.append(_ret(_ERRNO | rule.errno))
    return [(_JEQ, 0, "next", SYSCALLS[rule.name]), *body, "next"]


def _assemble(items: Sequence[_Item]) -> list[Instruction]:
    """Resolve labels to the relative jump offsets BPF uses (at most 255 forward)."""
    labels: dict[str, int] = {}
    ops: list[_Op] = []
    for item in items:
        if isinstance(item, str):
            labels[item] = len(ops)
        else:
            ops.append(item)

    def offset(target: int | str, here: int) -> int:
        if isinstance(target, int):
            return target
        jump = labels[target] - here - 1
        assert 0 <= jump <= 255, "a BPF jump goes forward by at most 255"
        return jump

    return [
        Instruction(code, offset(jt, i), offset(jf, i), k)
        for i, (code, jt, jf, k) in enumerate(ops)
    ]


def filter_program() -> list[Instruction]:
    """The whole program: architecture check, the rules, the plain denials, allow."""
    program = _assemble(
        [
            (_LD_W_ABS, 0, 0, _ARCH),
            (_JEQ, "native", 0, _AUDIT_ARCH_X86_64),
            _ret(_KILL_PROCESS),
            "native",
            (_LD_W_ABS, 0, 0, _NR),
            (_JGE, 0, "x64", _X32_SYSCALL_BIT),
            _ret(_KILL_PROCESS),
            "x64",
        ]
    )
    for rule in RULES:
        program += _assemble(_rule_block(rule))
    refused = [(name, _EPERM) for name in DENIED] + [("clone3", _ENOSYS)]
    for name, errno in refused:
        program += _assemble([(_JEQ, 0, 1, SYSCALLS[name]), _ret(_ERRNO | errno)])
    return [*program, Instruction(_RET, 0, 0, _ALLOW)]


def render_cxx() -> str:
    """C++ defining ``static bool regrapht_lockdown()``; true once the filter is in force.

    Installs with ``seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC)`` so
    threads that exist already are covered too, after ``PR_SET_NO_NEW_PRIVS`` (which an
    unprivileged process needs to install a filter). False on another architecture or
    where the kernel refuses; the caller decides (the harness should refuse to go on).
    """
    rows = ",\n".join(
        f"        {{0x{i.code:02x}, {i.jt}, {i.jf}, {'own' if i.k is None else f'0x{i.k:x}u'}}}"
        for i in filter_program()
    )
    return f"""\
// Generated from regrapht_core/verify/lockdown.py: the candidate process's system-call filter.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool regrapht_lockdown() {{
#if defined(__x86_64__)
    const unsigned own = static_cast<unsigned>(getpid());
    struct sock_filter filter[] = {{
{rows}
    }};
    struct sock_fprog program = {{
        static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter}};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) == 0;
#else
    return false;
#endif
}}
"""


LOCKDOWN_CXX: Final = render_cxx()

_PR_SET_NO_NEW_PRIVS: Final = 38
_SYS_SECCOMP: Final = 317
_SECCOMP_SET_MODE_FILTER: Final = 1
_SECCOMP_FILTER_FLAG_TSYNC: Final = 1


class _SockFilter(ctypes.Structure):
    _fields_ = (
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    )


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter)))


def install_lockdown() -> bool:
    """Install the filter on this process and all its threads; false if it is not in force
    (another architecture, or the kernel refused). Irreversible: call it after everything
    trusted that needs a denied call (pycuda's context and modules) and before any
    candidate code runs."""
    if os.uname().machine != "x86_64":
        return False
    own = os.getpid()
    program = filter_program()
    rows = (_SockFilter * len(program))(
        *(_SockFilter(i.code, i.jt, i.jf, own if i.k is None else i.k) for i in program)
    )
    fprog = _SockFprog(len(program), rows)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    installed: int = libc.syscall(
        ctypes.c_long(_SYS_SECCOMP),
        ctypes.c_long(_SECCOMP_SET_MODE_FILTER),
        ctypes.c_long(_SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(fprog),
    )
    return installed == 0
