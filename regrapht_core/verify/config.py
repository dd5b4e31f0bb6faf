"""Settings of one verification session, fixed when it starts.

The toolkit and the GPU are settings like any other: the verifier builds the environment
of every child process (compiler, candidate run, device query) from them, and never reads
them from, or writes them into, its own process environment beyond the variables it copies.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from regrapht_core.errors import ConfigError

__all__ = ["VerifyConfig", "default_cache_dir"]


def default_cache_dir() -> Path:
    return Path.home() / ".cache" / "regrapht" / "objects"


@dataclass(frozen=True, slots=True)
class VerifyConfig:
    cache_dir: Path = field(default_factory=default_cache_dir)
    """Compiled objects, keyed by source, flags and compiler version."""
    arch: str | None = None
    """``sm_XY`` to compile for; ``None``: the detected GPU's, else ``sm_90``."""
    seeds: int = 3
    """Fresh secret seeds per candidate; every correctness size runs with each."""
    warmups: int = 5
    """Kernel mode: calls before the timed ones (host mode: ``checks.WARMUPS``)."""
    timed_runs: int = 30
    """Most timed calls; kernel mode always makes this many."""
    min_timed_runs: int = 10
    """Fewest timed calls before the median may be judged stable."""
    timing_tolerance: float = 0.02
    """Timed calls continue until the median's 95% interval is within this fraction."""
    checked_calls: int = 3
    """Timing-size calls compared among a candidate's first 12, in secret; later calls are
    compared at the same rate (1 in 4). A candidate that turns stale early enough to move
    the median is caught in over 99% of runs (tests/core/verify/test_checks.py); a
    checked 64 MiB output cost ~80 ms to fetch and compare on the GPU machine at 573d591
    (benchmarks/results/gpu-h100-verify-phases.json)."""
    sanitizer: bool = True
    """Run compute-sanitizer (memcheck, racecheck) on a job's final answer, small size."""
    compile_timeout_s: float = 120.0
    run_timeout_s: float = 60.0
    timing_timeout_s: float = 300.0
    output_bytes: int = 16 * 1024
    """Stdout/stderr kept per run; the rest is drained and dropped."""
    host_flush_bytes: int = 64 << 20
    """Kernel mode's runner writes this much host memory between timed calls (host mode
    evicts each call's own arrays instead, see :mod:`regrapht_core.verify.harness`)."""
    drop_privileges: bool = True
    isolate_network: bool = True
    nvcc_path: Path | None = None
    """The nvcc executable; ``None``: ``cuda_home/bin/nvcc``, else ``nvcc`` on ``PATH``."""
    cuda_home: Path | None = None
    """The CUDA toolkit the compiler is given (``CUDA_HOME``, its ``bin`` first on ``PATH``)."""
    build_workers: int | None = None
    """Candidates compiled at once; ``None``: all cores but two (``verify.pool``). Set lower
    when several verifiers share a machine (mining workers), so their compiles do not
    crowd the host side of the one candidate being timed."""
    gpu_index: int | None = None
    """The GPU that runs candidates (their ``CUDA_VISIBLE_DEVICES``, ``nvidia-smi --id``);
    ``None``: whatever the environment makes visible."""

    def __post_init__(self) -> None:
        if (
            self.seeds < 1
            or self.warmups < 1
            or not 10 <= self.min_timed_runs <= self.timed_runs
            or self.checked_calls < 1
            or not 0 < self.timing_tolerance < 1
            or (self.build_workers is not None and self.build_workers < 1)
        ):
            raise ConfigError(
                "verify settings: need seeds >= 1, warmups >= 1, 10 <= min_timed_runs <= "
                "timed_runs, checked_calls >= 1, 0 < timing_tolerance < 1 and build_workers "
                f">= 1 (got {self.seeds}, {self.warmups}, {self.min_timed_runs}, "
                f"{self.timed_runs}, {self.checked_calls}, {self.timing_tolerance}, "
                f"{self.build_workers})"
            )

    @property
    def nvcc(self) -> str:
        """The compiler command: the configured path, the toolkit's, or ``nvcc``."""
        if self.nvcc_path is not None:
            return str(self.nvcc_path)
        return str(self.cuda_home / "bin" / "nvcc") if self.cuda_home else "nvcc"

    def find_nvcc(self, base: Mapping[str, str] = os.environ) -> Path | None:
        """The compiler the verifier will run, found on its tools' ``PATH``; ``None``
        when there is none."""
        found = shutil.which(self.nvcc, path=self.tool_environment(base).get("PATH"))
        return None if found is None else Path(found)

    def tool_environment(self, base: Mapping[str, str] = os.environ) -> dict[str, str]:
        """What compilers and linkers see: the toolkit variables of ``base``, the configured
        toolkit's ``bin`` (and nvcc's folder) searched first."""
        keep = ("PATH", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH", "LANG")
        env = {key: base[key] for key in keep if key in base}
        first = [str(folder) for folder in self._tool_folders()]
        if first:
            env["PATH"] = os.pathsep.join([*first, *filter(None, [env.get("PATH")])])
        if self.cuda_home is not None:
            env["CUDA_HOME"] = str(self.cuda_home)
        return env

    def run_environment(self, base: Mapping[str, str] = os.environ) -> dict[str, str]:
        """The GPU-related variables of a candidate's run: ``base``'s, the chosen GPU's."""
        keep = ("LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "LANG")
        env = {key: base[key] for key in keep if key in base}
        if self.gpu_index is not None:
            env["CUDA_VISIBLE_DEVICES"] = str(self.gpu_index)
        return env

    def _tool_folders(self) -> list[Path]:
        nvcc = self.nvcc_path
        folders = [nvcc.parent] if nvcc is not None and nvcc.parent != Path() else []
        if self.cuda_home is not None:
            folders.append(self.cuda_home / "bin")
        return list(dict.fromkeys(folders))
