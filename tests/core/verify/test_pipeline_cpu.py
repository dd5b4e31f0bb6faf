"""The verifier without a GPU: statuses of the CPU stages, and the harness's checks run for
real through its host-only build (poisoning, guard bytes, input hashes, outputs on disk)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.evaluation import DeviceInfo, Evaluation, Status
from regrapht_core.contracts.task import Task
from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.verify.cases import build_case, read_hashes, read_outputs, write_cases
from regrapht_core.verify.compare import first_mismatch
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.harness import EXIT_OUT_OF_BOUNDS, HarnessKind, harness_source
from regrapht_core.verify.pipeline import Verifier
from regrapht_core.verify.programs import gpu_python_missing
from regrapht_core.verify.sandbox import (
    Limits,
    RunOutcome,
    prepare_private_dir,
    run_isolated,
)
from tests.core.verify.tasks_fixture import MATMUL, SAXPY, SAXPY_CUDA, SUM, VECTOR_INT
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


def _run_on_host(compiler: Compiler, task: Task, source: str, root: Path, reps: int) -> RunOutcome:
    """Link ``source`` (plain C++) with the host-only harness and run it on fresh cases."""
    harness = compiler.host_object(harness_source(task, HarnessKind.REFERENCE))
    unit = compiler.host_object(source)
    assert harness.path is not None and unit.path is not None, unit.log
    binary = compiler.link([harness.path, unit.path], root / "bin", cuda=False)
    assert binary.ok, binary.log
    cases = [build_case(task, size, 7, generate_inputs) for size in task.correctness_sizes]
    write_cases(root / "run", cases, reps=reps)
    shutil.copy(root / "bin", root / "run" / "bin")
    prepare_private_dir(root / "run")
    return run_isolated(["./bin", "."], root / "run", Limits(), {})


@pytest.fixture(scope="module")
def host_compiler(cache: Path) -> Compiler:
    return Compiler(cache, "sm_90")


def test_reference_outputs_and_input_hashes_round_trip(
    host_compiler: Compiler, tmp_path: Path
) -> None:
    outcome = _run_on_host(host_compiler, SAXPY, SAXPY.source, tmp_path, reps=2)
    assert outcome.ok, outcome.stderr
    cases = [build_case(SAXPY, s, 7, generate_inputs) for s in SAXPY.correctness_sizes]
    for k, case in enumerate(cases):
        folder = tmp_path / "run" / f"case{k}"
        assert read_hashes(folder, "0") == case.input_hashes(SAXPY)
        x, y = case.arrays[2], case.arrays[3]
        got = read_outputs(SAXPY, folder, "1")
        assert got is not None
        want = (np.float32(2.5) * x + y).astype(np.float32)
        assert first_mismatch("y", want, got["y"], SAXPY.tolerance) is None


def test_unwritten_outputs_stay_poisoned_and_are_rejected(
    host_compiler: Compiler, tmp_path: Path
) -> None:
    lazy = "void matmul(int n, const float* A, const float* B, float* C) {}\n"
    outcome = _run_on_host(host_compiler, MATMUL, lazy, tmp_path, reps=1)
    assert outcome.ok
    got = read_outputs(MATMUL, tmp_path / "run" / "case1", "0")
    assert got is not None
    assert np.isnan(got["C"]).all()
    mismatch = first_mismatch("C", np.zeros_like(got["C"]), got["C"], MATMUL.tolerance)
    assert mismatch is not None and "index 0" in mismatch and "nan" in mismatch


def test_writing_past_an_output_is_caught_by_guard_bytes(
    host_compiler: Compiler, tmp_path: Path
) -> None:
    spill = "void saxpy(int n, float a, const float* x, float* y) { y[n] = 1.0f; }\n"
    outcome = _run_on_host(host_compiler, SAXPY, spill, tmp_path, reps=1)
    assert outcome.returncode == EXIT_OUT_OF_BOUNDS
    assert "'y'" in outcome.stderr


def test_modified_inputs_change_the_hash(host_compiler: Compiler, tmp_path: Path) -> None:
    sneaky = (
        "void saxpy(int n, float a, const float* x, float* y) {\n"
        "  for (int i = 0; i < n; ++i) { y[i] = a * x[i] + y[i]; ((float*)x)[i] = 0; }\n}\n"
    )
    outcome = _run_on_host(host_compiler, SAXPY, sneaky, tmp_path, reps=1)
    assert outcome.ok
    case = build_case(SAXPY, SAXPY.correctness_sizes[-1], 7, generate_inputs)
    folder = tmp_path / "run" / f"case{len(SAXPY.correctness_sizes) - 1}"
    assert read_hashes(folder, "0") != case.input_hashes(SAXPY)


@pytest.mark.parametrize("task", [SUM, VECTOR_INT], ids=lambda t: t.name)
def test_return_values_and_vectors_are_written(
    host_compiler: Compiler, task: Task, tmp_path: Path
) -> None:
    outcome = _run_on_host(host_compiler, task, task.source, tmp_path, reps=1)
    assert outcome.ok, outcome.stderr
    got = read_outputs(task, tmp_path / "run" / "case0", "0")
    assert got is not None and got["return"].size == 1


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
