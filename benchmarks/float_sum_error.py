"""How far a sequential float32 sum is from the exact one: what ``Tolerance.per_term`` must
cover when a GPU sums in another order.

For each length, 50 draws from [-1, 1] (the default distribution) are summed in order in
float32 (``np.add.accumulate``) and in float64; the difference is the reference's own
rounding. Writes ``benchmarks/results/cpu-float-sum-error.json``:

    .venv/bin/python -m benchmarks.float_sum_error
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
from pathlib import Path

import numpy as np

from regrapht_core.bench.runner import current_commit
from regrapht_core.tasks.extract import ACCUMULATING_TOLERANCE

OUT = Path(__file__).resolve().parent / "results" / "cpu-float-sum-error.json"
LENGTHS = (4099, 1 << 20, 1 << 22)
DRAWS = 50


def errors(length: int) -> list[float]:
    """|sequential float32 sum - float64 sum| for each draw."""
    found = []
    for seed in range(DRAWS):
        x = np.random.default_rng(seed).uniform(-1, 1, length).astype(np.float32)
        in_order = float(np.add.accumulate(x, dtype=np.float32)[-1])
        found.append(abs(in_order - float(x.astype(np.float64).sum())))
    return found


def main() -> None:
    rows = []
    for length in LENGTHS:
        found = errors(length)
        bound = ACCUMULATING_TOLERANCE.at({"n": length}).atol
        rows.append(
            {
                "length": length,
                "median_error": round(statistics.median(found), 6),
                "max_error": round(max(found), 6),
                "atol_at_length": round(bound, 6),
            }
        )
    document = {
        "benchmark": "sequential float32 sum against float64, 50 draws from [-1, 1] each",
        "device": f"CPU ({platform.machine()}), no GPU",
        "commit": current_commit(),
        "command": " ".join(["python -m benchmarks.float_sum_error", *sys.argv[1:]]),
        "rows": rows,
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
