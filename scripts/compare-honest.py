"""Compare two runs of the honest-controls benchmark: each candidate's speedup ratio and
whether all moved by at most ±10% (the issue's bound between the old and new verifier).

    python3 scripts/compare-honest.py BEFORE.json AFTER.json [--mode kernel_only]

Runs from any directory (it puts the repository root on ``sys.path`` itself); exits 1 when
any candidate is outside the bound, missing, or not verified in either run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.honest_controls import compare_files, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument(
        "--mode",
        choices=("end_to_end", "kernel_only"),
        help="compare the speedups in this timing mode (default: each control's primary)",
    )
    args = parser.parse_args()
    rows = compare_files(args.before, args.after, args.mode)
    print(report(rows))
    return 0 if rows and all(r.within for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
