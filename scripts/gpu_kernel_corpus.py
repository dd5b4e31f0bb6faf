"""Verify every kernel→kernel candidate of the adversarial corpus; write statuses as JSON.

Run on the GPU machine after ``source scripts/gpu-env.sh``::

    python3 scripts/gpu_kernel_corpus.py OUT.json

Exits 1 when any candidate ends with a status its header does not expect, so the command
is a check as well as a record (device, driver, nvcc, commit, command, per-candidate status,
kernel-only speedup and feedback).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from regrapht_core.contracts.task import TaskMode
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier
from tests.data.candidates.corpus import load_corpus


def main(out: Path) -> int:
    corpus = [c for c in load_corpus() if c.task.mode is TaskMode.KERNEL_TO_KERNEL]
    with tempfile.TemporaryDirectory(prefix="regrapht-kernels-") as cache:
        config = VerifyConfig(cache_dir=Path(cache), seeds=2, run_timeout_s=30.0)
        verifier = Verifier(config)
        device = verifier.device
        report: dict[str, object] = {
            "device": device.name if device else None,
            "driver": device.driver if device else None,
            "nvcc": device.nvcc if device else None,
            "commit": os.environ.get("REGRAPHT_COMMIT", "unknown"),
            "command": "python3 scripts/gpu_kernel_corpus.py OUT.json",
            "seeds": config.seeds,
            "warmups": config.warmups,
            "timed_runs": config.timed_runs,
        }
        rows: list[dict[str, object]] = []
        failures = 0
        for candidate in corpus:
            start = time.monotonic()
            result = verifier.verify(candidate.task, candidate.source)
            ok = result.status in candidate.expect
            failures += not ok
            timing = result.timing
            rows.append(
                {
                    "candidate": candidate.id,
                    "expect": sorted(candidate.expect),
                    "status": result.status.value,
                    "as_expected": ok,
                    "mode": timing.mode.value if timing else None,
                    "reference_ms": timing.reference_ms if timing else None,
                    "candidate_ms": timing.candidate_ms if timing else None,
                    "reference_spread_ms": timing.reference_spread_ms if timing else None,
                    "candidate_spread_ms": timing.candidate_spread_ms if timing else None,
                    "speedup": result.speedup,
                    "runs": timing.runs if timing else None,
                    "seconds": round(time.monotonic() - start, 2),
                    "feedback": result.feedback[:300],
                    "flags": list(result.flags),
                }
            )
            shown = f"{result.speedup:.2f}x" if result.speedup else "-"
            mark = "ok " if ok else "BAD"
            print(f"{mark} {candidate.id:45} {result.status.value:15} {shown:>8}", flush=True)
            if not ok:
                print(f"    {result.feedback[:500]}", flush=True)
            # Rewritten after every candidate, so a run cut short still leaves its record.
            report.update(candidates=rows, unexpected=failures, complete=len(rows) == len(corpus))
            out.write_text(json.dumps(report, indent=2) + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
