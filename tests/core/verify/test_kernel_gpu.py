"""On the GPU, kernel→kernel mode: pycuda runs candidate and original kernel under one launch
contract; honest kernels verify with a kernel-only speedup, wrong ones say where."""

from __future__ import annotations

import pytest

from regrapht_core.contracts.evaluation import Status
from regrapht_core.contracts.task import TimingMode
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier
from tests.data.candidates.corpus import CORPUS_DIR
from tests.data.candidates.tasks import SAXPY_KERNEL, TRANSPOSE_KERNEL

pytestmark = pytest.mark.gpu


def _read(task: str, name: str) -> str:
    return (CORPUS_DIR / task / f"{name}.cu").read_text()


@pytest.fixture(scope="module")
def verifier(tmp_path_factory: pytest.TempPathFactory) -> Verifier:
    config = VerifyConfig(cache_dir=tmp_path_factory.mktemp("modules"), seeds=2, warmups=3)
    return Verifier(config, gate=lambda _source, _task: None)


def test_a_tiled_transpose_beats_the_original_kernel(verifier: Verifier) -> None:
    result = verifier.verify(TRANSPOSE_KERNEL, _read("transpose", "honest_tiled"))
    assert result.status is Status.VERIFIED, result.feedback
    assert result.timing is not None and result.timing.mode is TimingMode.KERNEL_ONLY
    assert [t.mode for t in result.timings] == [TimingMode.KERNEL_ONLY]
    assert result.timing.runs >= 30
    assert result.speedup is not None and result.speedup > 1.0
    assert result.reward == result.speedup


def test_a_wrong_kernel_names_the_first_differing_element(verifier: Verifier) -> None:
    result = verifier.verify(SAXPY_KERNEL, _read("saxpy_kernel", "cheat_constant_output"))
    assert result.status is Status.WRONG_OUTPUT
    assert "output 'y' differs at index 0: expected" in result.feedback
    assert result.reward == -1.0


def test_after_an_illegal_address_the_gpu_is_rechecked(verifier: Verifier) -> None:
    crashed = verifier.verify(SAXPY_KERNEL, _read("saxpy_kernel", "cheat_illegal_address"))
    assert crashed.status is Status.CRASH
    assert "CUDA error" in crashed.feedback
    after = verifier.verify(SAXPY_KERNEL, _read("saxpy_kernel", "honest_naive"))
    assert after.status is Status.VERIFIED, after.feedback


def test_a_device_side_cache_across_launches_is_caught(verifier: Verifier) -> None:
    cached = (
        "__device__ float cache[1 << 23];\n__device__ int cached_n = -1;\n"
        "__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i >= n) return;\n"
        "  if (cached_n == n) { y[i] = cache[i]; return; }\n"
        "  float v = a * x[i] + y[i];\n  y[i] = v;\n  cache[i] = v;\n"
        "  if (i == n - 1) cached_n = n;\n}\n"
    )
    result = verifier.verify(SAXPY_KERNEL, cached)
    assert result.status in (Status.WRONG_OUTPUT, Status.NONDETERMINISTIC), result.feedback
