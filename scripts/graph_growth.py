"""How the ReGraph grows as trajectories are added, and what its edges say to the search.

Usage: python scripts/graph_growth.py SEED_DIR MINED_DIR [MINED_DIR ...] [--step 100]
       > benchmarks/results/cpu-graph-growth.json

Growth: the seed's trajectories first, then each mining run's folder in turn, its
trajectories in a fixed shuffled order (``random.Random(0)``, so no family comes all at
once), counting nodes, edges, edges with a measured example, and examples after each
``--step`` of them and at the end of each folder: a run mined over the graph's edges and
one mined exploring beyond them (``graph mine --explore``) show apart.

Edges: for the seed graph and the seed + mined graph, each edge's examples, tasks, the
mean reward of its measured examples (what ``search.prior`` ranks a step by: paper Eq. 3,
the speedup over the sequential code) and the median *gain* of the step, its speedup over
the code it started from. A mean of absolute speedups says which tasks an edge was mined
on as much as what the step did (a map's first step is worth 3,000x on one task and 3x on
another); the gain is the step's own effect.

Later steps: the mined steps that follow another, counted as neutral, faster or slower by
their gain.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht_core.bench.runner import current_commit
from regrapht_core.contracts.evaluation import speedup_reward
from regrapht_core.datatypes import Trajectory
from regrapht_core.graph.merge import build_graph, merge_trajectory
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.trajectories import load_trajectory_dir


def _counts(graph: ReGraph, trajectories: int) -> dict[str, int]:
    measured = [e for e in graph.edges if any(x.speedup is not None for x in graph.examples(*e))]
    return {
        "trajectories": trajectories,
        "nodes": graph.node_count,
        "edges": graph.edge_count,
        "edges_measured": len(measured),
        "examples": graph.example_count,
    }


def growth(
    seed: Sequence[Trajectory], runs: Sequence[Sequence[Trajectory]], step: int
) -> list[Any]:
    graph = build_graph(seed)
    rows = [_counts(graph, len(seed))]
    added = 0
    for run in runs:
        order = list(run)
        random.Random(0).shuffle(order)
        for k, trajectory in enumerate(order, start=1):
            merge_trajectory(graph, trajectory)
            added += 1
            if added % step == 0 or k == len(order):
                rows.append(_counts(graph, len(seed) + added))
    return rows


def edges(graph: ReGraph) -> list[dict[str, Any]]:
    """Each edge's evidence, most examples first."""
    speedup_after = {(x.task, x.after): x.speedup for e in graph.edges for x in graph.examples(*e)}
    rows = []
    for u, v in graph.edges:
        found = graph.examples(u, v)
        measured = [x for x in found if x.speedup is not None]
        gains = []
        for x in measured:
            assert x.speedup is not None
            before = speedup_after.get((x.task, x.before))
            gains.append(x.speedup / before if before else x.speedup)
        rows.append(
            {
                "from": u,
                "to": v,
                "examples": len(found),
                "tasks": len({x.task.split(".path")[0] for x in found}),
                "prior_value": (
                    round(statistics.fmean(speedup_reward(x.speedup or 0.0) for x in measured), 2)
                    if measured
                    else None
                ),
                "median_gain": round(statistics.median(gains), 3) if gains else None,
            }
        )
    return sorted(rows, key=lambda r: (-r["examples"], r["from"], r["to"]))


NEUTRAL = 0.05
"""A later step within this fraction of the code it started from counts as neutral."""


def later_steps(mined: Sequence[Trajectory]) -> dict[str, int]:
    """The mined steps that follow another, by their gain over the step before: how many
    are neutral (within :data:`NEUTRAL`), faster or slower beyond it."""
    counts = {"steps": 0, "neutral": 0, "faster": 0, "slower": 0}
    for trajectory in mined:
        timed = [step.speedup for step in trajectory.steps]
        for before, after in itertools.pairwise(timed):
            if before is None or after is None:
                continue
            gain = after / before
            counts["steps"] += 1
            kind = "neutral" if abs(gain - 1.0) <= NEUTRAL else "faster" if gain > 1 else "slower"
            counts[kind] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed", type=Path, help="the seed's trajectory folder")
    parser.add_argument("mined", type=Path, nargs="+", help="mining runs' trajectory folders")
    parser.add_argument("--step", type=int, default=100, help="trajectories between rows")
    args = parser.parse_args()
    seed = [t for _, t in load_trajectory_dir(args.seed)]
    runs = [[t for _, t in load_trajectory_dir(folder)] for folder in args.mined]
    mined = [t for run in runs for t in run]
    document = {
        "benchmark": "ReGraph growth and edge evidence (CPU: counts only, nothing timed)",
        "command": " ".join(["python", *sys.argv]),
        "commit": current_commit(),
        "device": None,  # counts of files: nothing here ran on a GPU
        "seed": str(args.seed),
        "mined": [str(folder) for folder in args.mined],
        "growth": growth(seed, runs, args.step),
        "later_steps": later_steps(mined),
        "edges_seed": edges(build_graph(seed)),
        "edges_seed_and_mined": edges(build_graph([*seed, *mined])),
    }
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
