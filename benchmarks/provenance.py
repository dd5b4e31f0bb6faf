"""What every GPU benchmark result records about where and how it was measured, and where
it is written.

A figure without its device, driver, compiler, commit and command cannot be checked or
compared, so both verifier benchmarks build their JSON from :func:`provenance` and write it
with :func:`write_result`: into ``benchmarks/results/`` (committed) and into ``$OUT`` when the
device machine's runner collects files from there.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
from pathlib import Path
from typing import Any

from regrapht_core.bench.runner import current_commit
from regrapht_core.files import atomic_write
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier

__all__ = [
    "RESULTS",
    "config_record",
    "device_prefix",
    "provenance",
    "result_tag",
    "write_result",
]

RESULTS = Path(__file__).parent / "results"
TAG_VARIABLE = "REGRAPHT_RESULT_TAG"
"""A suffix for result file names (``before``/``after``), so two verifiers' runs of the
same benchmark can sit side by side and be compared."""


def config_record(config: VerifyConfig) -> dict[str, Any]:
    """Every setting of the session, whatever fields the verifier's config has today."""
    return {field.name: _plain(getattr(config, field.name)) for field in dataclasses.fields(config)}


def _plain(value: object) -> object:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return str(value)


def provenance(verifier: Verifier, command: str) -> dict[str, Any]:
    """Device, driver and nvcc from the verifier's own probe, never from the caller."""
    device = verifier.device
    return {
        "device": device.name if device else None,
        "driver": device.driver if device else None,
        "nvcc": device.nvcc if device else None,
        "arch": verifier.compiler.arch,
        "commit": current_commit(),
        "command": command,
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "config": config_record(verifier.config),
    }


def device_prefix(device_name: str | None) -> str:
    """``gpu-h100`` or ``gpu-h200``: result files are named for the GPU that measured them,
    since timings compare only across the same model (``NVIDIA H200`` -> ``gpu-h200``)."""
    for word in (device_name or "").lower().split():
        if word != "nvidia" and any(c.isdigit() for c in word):
            return f"gpu-{word}"
    return "gpu-unknown"


def result_tag() -> str:
    """``-<tag>`` from ``$REGRAPHT_RESULT_TAG``, or nothing."""
    tag = os.environ.get(TAG_VARIABLE, "").strip()
    return f"-{tag}" if tag else ""


def write_result(name: str, record: dict[str, Any]) -> Path:
    """``record`` as ``benchmarks/results/<name>`` and, when set, ``$OUT/<name>``; rewritten
    whole each time, so a run cut short leaves the last complete version."""
    data = (json.dumps(record, indent=2) + "\n").encode("utf-8")
    path = RESULTS / name
    atomic_write(path, data)
    if out := os.environ.get("OUT"):
        atomic_write(Path(out) / name, data)
    return path
