"""Project-wide test configuration: the ``gpu`` marker skips where no NVIDIA GPU is present,
and no test reads or grows the developer's own learned snapshot."""

from __future__ import annotations

import shutil
import subprocess
from functools import cache

import pytest


@pytest.fixture(autouse=True)
def _own_data_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A learned snapshot under the developer's ``$XDG_DATA_HOME`` would change which graph
    every test searches (it is read before the shipped one), so each test gets an empty one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


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
