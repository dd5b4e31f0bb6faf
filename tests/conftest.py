"""Project-wide test configuration: the ``gpu`` marker skips where no NVIDIA GPU is present."""

from __future__ import annotations

import shutil
import subprocess
from functools import cache

import pytest


@cache
def gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    probe = subprocess.run([smi, "-L"], capture_output=True, text=True, check=False, timeout=30)
    return probe.returncode == 0 and "GPU" in probe.stdout


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if gpu_present():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU: run `make gpu-check` on the GPU machine")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
