"""The toolkit and the GPU as settings: the environments and the device query built from them."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.device import tool_query


def test_tools_see_the_configured_toolkit_first_and_runs_the_chosen_gpu() -> None:
    base = {"PATH": "/usr/bin", "HOME": "/root", "CUDA_VISIBLE_DEVICES": "3"}
    plain = VerifyConfig()
    assert plain.tool_environment(base) == {"PATH": "/usr/bin"}
    assert plain.run_environment(base) == {"CUDA_VISIBLE_DEVICES": "3"}
    assert plain.nvcc == "nvcc"
    chosen = VerifyConfig(nvcc_path=Path("/opt/cuda/bin/nvcc"), gpu_index=2)
    assert chosen.nvcc == "/opt/cuda/bin/nvcc"
    assert chosen.tool_environment(base) == {"PATH": f"/opt/cuda/bin{os.pathsep}/usr/bin"}
    assert chosen.run_environment(base) == {"CUDA_VISIBLE_DEVICES": "2"}
    toolkit = VerifyConfig(cuda_home=Path("/opt/cuda-13"))
    assert toolkit.nvcc == "/opt/cuda-13/bin/nvcc"
    assert toolkit.tool_environment({}) == {"PATH": "/opt/cuda-13/bin", "CUDA_HOME": "/opt/cuda-13"}


def test_the_device_query_asks_the_configured_nvcc_and_gpu() -> None:
    asked: list[Sequence[str]] = []

    def run(argv: Sequence[str]) -> str | None:
        asked.append(list(argv))
        return None

    query = tool_query("/opt/cuda/bin/nvcc", 1, run)
    query(["nvcc", "--version"])
    query(["nvidia-smi", "--query-gpu=name", "--format=csv"])
    query(["g++", "--version"])
    assert asked == [
        ["/opt/cuda/bin/nvcc", "--version"],
        ["nvidia-smi", "--id=1", "--query-gpu=name", "--format=csv"],
        ["g++", "--version"],
    ]
    tool_query("nvcc", None, run)(["nvidia-smi", "-L"])
    assert asked[-1] == ["nvidia-smi", "-L"]
