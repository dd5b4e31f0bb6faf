"""Separate compilation with the real nvcc and g++: pass, fail, cache, timeout, harnesses."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.task import Task
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.harness import LINK_WRAPS, HarnessKind, harness_source
from regrapht_core.verify.sandbox import Limits, RunOutcome
from tests.core.verify.tasks_fixture import (
    MATMUL,
    MATMUL_FIRST_ROW,
    SAXPY,
    SAXPY_CUDA,
    SUM,
    VECTOR_INT,
)

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


@pytest.fixture(scope="module")
def compiler(tmp_path_factory: pytest.TempPathFactory) -> Compiler:
    return Compiler(tmp_path_factory.mktemp("objects"), "sm_90")


def test_compiles_and_then_hits_the_cache(compiler: Compiler) -> None:
    first = compiler.cuda_object(SAXPY_CUDA)
    second = compiler.cuda_object(SAXPY_CUDA)
    assert first.ok and not first.cached
    assert second.ok and second.cached
    assert first.path == second.path


def test_a_flag_or_arch_change_misses_the_cache(compiler: Compiler, tmp_path: Path) -> None:
    other = Compiler(compiler.cache_dir, "sm_80")
    assert not other.cuda_object(SAXPY_CUDA).cached


def test_compile_errors_come_back_trimmed(compiler: Compiler) -> None:
    outcome = compiler.cuda_object("__global__ void k() { undeclared_name = 1; }\n")
    assert not outcome.ok
    assert "undeclared_name" in outcome.log
    assert "regrapht-cc-" not in outcome.log


def test_compile_timeout_kills_the_compiler(tmp_path: Path) -> None:
    slow = Compiler(tmp_path, "sm_90", timeout_s=0.05)
    outcome = slow.cuda_object(SAXPY_CUDA + "\n// distinct source\n")
    assert not outcome.ok
    assert "timed out" in outcome.log


def test_object_size_cap(tmp_path: Path) -> None:
    capped = Compiler(tmp_path, "sm_90", max_output_bytes=100_000)
    outcome = capped.host_object("char big[200000] = {1};\n")
    assert not outcome.ok
    assert "cap" in outcome.log


@pytest.mark.parametrize("task", [SAXPY, SUM, MATMUL, VECTOR_INT], ids=lambda t: t.name)
def test_every_harness_build_compiles(compiler: Compiler, task: Task) -> None:
    for kind in HarnessKind:
        source = harness_source(task, kind)
        build = compiler.host_object if kind is HarnessKind.REFERENCE else compiler.cuda_object
        outcome = build(source)
        assert outcome.ok, f"{kind}: {outcome.log}"


def test_the_candidate_harness_links_with_every_wrapped_runtime_call(
    compiler: Compiler, tmp_path: Path
) -> None:
    """Each wrapper calls its ``__real_`` symbol, so a runtime call the toolkit renamed
    fails this link here rather than every candidate's on the GPU machine."""
    harness = compiler.cuda_object(harness_source(MATMUL, HarnessKind.CANDIDATE))
    candidate = compiler.cuda_object(MATMUL_FIRST_ROW)
    assert harness.ok and harness.path is not None, harness.log
    assert candidate.ok and candidate.path is not None, candidate.log
    linked = compiler.link([harness.path, candidate.path], tmp_path / "linked", wraps=LINK_WRAPS)
    assert linked.ok, linked.log


def test_the_deadline_caps_the_compile_timeout_and_stops_a_late_compile(tmp_path: Path) -> None:
    now = [0.0]
    deadline = Deadline.after(5.0, clock=lambda: now[0])
    given: list[Limits] = []

    def runner(
        argv: Sequence[str], cwd: Path, limits: Limits, env: Mapping[str, str]
    ) -> RunOutcome:
        given.append(limits)
        return RunOutcome(None, "", "", limits.wall_s, timed_out=True)

    capped = Compiler(tmp_path, "sm_90", timeout_s=120.0, runner=runner)
    cut = capped.cuda_object("// 1\n", deadline=deadline)
    assert [limits.wall_s for limits in given] == [5.0]
    assert cut.timed_out and not cut.ok
    now[0] = 5.0
    late = capped.cuda_object("// 2\n", deadline=deadline)
    assert len(given) == 1, "nothing runs once the deadline has passed"
    assert late.timed_out and "time limit" in late.log
