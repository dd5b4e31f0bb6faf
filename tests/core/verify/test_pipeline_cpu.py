"""The verifier without a GPU: statuses of the CPU stages (the harness's own checks run for
real through its host-only build in tests/core/verify/test_harness.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.evaluation import DeviceInfo, Evaluation, Status
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Built, Verifier
from regrapht_core.verify.programs import gpu_python_missing
from tests.core.verify.tasks_fixture import SAXPY, SAXPY_CUDA
from tests.data.candidates.corpus import CORPUS_DIR
from tests.data.candidates.tasks import SAXPY_KERNEL

KERNEL = (CORPUS_DIR / "saxpy_kernel" / "honest_naive.cu").read_text()

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("objects")


@pytest.fixture(scope="module")
def no_gpu(cache: Path) -> Verifier:
    return Verifier(VerifyConfig(cache_dir=cache), device=None)


def test_without_a_gpu_a_good_candidate_is_compiled_not_run(no_gpu: Verifier) -> None:
    result = no_gpu.verify(SAXPY, SAXPY_CUDA)
    assert result.status is Status.NOT_RUN
    assert not result.verified
    assert result.timing is None
    assert result.speedup is None
    assert result.reward is None
    assert "not run" in result.feedback


def test_gate_rejection_comes_first(no_gpu: Verifier) -> None:
    cheat = SAXPY_CUDA.replace("cudaFree(dy);", 'cudaFree(dy);\n  system("true");')
    result = no_gpu.verify(SAXPY, "#include <cstdlib>\n" + cheat)
    assert result.status is Status.GATE_REJECTED
    assert result.reward == -1.0
    assert result.feedback


def test_compile_error_is_a_status_with_feedback(no_gpu: Verifier) -> None:
    result = no_gpu.verify(SAXPY, SAXPY_CUDA.replace("cudaFree(dx);", "cudaFree(dx, 1);"))
    assert result.status is Status.COMPILE_ERROR
    assert result.reward == -1.0
    assert "error" in result.feedback


def test_missing_entry_fails_at_link(cache: Path) -> None:
    verifier = Verifier(VerifyConfig(cache_dir=cache), device=None, gate=lambda _s, _t: None)
    wrong = SAXPY_CUDA.replace("void saxpy(int n, float a,", "void saxpy(int n, double a,")
    result = verifier.verify(SAXPY, wrong)
    assert result.status is Status.COMPILE_ERROR
    assert "saxpy" in result.feedback


def test_a_kernel_candidate_is_compiled_not_run_without_a_gpu(no_gpu: Verifier) -> None:
    result = no_gpu.verify(SAXPY_KERNEL, KERNEL)
    assert result.status is Status.NOT_RUN
    assert result.reward is None and result.timing is None
    assert "not run" in result.feedback


def test_a_kernel_compile_error_is_a_status_with_feedback(no_gpu: Verifier) -> None:
    result = no_gpu.verify(SAXPY_KERNEL, KERNEL.replace("a * x[i]", "a * x[i] * undefined_b"))
    assert result.status is Status.COMPILE_ERROR
    assert "undefined_b" in result.feedback


def test_a_kernel_with_other_parameter_types_is_a_compile_error(cache: Path) -> None:
    verifier = Verifier(VerifyConfig(cache_dir=cache), device=None, gate=lambda _s, _t: None)
    result = verifier.verify(SAXPY_KERNEL, KERNEL.replace("float a,", "double a,"))
    assert result.status is Status.COMPILE_ERROR
    assert "_Z12saxpy_kernelidPKfPf" in result.feedback and "parameter types" in result.feedback


def test_a_module_without_the_kernel_is_a_compile_error(cache: Path) -> None:
    verifier = Verifier(VerifyConfig(cache_dir=cache), device=None, gate=lambda _s, _t: None)
    result = verifier.verify(SAXPY_KERNEL, KERNEL.replace("saxpy_kernel(", "saxpy_fast("))
    assert result.status is Status.COMPILE_ERROR
    assert "_Z10saxpy_fast" in result.feedback


@pytest.mark.skipif(gpu_python_missing() is None, reason="pycuda is installed here")
def test_a_kernel_is_not_run_where_pycuda_is_missing(cache: Path) -> None:
    device = DeviceInfo(name="Some GPU", driver="580", nvcc="13.0", arch="sm_90")
    result = Verifier(VerifyConfig(cache_dir=cache), device=device).verify(SAXPY_KERNEL, KERNEL)
    assert result.status is Status.NOT_RUN
    assert "pycuda" in result.feedback and result.reward is None


def test_a_candidate_the_deadline_cuts_is_a_timeout_value(cache: Path) -> None:
    now = [0.0]
    deadline = Deadline.after(60.0, clock=lambda: now[0])
    device = DeviceInfo("NVIDIA H100 80GB HBM3", "580.95", "13.0", "sm_90")
    verifier = Verifier(VerifyConfig(cache_dir=cache), device=device)
    built = verifier.build(SAXPY, SAXPY_CUDA, deadline=deadline)
    assert not isinstance(built, Evaluation), built
    now[0] = 60.0  # the GPU was busy until the job's limit
    late = verifier.run(built, deadline=deadline)
    assert late.status is Status.TIMEOUT and "time limit" in late.feedback
    never = verifier.verify(SAXPY, SAXPY_CUDA + "\n// other\n", deadline=deadline)
    assert never.status is Status.TIMEOUT and "before this candidate was built" in never.feedback


def test_the_reference_is_timed_again_in_a_run_directory_of_its_own(cache: Path) -> None:
    """For a job's answer (``optimize.job.retimed``). The reference runs on the host, so
    this needs no GPU, only a device said to exist for the task's timing data to be made."""
    stand_in = DeviceInfo("stand-in", "", "", "sm_90")
    verifier = Verifier(VerifyConfig(cache_dir=cache), device=stand_in)
    assert verifier.retime_reference(SAXPY) is None  # nothing prepared yet
    assert isinstance(verifier.build(SAXPY, SAXPY_CUDA), Built)
    times = verifier.retime_reference(SAXPY)
    assert times is not None and len(times) >= verifier.config.min_timed_runs
    assert all(ms > 0.0 for ms in times)
    assert verifier.retime_reference(SAXPY, deadline=Deadline.after(0.0)) is None
