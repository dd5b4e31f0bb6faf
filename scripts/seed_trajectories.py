"""Write the graph's rewriter-made trajectories: suite tasks taken through chains of
deterministic rewriters, every step checked by the verifier.

The shipped trajectories came from a model and never reach the launch-configuration and
loop-unrolling rewriters (their only way in ran through techniques no rewriter applies), so
the search could not get there (issue 16). These seeds add the missing transitions with
real examples. On a GPU machine each step's candidates (a launch configuration has one per
block size) are verified and the fastest verified one is kept, with its measured speedup:
the graph's prior. Without a GPU the first candidate that compiles is kept, unmeasured.

    python3 scripts/seed_trajectories.py [--out graph_snapshots/trajectories]
    regrapht graph build
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from regrapht_core.bench.runner import SuiteTask, load_manifest
from regrapht_core.contracts.evaluation import Evaluation
from regrapht_core.graph.taxonomy import display_name
from regrapht_core.rewrite.protocol import RewriteCandidate, RewriteContext
from regrapht_core.rewrite.registry import default_registry
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.device import nvcc_version
from regrapht_core.verify.pipeline import Verifier

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "tasks" / "manifest.toml"

HAND_WRITTEN = Path(__file__).parent / "seeds"

SEEDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("map_relu", ("parallelization", "launch_configuration")),
    ("map_hash_u32", ("parallelization", "grid_stride_loop", "launch_configuration")),
    ("stencil_fir33", ("parallelization", "loop_unrolling", "launch_configuration")),
    ("dense_gemv", ("parallelization", "launch_configuration", "loop_unrolling")),
    ("reduce_sum", ("parallelization=reduce_sum_partials.cu", "pinned_memory")),
)
"""Suite task and the techniques applied to it in turn. ``technique=FILE`` is a step
written by hand (``scripts/seeds/FILE``), checked like the others: no rewriter writes host
code that stages through its own buffers, which is where pinned memory applies."""


def step(
    verifier: Verifier, entry: SuiteTask, code: str, technique: str
) -> tuple[RewriteCandidate, Evaluation]:
    """The best checked candidate the rewriters give for ``technique`` on ``code``."""
    task = entry.task()
    made = [
        c
        for rewriter in default_registry().get(technique, ())
        for c in rewriter.apply(code, RewriteContext(task), None)
    ]
    if not made:
        raise SystemExit(f"{entry.name}: no rewriter applies {technique}")
    return best(verifier, entry, made)


def best(
    verifier: Verifier, entry: SuiteTask, made: Sequence[RewriteCandidate]
) -> tuple[RewriteCandidate, Evaluation]:
    """The fastest verified of ``made`` on a GPU, else the first that compiles."""
    task = entry.task()
    results = [(c, verifier.verify(task, c.code)) for c in made]
    if verifier.device is None:
        good = [(c, r) for c, r in results if not r.status.failed]
    else:
        good = [(c, r) for c, r in results if r.verified and r.speedup is not None]
    if not good:
        raise SystemExit(f"{entry.name}: {results[0][1].status}: {results[0][1].feedback}")
    return max(good, key=lambda pair: pair[1].speedup or 0.0)


def trajectory(verifier: Verifier, entry: SuiteTask, chain: Sequence[str]) -> dict[str, object]:
    task = entry.task()
    code, steps = task.source, []
    for link in chain:
        technique, _, hand = link.partition("=")
        if hand:
            written = (HAND_WRITTEN / hand).read_text(encoding="utf-8")
            candidate = RewriteCandidate(written, f"written by hand: scripts/seeds/{hand}")
            candidate, result = best(verifier, entry, [candidate])
        else:
            candidate, result = step(verifier, entry, code, technique)
        code = candidate.code
        steps.append(
            {
                "think": "written by hand" if hand else f"rewriter:{technique}",
                "method": display_name(technique),
                "detail": candidate.description,
                "code": code,
                "speedup": result.speedup,
            }
        )
    device = verifier.device
    if device is not None:
        checked_by = f"{device.name}, driver {device.driver}, nvcc {device.nvcc}"
    else:
        checked_by = f"nvcc {nvcc_version()} {verifier.compiler.arch} (compile only)"
    return {
        "schema": 1,
        "task": entry.name,
        "description": f"Suite task {entry.name} through the rewriters: {' -> '.join(chain)}.",
        "source": task.source,
        "verified_on": checked_by,
        "steps": steps,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 scripts/seed_trajectories.py")
    parser.add_argument("--out", type=Path, default=ROOT / "graph_snapshots" / "trajectories")
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "seed-objects")
    args = parser.parse_args(argv)
    verifier = Verifier(VerifyConfig(cache_dir=args.cache))
    entries = {entry.name: entry for entry in load_manifest(MANIFEST)}
    for name, chain in SEEDS:
        record = trajectory(verifier, entries[name], chain)
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / f"{name}.json"
        path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        speedups = [s["speedup"] for s in record["steps"]]  # type: ignore[attr-defined]
        sys.stdout.write(f"{path}: {' -> '.join(chain)} {speedups}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
