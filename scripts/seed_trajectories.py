"""Write the graph's rewriter-made trajectories: suite tasks taken through chains of
deterministic rewriters, every step checked by the verifier.

The shipped trajectories came from a model and never reach the launch-configuration and
loop-unrolling rewriters (their only way in ran through techniques no rewriter applies), so
the search could not get there (issue 16). These seeds add the missing transitions with
real examples. On a GPU machine each step's candidates (a launch configuration has one per
block size) are verified and the fastest verified one is kept, with its measured speedup:
the graph's prior. Without a GPU the first candidate that compiles is kept, unmeasured.

    python3 scripts/seed_trajectories.py [--out graph_snapshots/trajectories] [--only TASK ...]
    python3 scripts/seed_trajectories.py --check graph_snapshots/trajectories/saxpy.json ...
    regrapht graph build

``--check`` verifies the steps of trajectories written elsewhere (the model-made ones,
their sources annotated as tasks) and records the speedups in place.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht_core.bench.runner import SuiteTask, load_manifest
from regrapht_core.contracts.evaluation import Evaluation
from regrapht_core.contracts.task import Task
from regrapht_core.cxx.parse import language_for_path
from regrapht_core.datatypes import Trajectory, TrajectoryStep
from regrapht_core.graph.taxonomy import display_name
from regrapht_core.graph.trajectories import trajectory_document
from regrapht_core.rewrite.protocol import RewriteCandidate, RewriteContext
from regrapht_core.rewrite.registry import default_registry
from regrapht_core.tasks.extract import extract_task
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.device import nvcc_version
from regrapht_core.verify.pipeline import Verifier

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks" / "tasks" / "manifest.toml"

HAND_WRITTEN = Path(__file__).parent / "seeds"

SEEDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("map_relu", ("parallelization", "launch_configuration")),
    ("map_clamp", ("parallelization", "vectorized_access", "launch_configuration")),
    ("map_hash_u32", ("parallelization", "grid_stride_loop", "launch_configuration")),
    (
        "stencil_fir33",
        ("parallelization", "constant_memory", "loop_unrolling", "launch_configuration"),
    ),
    ("trans_sigmoid", ("parallelization", "fast_math")),
    ("dense_gemv", ("parallelization", "launch_configuration", "loop_unrolling")),
    ("reduce_sum", ("parallelization=reduce_sum_partials.cu", "pinned_memory")),
    ("scan_inclusive", ("library_call", "launch_configuration")),
    ("recur_iir", ("library_call", "grid_stride_loop")),
    ("search_first", ("algorithmic_change", "read_only_cache")),
    ("hist_binned", ("privatization", "launch_configuration")),
)
"""Suite task and the techniques applied to it in turn. ``technique=FILE`` is a step
written by hand (``scripts/seeds/FILE``), checked like the others: no rewriter writes host
code that stages through its own buffers, which is where pinned memory applies."""


def step(
    verifier: Verifier, task: Task, code: str, technique: str
) -> tuple[RewriteCandidate, Evaluation]:
    """The best checked candidate the rewriters give for ``technique`` on ``code``."""
    made = [
        c
        for rewriter in default_registry().get(technique, ())
        for c in rewriter.apply(code, RewriteContext(task), None)
    ]
    if not made:
        raise SystemExit(f"{task.name}: no rewriter applies {technique}")
    return best(verifier, task, made)


def best(
    verifier: Verifier, task: Task, made: Sequence[RewriteCandidate]
) -> tuple[RewriteCandidate, Evaluation]:
    """The fastest verified of ``made`` on a GPU, else the first that compiles."""
    results = [(c, verifier.verify(task, c.code)) for c in made]
    if verifier.device is None:
        good = [(c, r) for c, r in results if not r.status.failed]
    else:
        good = [(c, r) for c, r in results if r.verified and r.speedup is not None]
    if not good:
        raise SystemExit(f"{task.name}: {results[0][1].status}: {results[0][1].feedback}")
    return max(good, key=lambda pair: pair[1].speedup or 0.0)


def trajectory(verifier: Verifier, entry: SuiteTask, chain: Sequence[str]) -> dict[str, Any]:
    task = entry.task()
    code = task.source
    steps: list[TrajectoryStep] = []
    for link in chain:
        technique, _, hand = link.partition("=")
        if hand:
            written = (HAND_WRITTEN / hand).read_text(encoding="utf-8")
            candidate = RewriteCandidate(written, f"written by hand: scripts/seeds/{hand}")
            candidate, result = best(verifier, task, [candidate])
        else:
            candidate, result = step(verifier, task, code, technique)
        code = candidate.code
        steps.append(
            TrajectoryStep(
                think="written by hand" if hand else f"rewriter:{technique}",
                method=display_name(technique),
                detail=candidate.description,
                code=code,
                speedup=result.speedup,
            )
        )
    found = Trajectory(task.entry, task.source, tuple(steps), checked_by(verifier))
    description = f"Suite task {entry.name} through the rewriters: {' -> '.join(chain)}."
    return trajectory_document(found, description)


def checked_by(verifier: Verifier) -> str:
    device = verifier.device
    if device is not None:
        return f"{device.name}, driver {device.driver}, nvcc {device.nvcc}"
    return f"nvcc {nvcc_version()} {verifier.compiler.arch} (compile only)"


def check(verifier: Verifier, path: Path) -> str:
    """Verify every step of the trajectory in ``path`` (its source annotated as a task) and
    write the measured speedups into it; a step that fails leaves the file as it was."""
    document = json.loads(path.read_text(encoding="utf-8"))
    source = document["source"]
    task = extract_task(source, language_for_path(Path("source.cpp")), function=document["task"])
    speedups = []
    for k, step in enumerate(document["steps"]):
        result = verifier.verify(task, step["code"])
        if result.status.failed or (verifier.device is not None and not result.verified):
            said = f"{result.status}: {result.feedback[:300]}"
            return f"{path.name}: step {k + 1} ({step['method']}) {said}"
        speedups.append(result.speedup)
    for step, speedup in zip(document["steps"], speedups, strict=True):
        step["speedup"] = speedup
    document["verified_on"] = checked_by(verifier)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return f"{path.name}: {'verified' if verifier.device else 'compiled'} {speedups}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 scripts/seed_trajectories.py")
    parser.add_argument("--out", type=Path, default=ROOT / "graph_snapshots" / "trajectories")
    parser.add_argument("--cache", type=Path, default=ROOT / "build" / "seed-objects")
    parser.add_argument(
        "--check",
        nargs="+",
        type=Path,
        metavar="TRAJECTORY",
        help="verify these trajectory files' steps and record their speedups instead",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="TASK",
        help="write only these suite tasks' seeds (the others keep their measured files)",
    )
    args = parser.parse_args(argv)
    verifier = Verifier(VerifyConfig(cache_dir=args.cache))
    if args.check:
        said = [check(verifier, path) for path in args.check]
        sys.stdout.write("".join(f"{line}\n" for line in said))
        return 0 if all(": verified " in line or ": compiled " in line for line in said) else 1
    entries = {entry.name: entry for entry in load_manifest(MANIFEST)}
    unknown = set(args.only or ()) - {name for name, _ in SEEDS}
    if unknown:
        parser.error(f"no seed for {', '.join(sorted(unknown))}")
    for name, chain in SEEDS:
        if args.only and name not in args.only:
            continue
        record = trajectory(verifier, entries[name], chain)
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / f"{record['task']}.json"
        path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        speedups = [s["speedup"] for s in record["steps"]]
        sys.stdout.write(f"{path}: {' -> '.join(chain)} {speedups}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
