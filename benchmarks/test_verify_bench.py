"""Verifier throughput over the whole task suite on the GPU machine (``make gpu-bench-verify``).

The measurement lives in :mod:`benchmarks.verify_throughput` so it also runs as a plain
command; this entry runs it within the budget ``gpu-check.sh`` gives it
(``$REGRAPHT_THROUGHPUT_BUDGET_S``, default 300 s) and then holds the verifier to the
candidates being honest: every rewriter candidate that ran must verify.
"""

from __future__ import annotations

import os

import pytest

from benchmarks.verify_throughput import run_throughput
from regrapht_core.contracts.evaluation import Status
from tests.conftest import gpu_present

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not gpu_present(), reason="needs an NVIDIA GPU: `make gpu-bench-verify`"),
]


def test_suite_throughput() -> None:
    budget = float(os.environ.get("REGRAPHT_THROUGHPUT_BUDGET_S", "300"))
    record, results = run_throughput(
        budget_s=budget,
        command=f"bash scripts/gpu-check.sh bench (REGRAPHT_THROUGHPUT_BUDGET_S={budget:g})",
    )
    assert record["device"], "no GPU detected by the verifier"
    assert record["tasks_done"] >= 1
    wrong = {row["task"]: row["failures"] for row in record["tasks"] if row["failures"]}
    assert all(r.status is Status.VERIFIED for r in results), wrong
