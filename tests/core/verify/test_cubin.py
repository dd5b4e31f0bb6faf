"""Kernel symbols read from real cubins: C++ and C linkage, helpers ignored, bad files refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.cubin import CubinError, find_kernel, kernel_entries

MODULE = r"""
__device__ __noinline__ float twice(float v) { return 2.0f * v; }
__global__ void scale(int n, float* y) { int i = threadIdx.x; if (i < n) y[i] = twice(y[i]); }
__global__ void scale2(int n, float* y) { if (threadIdx.x < n) y[threadIdx.x] = 0.0f; }
extern "C" __global__ void plain(float* y) { y[0] = 1.0f; }
void host_only() {}
"""


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_entries_of_a_compiled_module(tmp_path: Path) -> None:
    outcome = Compiler(tmp_path, "sm_90").cuda_module(MODULE)
    assert outcome.ok and outcome.path is not None, outcome.log
    entries = kernel_entries(outcome.path.read_bytes())
    assert set(entries) == {"_Z5scaleiPf", "_Z6scale2iPf", "plain"}
    assert find_kernel(entries, "scale") == "_Z5scaleiPf"
    assert find_kernel(entries, "plain") == "plain"
    assert find_kernel(entries, "twice") is None
    assert find_kernel(entries, "host_only") is None


def test_the_length_prefix_keeps_names_apart() -> None:
    entries = ("_Z5saxpyifPKfPf", "_Z6saxpy2ifPKfPf")
    assert find_kernel(entries, "saxpy") == "_Z5saxpyifPKfPf"
    assert find_kernel(entries, "saxpy2") == "_Z6saxpy2ifPKfPf"
    assert find_kernel(("_Z5saxpyi", "_Z5saxpyf"), "saxpy") is None


@pytest.mark.parametrize("data", [b"", b"not an elf", b"\x7fELF\x01" + bytes(100)])
def test_what_is_not_a_64_bit_elf_is_refused(data: bytes) -> None:
    with pytest.raises(CubinError):
        kernel_entries(data)


def test_a_truncated_file_is_refused() -> None:
    header = bytearray(64)
    header[:5] = b"\x7fELF\x02"
    header[0x28:0x30] = (1 << 20).to_bytes(8, "little")
    header[0x3A:0x40] = bytes((64, 0, 3, 0, 0, 0))
    with pytest.raises(CubinError):
        kernel_entries(bytes(header))
