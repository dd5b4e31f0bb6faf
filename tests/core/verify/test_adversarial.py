"""The adversarial suite: every cheat in the corpus ends with the status its header names.

Three layers. On any machine: the static gate refuses exactly the gate-level cheats on their
marked lines and lets every other candidate through (so the object check and the runtime
checks are what must catch those), and the pipeline reports ``gate_rejected`` for them.
Where nvcc is installed: every candidate that passes the gate compiles, so its expected
runtime status is not masked by a compile error; the object check refuses every
object-stage cheat and passes every other host-mode candidate and every honest one. On a
GPU: the full pipeline gives every cheat its expected status and
every honest candidate ``verified`` with a measured speedup.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from regrapht_core.contracts.evaluation import Status
from regrapht_core.contracts.task import TaskMode
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.device import DEFAULT_ARCH
from regrapht_core.verify.gate import check
from regrapht_core.verify.objects import CANDIDATE_DEFINES, inspect_object
from regrapht_core.verify.pipeline import Verifier, verify
from tests.data.candidates.corpus import Candidate, load_corpus
from tests.data.candidates.tasks import TASKS

CORPUS = load_corpus()
GATED = [c for c in CORPUS if c.gate_rejected]
RUNTIME = [c for c in CORPUS if not c.gate_rejected]
KERNEL_RUNTIME = [c for c in RUNTIME if c.task.mode is TaskMode.KERNEL_TO_KERNEL]
OBJECT = [c for c in CORPUS if c.object_rejected]
OBJECT_CLEAN = [
    c
    for c in RUNTIME
    if not c.object_rejected and (c.honest or c.task.mode is TaskMode.SEQUENTIAL_TO_CUDA)
]
"""Host-mode candidates past the gate that only the run can catch, and every honest one."""


def _ids(candidates: Sequence[Candidate]) -> list[str]:
    return [c.id for c in candidates]


def _no_device(argv: Sequence[str]) -> str | None:
    return None


def test_corpus_covers_every_task_and_the_runtime_statuses() -> None:
    assert {c.task.name for c in CORPUS} == set(TASKS)
    expected = {status for c in CORPUS for status in c.expect}
    assert {
        Status.GATE_REJECTED,
        Status.WRONG_OUTPUT,
        Status.INPUT_MODIFIED,
        Status.TIMEOUT,
        Status.CRASH,
        Status.NONDETERMINISTIC,
        Status.SANITIZER_ERROR,
        Status.IMPLAUSIBLE,
        Status.VERIFIED,
    } <= expected
    assert sum(c.honest for c in CORPUS) >= 6
    kernels = [c for c in CORPUS if c.task.mode is TaskMode.KERNEL_TO_KERNEL]
    # The runner launches a kernel candidate itself, so it cannot leave the work on the host.
    host_only = {Status.NONDETERMINISTIC, Status.IMPLAUSIBLE}
    assert {s for c in kernels for s in c.expect} >= expected - host_only
    assert sum(c.stage == "sanitizer" for c in CORPUS) >= 2
    assert all(c.expect == {Status.VERIFIED} for c in CORPUS if c.honest)


@pytest.mark.parametrize("candidate", GATED, ids=_ids(GATED))
def test_gate_refuses_cheat_on_its_marked_lines(candidate: Candidate) -> None:
    violations = check(candidate.source, candidate.task).violations
    assert {(v.line, v.rule) for v in violations} == candidate.gate_marks


@pytest.mark.parametrize("candidate", RUNTIME, ids=_ids(RUNTIME))
def test_gate_lets_runtime_level_candidates_through(candidate: Candidate) -> None:
    assert check(candidate.source, candidate.task).violations == ()


@pytest.mark.parametrize("candidate", GATED, ids=_ids(GATED))
def test_pipeline_reports_gate_rejected(candidate: Candidate, tmp_path: Path) -> None:
    result = verify(
        candidate.task,
        candidate.source,
        config=VerifyConfig(cache_dir=tmp_path),
        query=_no_device,
    )
    assert result.status is Status.GATE_REJECTED
    assert result.feedback
    assert result.reward == -1.0


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("candidate", RUNTIME, ids=_ids(RUNTIME))
def test_candidates_past_the_gate_compile(candidate: Candidate, tmp_path: Path) -> None:
    source = tmp_path / "candidate.cu"
    source.write_text(candidate.source)
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    argv = [nvcc, "-std=c++17", "-O3", "-arch=sm_90", "-c", str(source)]
    built = subprocess.run(
        [*argv, "-o", str(tmp_path / "candidate.o")],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]


@pytest.mark.parametrize("candidate", OBJECT, ids=_ids(OBJECT))
def test_object_stage_cheats_pass_the_source_gate(candidate: Candidate) -> None:
    assert check(candidate.source, candidate.task).violations == ()
    assert candidate.expect == {Status.GATE_REJECTED}


def test_object_stage_covers_its_classes() -> None:
    assert len(OBJECT) >= 12
    assert {c.task.name for c in OBJECT} == {"saxpy", "sum", "vadd"}


@pytest.fixture(scope="module")
def compiler(tmp_path_factory: pytest.TempPathFactory) -> Compiler:
    return Compiler(tmp_path_factory.mktemp("objects"), DEFAULT_ARCH)


def _object(candidate: Candidate, compiler: Compiler) -> Path:
    built = compiler.cuda_object(candidate.source, defines=CANDIDATE_DEFINES)
    assert built.ok and built.path is not None, built.log
    return built.path


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("candidate", OBJECT, ids=_ids(OBJECT))
def test_object_check_refuses_object_stage_cheats(candidate: Candidate, compiler: Compiler) -> None:
    refused = inspect_object(_object(candidate, compiler), entry=candidate.task.entry)
    assert refused is not None
    assert all(line.startswith(("object check: ", "... and")) for line in refused.splitlines())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("candidate", OBJECT_CLEAN, ids=_ids(OBJECT_CLEAN))
def test_object_check_passes_every_other_candidate(
    candidate: Candidate, compiler: Compiler
) -> None:
    path = _object(candidate, compiler)
    assert inspect_object(path, entry=candidate.task.entry) is None


@pytest.fixture(scope="module")
def no_gpu(tmp_path_factory: pytest.TempPathFactory) -> Verifier:
    return Verifier(VerifyConfig(cache_dir=tmp_path_factory.mktemp("modules")), device=None)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("candidate", KERNEL_RUNTIME, ids=_ids(KERNEL_RUNTIME))
def test_kernel_candidates_compile_and_are_not_run_without_a_gpu(
    candidate: Candidate, no_gpu: Verifier
) -> None:
    """Through the real pipeline: gate, the candidate's own module, the original's module,
    the kernel found by its symbol in both; then no GPU, so nothing is claimed."""
    result = no_gpu.verify(candidate.task, candidate.source)
    assert result.status is Status.NOT_RUN, result.feedback
    assert "no GPU" in result.feedback
    assert result.reward is None and result.speedup is None


@pytest.fixture(scope="module")
def verifier(tmp_path_factory: pytest.TempPathFactory) -> Verifier:
    """One session for the corpus, so each task's harness and reference build once, with
    every candidate compiled up front on all cores (the tests then find them in the cache):
    compiled one after another, the corpus's compiles alone took most of a device call.
    Every hanging cheat costs a run's whole wall-clock limit, so the limit is small: a whole
    candidate's run took a median 1.8 s over the suite (gpu-h100-verify-throughput.json)."""
    config = VerifyConfig(
        cache_dir=tmp_path_factory.mktemp("objects"),
        seeds=2,
        run_timeout_s=10.0,
        timing_timeout_s=240.0,
    )
    session = Verifier(config)

    def compile_one(candidate: Candidate) -> None:
        if candidate.task.mode is TaskMode.KERNEL_TO_KERNEL:
            session.compiler.cuda_module(candidate.source)
        else:
            session.compiler.cuda_object(candidate.source, defines=CANDIDATE_DEFINES)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(compile_one, RUNTIME))
    return session


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("candidate", RUNTIME, ids=_ids(RUNTIME))
def test_pipeline_gives_the_expected_status(candidate: Candidate, verifier: Verifier) -> None:
    result = verifier.verify(candidate.task, candidate.source)
    if candidate.stage == "sanitizer":
        assert result.status in (Status.VERIFIED, Status.SANITIZER_ERROR), result.feedback
        report = verifier.sanitize(candidate.task, candidate.source)
        assert not report.clean, "compute-sanitizer found nothing"
        return
    assert result.status in candidate.expect, result.feedback
    if candidate.object_rejected:
        assert result.feedback.startswith("object check: ")
    if candidate.honest:
        assert result.verified
        assert result.speedup is not None
        assert result.speedup > 0
    elif result.verified:
        assert candidate.bounded_by is not None and result.speedup is not None
        control = verifier.verify(candidate.task, candidate.bounded_by.read_text())
        assert control.speedup is not None, control.feedback
        assert result.speedup <= 1.25 * control.speedup, (result.speedup, control.speedup)
    else:
        assert result.reward == -1.0
