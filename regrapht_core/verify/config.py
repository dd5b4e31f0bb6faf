"""Settings of one verification session, fixed when it starts."""

from __future__ import annotations

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
    timed_runs: int = 30
    sanitizer: bool = False
    """Run compute-sanitizer (memcheck, racecheck) once per accepted candidate, small size."""
    compile_timeout_s: float = 120.0
    run_timeout_s: float = 60.0
    timing_timeout_s: float = 300.0
    output_bytes: int = 16 * 1024
    """Stdout/stderr kept per run; the rest is drained and dropped."""
    host_flush_bytes: int = 64 << 20
    """Written between timed calls so the CPU reference does not run from a warm cache."""
    drop_privileges: bool = True
    isolate_network: bool = True

    def __post_init__(self) -> None:
        if self.seeds < 1 or self.timed_runs < 30 or self.warmups < 1:
            raise ConfigError(
                "verify settings: need seeds >= 1, warmups >= 1 and timed_runs >= 30 "
                f"(got {self.seeds}, {self.warmups}, {self.timed_runs})"
            )
