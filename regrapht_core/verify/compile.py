"""Compile candidate, reference and harness as separate translation units; link them.

Compilation needs no GPU, so it runs (and is tested) on every machine. Compilers process
untrusted source, so they run through the same bounded runner as candidates: a timeout
that kills the whole process group (nvcc forks cicc, ptxas, the host compiler), capped
logs, and a file-size limit that doubles as the output-size cap. Objects are cached by the
hash of source, flags and compiler version, so repeated candidates (the search revisits
code) and the per-task harness cost one compile each. Every tool run is also cut at the
job's deadline: a compile it stops is a timed-out outcome, not an error.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.lifetime import scratch
from regrapht_core.verify.device import query_command
from regrapht_core.verify.sandbox import Limits, Runner, RunOutcome, run_isolated

__all__ = ["CompileOutcome", "Compiler", "trim_log"]

_CUDA_FLAGS = ("-O3", "-lineinfo")
_HOST_FLAGS = ("-O3",)
_STANDARD = "c++17"
"""What a unit compiles as unless its task says otherwise (``Task.standard``)."""
_FEEDBACK_LINES = 20


@dataclass(frozen=True, slots=True)
class CompileOutcome:
    ok: bool
    path: Path | None
    log: str
    cached: bool = False
    timed_out: bool = False
    """Stopped by its timeout or the job's deadline: not the source's fault."""


def trim_log(log: str, *, work_dir: Path | None = None) -> str:
    """The first errors a proposer can act on, without temp paths or pages of notes."""
    if work_dir is not None:
        log = log.replace(str(work_dir) + "/", "")
    lines = [line for line in log.splitlines() if line.strip()]
    errors = [i for i, line in enumerate(lines) if re.search(r"\berror\b", line, re.I)]
    start = max(errors[0] - 1, 0) if errors else 0
    picked = lines[start : start + _FEEDBACK_LINES]
    more = len(lines) - start - len(picked)
    return "\n".join(picked) + (f"\n... ({more} more lines)" if more > 0 else "")


_OUT_OF_TIME = RunOutcome(None, "", "the job's time limit passed before this step", 0.0, True)


class Compiler:
    """nvcc and g++ with a content-addressed object cache under ``cache_dir``.

    Safe to share between threads: each compile works in its own temp directory and
    publishes its object with an atomic rename. ``environment`` is what every tool run
    starts from (``VerifyConfig.tool_environment``); ``HOME`` and ``TMPDIR`` are its own.
    """

    def __init__(
        self,
        cache_dir: Path,
        arch: str,
        *,
        timeout_s: float = 120.0,
        max_output_bytes: int = 64 << 20,
        runner: Runner = run_isolated,
        nvcc: str = "nvcc",
        cxx: str = "g++",
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.cache_dir = cache_dir
        self.arch = arch
        self._limits = Limits(
            wall_s=timeout_s,
            cpu_s=int(timeout_s * 4) + 1,
            file_bytes=max_output_bytes * 4,
            output_bytes=256 * 1024,
            isolate_network=False,
            isolate_processes=False,
            drop_privileges=False,
            nice=19,
        )
        self._max_output = max_output_bytes
        self._runner = runner
        self._nvcc = nvcc
        self._cxx = cxx
        self._environment = dict(os.environ if environment is None else environment)
        self._versions = {
            tool: query_command([tool, "--version"]) or "missing" for tool in (nvcc, cxx)
        }
        cache_dir.mkdir(parents=True, exist_ok=True)

    @property
    def environment(self) -> dict[str, str]:
        """What every tool run starts from (a copy)."""
        return dict(self._environment)

    def cuda_object(
        self,
        source: str,
        *,
        defines: Sequence[str] = (),
        standard: str = _STANDARD,
        deadline: Deadline = NO_DEADLINE,
    ) -> CompileOutcome:
        """A ``.o`` from CUDA source: ``nvcc -c -arch=<arch> -O3 -lineinfo -std=c++17``."""
        flags = (
            f"-arch={self.arch}",
            *_CUDA_FLAGS,
            f"-std={standard}",
            *(f"-D{d}" for d in defines),
        )
        return self._object(self._nvcc, "cu", source, flags, deadline=deadline)

    def host_object(
        self,
        source: str,
        *,
        defines: Sequence[str] = (),
        standard: str = _STANDARD,
        deadline: Deadline = NO_DEADLINE,
    ) -> CompileOutcome:
        """A ``.o`` from the sequential reference: ``g++ -c -O3 -std=c++17``, one thread."""
        flags = (*_HOST_FLAGS, f"-std={standard}", *(f"-D{d}" for d in defines))
        return self._object(self._cxx, "cpp", source, flags, deadline=deadline)

    def cuda_module(
        self, source: str, *, standard: str = _STANDARD, deadline: Deadline = NO_DEADLINE
    ) -> CompileOutcome:
        """A ``.cubin`` (device code only) for the driver to load: the kernel→kernel mode's
        unit, where candidate and reference define the same kernel and must never share one
        module. Host code in ``source`` is parsed but not compiled."""
        flags = (f"-arch={self.arch}", *_CUDA_FLAGS, f"-std={standard}")
        return self._object(self._nvcc, "cu", source, flags, output="-cubin", deadline=deadline)

    def _run(self, argv: Sequence[str], work: Path, deadline: Deadline) -> RunOutcome:
        """One tool run in ``work``, its timeout cut to what is left before the deadline."""
        if deadline.expired:
            return _OUT_OF_TIME
        limits = replace(self._limits, wall_s=deadline.cap(self._limits.wall_s))
        return self._runner(
            argv, work, limits, {**self._environment, "HOME": str(work), "TMPDIR": str(work)}
        )

    def _object(
        self,
        tool: str,
        suffix: str,
        source: str,
        flags: Sequence[str],
        *,
        output: str = "-c",
        deadline: Deadline,
    ) -> CompileOutcome:
        key = hashlib.sha256(
            "\0".join((tool, self._versions[tool], output, *flags, source)).encode()
        ).hexdigest()[:32]
        extension = ".cubin" if output == "-cubin" else ".o"
        target = self.cache_dir / f"{key}{extension}"
        if target.exists():
            return CompileOutcome(True, target, "", cached=True)
        with scratch("cc-") as work:
            src = work / f"unit.{suffix}"
            src.write_text(source)
            obj = work / f"unit{extension}"
            outcome = self._run([tool, output, *flags, src.name, "-o", obj.name], work, deadline)
            log = trim_log(outcome.stderr + outcome.stdout, work_dir=work)
            if not outcome.ok or not obj.exists():
                return _failed(outcome, log)
            if obj.stat().st_size > self._max_output:
                size = obj.stat().st_size
                return CompileOutcome(
                    False, None, f"object is {size} bytes, over the {self._max_output}-byte cap"
                )
            staged = self.cache_dir / f".{key}.{secrets.token_hex(4)}{extension}"
            shutil.copyfile(obj, staged)
            staged.replace(target)
        return CompileOutcome(True, target, log)

    def link(
        self,
        objects: Sequence[Path],
        out: Path,
        *,
        wraps: Sequence[str] = (),
        cuda: bool = True,
        deadline: Deadline = NO_DEADLINE,
    ) -> CompileOutcome:
        """Link with nvcc (static cudart) or, for the host-only reference, with g++."""
        wrap_flags = [f"-Wl,--wrap={symbol}" for symbol in wraps]
        if cuda:
            argv = [self._nvcc, f"-arch={self.arch}", "-o", str(out), *map(str, objects)]
            for symbol in wraps:
                argv += ["-Xlinker", f"--wrap={symbol}"]
        else:
            argv = [self._cxx, "-o", str(out), *map(str, objects), *wrap_flags]
        outcome = self._run(argv, out.parent, deadline)
        log = trim_log(outcome.stderr + outcome.stdout, work_dir=out.parent)
        if not outcome.ok or not out.exists():
            return _failed(outcome, log)
        return CompileOutcome(True, out, log)


def _failed(outcome: RunOutcome, log: str) -> CompileOutcome:
    if outcome.timed_out:
        why = outcome.stderr if outcome is _OUT_OF_TIME else outcome.describe()
        return CompileOutcome(False, None, why, timed_out=True)
    return CompileOutcome(False, None, log or outcome.describe())
