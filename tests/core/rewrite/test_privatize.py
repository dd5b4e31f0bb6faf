"""The privatized-updates rewriter: each block adds into its own shared-memory copy of the
added-to arrays and merges it once; too long an array at run time takes the plain atomic
kernel, and copies that cannot fit in shared memory are refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.privatize import PrivatizedUpdates
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite import cases
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
)
from tests.core.rewrite.test_atomics import SCATTER

BYTES = extract_task(
    "// regrapht: n = 1000; data[n] in ~ int(0, 255); hist[256] inout ~ int(0, 100)\n"
    "void histogram_u8(int n, const unsigned char* data, unsigned int* hist) {\n"
    "  for (int i = 0; i < n; ++i) hist[data[i]]++;\n}\n",
    "cpp",
    function="histogram_u8",
)
WIDE = dataclasses.replace(cases.HISTOGRAM, correctness_sizes=({"n": 1000, "bins": 5000},))
"""More bins than a block's copy holds (4096): the plain atomic kernel runs."""


def private_candidate(task: Task) -> str:
    (candidate,) = PrivatizedUpdates().apply(task.source, RewriteContext(task))
    return candidate.code


def test_a_histogram_gets_per_block_bins_first_and_plain_atomics_next() -> None:
    code, message = first_step(BYTES)
    assert code is not None, message
    assert "__shared__ unsigned int hist_block[256];" in code
    assert "atomicAdd(&hist_block[data[i]], static_cast<unsigned int>(1));" in code
    assert "atomicAdd(&hist[k], hist_block[k]);" in code
    assert "if (static_cast<size_t>(256) <= 256)" in code or "<= 256)" in code
    assert "atomicAdd(&hist[data[i]], static_cast<unsigned int>(1));" in code  # the fallback


def test_each_added_to_array_gets_its_own_copy_of_the_type_it_is_added_as() -> None:
    code = private_candidate(SCATTER)
    assert "__shared__ float out_block[16];" in code
    assert "__shared__ unsigned long long count_block[16];" in code
    assert "__shared__ unsigned int seen_block[16];" in code
    merge = "atomicAdd(reinterpret_cast<unsigned long long*>(&count[k]), count_block[k]);"
    assert merge in code
    assert "y[i] = 2.0f * v[i];" in code


def test_copies_that_do_not_fit_in_shared_memory_are_refused() -> None:
    task = extract_task(
        "// regrapht: n = 1000; x[n] in ~ int(0, 15); h[8192] inout\n"
        "void wide(int n, const int* x, double* h) {\n"
        "  for (int i = 0; i < n; ++i) h[x[i]] += 1.0;\n}\n",
        "cpp",
        function="wide",
    )
    reason = PrivatizedUpdates().applies(task.source, RewriteContext(task)).reason
    assert "would need 65536 bytes of shared memory" in reason


@requires_nvcc
def test_the_candidates_compile_with_nvcc(tmp_path: Path) -> None:
    compile_cuda(private_candidate(SCATTER), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(
    "task", [BYTES, cases.HISTOGRAM, WIDE, SCATTER], ids=["bytes", "bins", "wide", "scatter"]
)
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    assert run_on_cpu(task, private_candidate(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize(
    "task", [BYTES, cases.HISTOGRAM, WIDE, SCATTER], ids=["bytes", "bins", "wide", "scatter"]
)
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    assert run_on_gpu(task, private_candidate(task), tmp_path) == "PASS"
