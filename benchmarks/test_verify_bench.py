"""Verifier throughput and overhead on the GPU machine, written as a JSON result.

Two numbers matter to the search: how many candidates a minute the verifier gets through
(compiles overlapped on every core, GPU runs one at a time), and what the checking costs
over the bare minimum (compile the candidate with a trivial main and run it once).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from regrapht_core.contracts.evaluation import Status
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Built, Verifier
from regrapht_core.verify.pool import verify_many
from tests.core.verify.tasks_fixture import SAXPY, SAXPY_CUDA

pytestmark = pytest.mark.gpu

RESULTS = Path(__file__).parent / "results"
BLOCKS = (32, 64, 96, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768, 896, 1024)

BARE_MAIN = r"""
#include <cstdio>
#include <cstdlib>
void saxpy(int n, float a, const float* x, float* y);
int main() {
  const int n = 1 << 24;
  float* x = static_cast<float*>(std::malloc(n * sizeof(float)));
  float* y = static_cast<float*>(std::malloc(n * sizeof(float)));
  for (int i = 0; i < n; ++i) { x[i] = 1.0f; y[i] = 2.0f; }
  saxpy(n, 2.5f, x, y);
  std::printf("%f\n", y[n - 1]);
  return 0;
}
"""


def _candidate(block: int) -> str:
    return SAXPY_CUDA.replace("(n + 255) / 256, 256", f"(n + {block - 1}) / {block}, {block}")


def _bare_seconds(source: str, arch: str, work: Path) -> float:
    """nvcc the candidate with a trivial main, run it once: the floor for any checking."""
    (work / "cand.cu").write_text(source)
    (work / "main.cu").write_text(BARE_MAIN)
    start = time.perf_counter()
    subprocess.run(
        ["nvcc", f"-arch={arch}", "-O3", "-o", "bare", "cand.cu", "main.cu"], cwd=work, check=True
    )
    subprocess.run(["./bare"], cwd=work, check=True, capture_output=True)
    return time.perf_counter() - start


def test_throughput_and_overhead(tmp_path: Path) -> None:
    config = VerifyConfig(cache_dir=tmp_path / "objects")
    verifier = Verifier(config)
    assert verifier.device is not None
    jobs = [(SAXPY, _candidate(block)) for block in BLOCKS]

    start = time.perf_counter()
    results = verify_many(verifier, jobs)
    pool_s = time.perf_counter() - start
    statuses = [r.status for r in results]
    assert statuses == [Status.VERIFIED] * len(jobs), [r.feedback for r in results]

    fresh = _candidate(128).replace("int i =", "int i = 0 +")
    start = time.perf_counter()
    built = verifier.build(SAXPY, fresh)
    build_s = time.perf_counter() - start
    assert isinstance(built, Built), built
    start = time.perf_counter()
    single = verifier.run(built)
    run_s = time.perf_counter() - start
    assert single.status is Status.VERIFIED
    with tempfile.TemporaryDirectory() as bare_dir:
        bare_s = _bare_seconds(fresh, verifier.compiler.arch, Path(bare_dir))

    timing = results[BLOCKS.index(256)].timing
    assert timing is not None
    record = {
        "benchmark": "verifier throughput and overhead (saxpy, seq2cuda)",
        "device": verifier.device.name,
        "driver": verifier.device.driver,
        "nvcc": verifier.device.nvcc,
        "arch": verifier.compiler.arch,
        "commit": os.environ.get("REGRAPHT_COMMIT", "unknown"),
        "command": "bash scripts/gpu-check.sh",
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "config": {
            "seeds": config.seeds,
            "warmups": config.warmups,
            "timed_runs": config.timed_runs,
            "correctness_sizes": [dict(s) for s in SAXPY.correctness_sizes],
            "timing_size": dict(SAXPY.timing_size),
        },
        "candidates": len(jobs),
        "pool_seconds": round(pool_s, 3),
        "candidates_per_minute": round(60.0 * len(jobs) / pool_s, 2),
        "single_candidate": {
            "build_seconds": round(build_s, 3),
            "run_seconds": round(run_s, 3),
            "verify_seconds": round(build_s + run_s, 3),
            "bare_compile_and_run_seconds": round(bare_s, 3),
            "overhead_seconds": round(build_s + run_s - bare_s, 3),
        },
        "example_timing": {
            "mode": str(timing.mode),
            "reference_ms": timing.reference_ms,
            "candidate_ms": timing.candidate_ms,
            "reference_spread_ms": timing.reference_spread_ms,
            "candidate_spread_ms": timing.candidate_spread_ms,
            "runs": timing.runs,
            "speedup": timing.speedup,
            "all_modes": {
                str(t.mode): {"candidate_ms": t.candidate_ms, "speedup": t.speedup}
                for t in results[BLOCKS.index(256)].timings
            },
        },
    }
    slug = "".join(c if c.isalnum() else "-" for c in verifier.device.name.lower()).strip("-")
    name = f"gpu-{slug}-verify.json"
    RESULTS.mkdir(exist_ok=True)
    text = json.dumps(record, indent=2) + "\n"
    (RESULTS / name).write_text(text)
    out = os.environ.get("OUT")
    if out:
        (Path(out) / name).write_text(text)
