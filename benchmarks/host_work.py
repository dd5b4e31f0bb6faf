"""How much host work kernel-only timing sees in honest calls: an honest copy-launch-copy
saxpy (2^24 floats) and three variants that add four no-op launches, four tiny memsets or
four ``cudaGetLastError`` calls, each verified twice; per variant the medians of the timed
calls' host clock, kernel time, launch count and host work (the call's host time outside
the wrapped runtime calls and launches). Sets ``timing.HOST_WORK_ALLOWANCE_MS``::

    python3 -m benchmarks.host_work
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.provenance import device_prefix, provenance, write_result
from regrapht_core.verify import driver
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier
from tests.core.verify.tasks_fixture import SAXPY

ROOT = Path(__file__).resolve().parents[1]
_BASE = (ROOT / "tests/data/candidates/saxpy/honest_naive.cu").read_text(encoding="utf-8")
_BEFORE_FREE = "  cudaFree(dx);"


def _adding(statement: str, prelude: str = "") -> str:
    extra = f"  for (int k = 0; k < 4; ++k) {statement}\n{_BEFORE_FREE}"
    return prelude + _BASE.replace(_BEFORE_FREE, extra)


VARIANTS = {
    "honest_naive": _BASE,
    "plus_4_noop_launches": _adding(
        "nop_kernel<<<1, 32>>>();", "__global__ void nop_kernel() {}\n"
    ),
    "plus_4_memsets": _adding("cudaMemset(dx, 0, 4);"),
    "plus_4_get_last_error": _adding("(void)cudaGetLastError();"),
}


def main() -> int:
    samples: list[driver.CallSample] = []
    call = driver.Harness.call

    def recorded(self: driver.Harness, *, flush: bool) -> driver.CallSample:
        sample = call(self, flush=flush)
        if flush:  # the timing-size calls
            samples.append(sample)
        return sample

    driver.Harness.call = recorded  # type: ignore[method-assign]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="regrapht-host-work-") as cache:
        verifier = Verifier(VerifyConfig(cache_dir=Path(cache)))
        record: dict[str, Any] = {
            "benchmark": "host work per timed call of honest host-to-CUDA candidates",
            **provenance(verifier, "python3 -m benchmarks.host_work"),
            "task": SAXPY.name,
            "timing_size": SAXPY.timing_size,
            "rows": rows,
        }
        for name, code in VARIANTS.items():
            for run in range(2):
                samples.clear()
                result = verifier.verify(SAXPY, code)

                def median(values: list[float]) -> float:
                    return round(statistics.median(values), 4)

                rows.append(
                    {
                        "variant": name,
                        "run": run,
                        "status": str(result.status),
                        "calls": len(samples),
                        "host_ms": median([s.host_ms for s in samples]),
                        "kernel_ms": median([s.kernel_ms for s in samples]),
                        "launches": median([float(s.launches) for s in samples]),
                        "host_work_ms": median([s.host_work_ms for s in samples]),
                    }
                )
                sys.stdout.write(f"{rows[-1]}\n")
                if verifier.device is not None:
                    write_result(f"{device_prefix(verifier.device.name)}-host-work.json", record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
