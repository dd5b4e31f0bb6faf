"""How far the search can go over the suite when every candidate would pass: the rewriters'
reach through the shipped graph, with the GPU's verdict replaced by a 2x speedup for every
compiled program (an algorithm's stand-in, not a measurement of speed).

It counts, per task, the distinct programs the search reached, the deepest verified path,
the steps a proposer refused and the steps widened until their rewriter had no variant left
("all N rewriter candidates were proposed"), so a change in the search's bookkeeping, in
the rewriters or in the graph shows up as reach. Run anywhere (no GPU, no model)::

    python3 -m benchmarks.search_reach [--budget 200] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.verify_throughput import MANIFEST
from regrapht_core.bench.runner import current_commit, load_manifest
from regrapht_core.contracts.evaluation import Evaluation, Status, Timing
from regrapht_core.contracts.task import TimingMode
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.search import run_search
from regrapht_core.search.answer import lineage
from regrapht_core.search.config import SearchConfig

PASSED = Evaluation(
    Status.VERIFIED, "h", timing=Timing(TimingMode.END_TO_END, 2.0, 1.0, 0.0, 0.0, 30)
)


def reach(budget: int, seed: int = 0) -> list[dict[str, Any]]:
    graph = load_snapshot(shipped_snapshot()).graph
    rows = []
    for entry in load_manifest(MANIFEST):
        result = run_search(
            entry.task(),
            graph,
            propose_fn=rewriter_propose_fn(),
            evaluate_fn=lambda code: PASSED,
            config=SearchConfig(budget=budget, retry_with_feedback=False),
            rng=random.Random(seed),
        )
        made = [c for c in result.candidates if c.code]
        depth = max((len(lineage(result.candidates, c)) for c in made), default=0)
        rows.append(
            {
                "task": entry.name,
                "candidates": len(result.candidates),
                "programs": len({c.code for c in made}),
                "deepest_path": depth,
                "refused": len(result.candidates) - len(made),
                "variants_exhausted": sum(
                    "were proposed" in c.result.feedback for c in result.candidates
                ),
                "stop_reason": str(result.stop_reason),
            }
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.search_reach")
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/cpu-search-reach.json")
    )
    args = parser.parse_args(argv)
    rows = reach(args.budget)
    record = {
        "benchmark": "search reach over the suite with every compiled candidate passing (2x)",
        "device": "none: CPU only (every compiled candidate stands in as a 2x pass)",
        "commit": current_commit(),
        "command": " ".join(["python3 -m benchmarks.search_reach", *(argv or sys.argv[1:])]),
        "host": platform.node(),
        "budget": args.budget,
        "median_programs": statistics.median(r["programs"] for r in rows),
        "max_deepest_path": max(r["deepest_path"] for r in rows),
        "tasks_with_a_path_of_2_or_more": sum(r["deepest_path"] >= 2 for r in rows),
        "variants_exhausted": sum(r["variants_exhausted"] for r in rows),
        "tasks": rows,
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    summary = {
        k: record[k]
        for k in (
            "median_programs",
            "max_deepest_path",
            "tasks_with_a_path_of_2_or_more",
            "variants_exhausted",
        )
    }
    sys.stdout.write(f"{summary}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
