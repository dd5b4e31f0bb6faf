"""Scatters whose targets may repeat (``out[perm[i]] = x[i]``): two kernels, the first marking
each target's last writer, the second letting only it write, as the loop leaves it."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.launch_config import LaunchConfiguration
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.scatter import LastWriterScatter
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import (
    all_pass,
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_gpu,
    small_corpus_task,
)

CORPUS = Path(__file__).parents[3] / "benchmarks" / "corpus" / "scatter_gather"
PERMUTED = small_corpus_task(
    CORPUS / "scatter_gather_scatter_f64_ptr.cpp", "scatter_f64", "1<<22", "5000"
)


def _task(body: str, out: str = "out[64] inout ~ uniform(-1, 1)") -> Task:
    """5000 iterations into 64 elements: most targets are written many times, the last
    writer decides, and the elements no iteration writes keep the caller's values."""
    return extract_task(
        f"// regrapht: n = 5000; idx[n] in ~ int(0, 47); x[n] in ~ uniform(-1, 1); {out}\n"
        "void f(int n, const int* idx, const float* x, float* out) {\n"
        f"  for (int i = 0; i < n; ++i) {{ {body} }}\n"
        "}\n",
        "cpp",
        function="f",
        validate=False,
    )


REPEATED = _task("out[idx[i]] = x[i] * 2.0f;")


def _code(task: Task) -> str:
    (candidate,) = LastWriterScatter().apply(task.source, RewriteContext(task))
    return candidate.code


def test_the_last_writer_of_each_target_is_marked_then_alone_writes() -> None:
    code = _code(REPEATED)
    assert "atomicMax(&out_last[idx[i]], static_cast<unsigned long long>(i) + 1ull);" in code
    assert "if (out_last[idx[i]] == static_cast<unsigned long long>(i) + 1ull) {" in code
    assert "cudaMemset(out_last, 0, out_last_bytes)" in code
    assert "cudaMemcpy(d_out, out, out_bytes, cudaMemcpyHostToDevice)" in code, (
        "uploaded: the elements no iteration writes keep the caller's values"
    )


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("out[i] = x[i];", "disjoint elements"),
        ("out[idx[i]] = x[i]; out[0] = 1.0f;", "not a scatter"),
        ("out[idx[i]] += x[i];", "not a scatter"),
        ("out[idx[i]] = out[i] + x[i];", "reads `out`"),
        ("out[idx[i]++] = x[i];", "calls or assigns"),
    ],
    ids=["map", "two statements", "addition", "reads the target", "index with a step"],
)
def test_other_loops_are_refused_with_the_reason(body: str, reason: str) -> None:
    task = _task(body)
    refused = LastWriterScatter().applies(task.source, RewriteContext(task))
    assert not refused and reason in refused.reason


def test_the_corpus_scatters_get_a_first_step() -> None:
    code, message = first_step(PERMUTED)
    assert code is not None, message
    assert "scatter_f64_mark" in code and "scatter_f64_write" in code


@requires_nvcc
def test_the_candidate_compiles_with_nvcc(tmp_path: Path) -> None:
    compile_cuda(_code(REPEATED), tmp_path)


# The test harness draws every int argument from a range, not as a permutation, so the
# runs take the repeated targets; the corpus's permutations run in the verifier (BENCHMARKS.md).


@pytest.mark.slow
def test_the_candidate_computes_what_the_reference_computes(tmp_path: Path) -> None:
    all_pass(REPEATED, [_code(REPEATED)], tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_candidate_agrees_with_the_reference_on_the_gpu(tmp_path: Path) -> None:
    """Threads of one target race on the GPU: only the mark decides which value stays."""
    all_pass(REPEATED, [_code(REPEATED)], tmp_path, run=run_on_gpu)


def test_a_launch_configuration_resizes_the_block_both_kernels_share() -> None:
    candidates = LaunchConfiguration().apply(_code(REPEATED), RewriteContext(REPEATED))
    assert candidates
    for candidate in candidates:
        assert candidate.code.count("__launch_bounds__(") == 2
