"""Which GPU (if any) and which nvcc this machine has.

Detection decides the most important fact of a result: whether anything was measured.
No GPU means every candidate that compiles ends as ``NOT_RUN``; it is never called
verified. The architecture flag defaults to ``sm_90`` (the H100 the project targets) so
compile-only machines still build what the GPU machine would run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Sequence

from regrapht_core.contracts.evaluation import DeviceInfo

__all__ = [
    "DEFAULT_ARCH",
    "Query",
    "detect_device",
    "nvcc_version",
    "query_command",
    "run_tool",
    "tool_query",
]

DEFAULT_ARCH = "sm_90"

Query = Callable[[Sequence[str]], str | None]
"""Runs a trusted tool and returns its stdout, or ``None`` if it is missing or failed."""


def run_tool(argv: Sequence[str], *, path: str | None = None) -> str | None:
    """A trusted tool's stdout, the tool found on ``path`` (default: ``$PATH``)."""
    found = shutil.which(argv[0], path=path)
    if found is None:
        return None
    try:
        done = subprocess.run(
            [found, *argv[1:]], capture_output=True, text=True, check=False, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def query_command(argv: Sequence[str]) -> str | None:
    """The default :data:`Query`: tools on ``$PATH``."""
    return run_tool(argv)


def tool_query(nvcc: str, gpu_index: int | None, run: Query = query_command) -> Query:
    """``run`` asking the configured tools: ``nvcc`` is the given compiler, and
    ``nvidia-smi``, which ignores ``CUDA_VISIBLE_DEVICES``, is asked about the chosen GPU
    (``--id``), so the device named in a result is the one that ran it."""

    def query(argv: Sequence[str]) -> str | None:
        tool, *rest = argv
        if tool == "nvcc":
            return run([nvcc, *rest])
        if tool == "nvidia-smi" and gpu_index is not None:
            return run([tool, f"--id={gpu_index}", *rest])
        return run(argv)

    return query


def nvcc_version(query: Query = query_command) -> str | None:
    """``"13.0.88"`` style, from ``nvcc --version``; ``None`` without nvcc."""
    text = query(["nvcc", "--version"])
    if text is None:
        return None
    found = re.search(r"V(\d+\.\d+\.\d+)", text) or re.search(r"release (\d+\.\d+)", text)
    return found.group(1) if found else text.strip().splitlines()[-1]


def detect_device(query: Query = query_command) -> DeviceInfo | None:
    """The first visible GPU, or ``None`` when there is none (or no driver to ask)."""
    text = query(
        ["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"]
    )
    if not text or not text.strip():
        return None
    fields = [part.strip() for part in text.strip().splitlines()[0].split(",")]
    if len(fields) != 3:
        return None
    name, driver, capability = fields
    arch = "sm_" + capability.replace(".", "") if re.fullmatch(r"\d+\.\d+", capability) else ""
    return DeviceInfo(
        name=name,
        driver=driver,
        nvcc=nvcc_version(query) or "none",
        arch=arch or DEFAULT_ARCH,
    )
