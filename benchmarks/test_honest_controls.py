"""The corpus's honest controls on the GPU machine (``make gpu-bench-verify``): all must
verify, and the speedups are recorded for the ±10% comparison between verifiers
(:mod:`benchmarks.honest_controls`, ``scripts/compare-honest.py``)."""

from __future__ import annotations

import pytest

from benchmarks.honest_controls import run_honest_controls
from tests.conftest import gpu_present

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_present(), reason="needs an NVIDIA GPU: `make gpu-bench-verify`"),
]


def test_honest_controls_verify() -> None:
    record = run_honest_controls(command="bash scripts/gpu-check.sh bench")
    assert record["device"], "no GPU detected by the verifier"
    rejected = {
        row["candidate"]: f"{row['status']}: {row['feedback']}"
        for row in record["candidates"]
        if not row["as_expected"]
    }
    assert not rejected, rejected
