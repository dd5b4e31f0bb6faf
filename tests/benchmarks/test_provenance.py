"""Result files are named for the GPU that measured them."""

from __future__ import annotations

import pytest

from benchmarks.provenance import device_prefix


@pytest.mark.parametrize(
    ("name", "prefix"),
    [
        ("NVIDIA H100 80GB HBM3", "gpu-h100"),
        ("NVIDIA H200", "gpu-h200"),
        ("NVIDIA A100-SXM4-80GB", "gpu-a100-sxm4-80gb"),
        (None, "gpu-unknown"),
        ("", "gpu-unknown"),
    ],
)
def test_the_prefix_names_the_gpu_model(name: str | None, prefix: str) -> None:
    assert device_prefix(name) == prefix
