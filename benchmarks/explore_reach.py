"""Which corpus tasks a search could take a step on that no edge of the seed graph holds: the
rewriters' reach beyond the graph, the ground `regrapht graph mine --explore` covers.

Per task: parallelize it (the first candidate of the first rewriter that answers), then
apply every rewriter technique to that code and to what each produced, two steps deep (each
step's first candidate), and list the steps whose edge the seed graph lacks. No GPU and no
compiler: a rewriter answering is not a program verifying. ``--pick N`` prints N of the
tasks with such steps, family by family in turn (scripts/explore/*.txt are its picks at 9344307)::

    python3 -m benchmarks.explore_reach --split test [--pick 32] [--out FILE]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht_core.bench.runner import SuiteTask, current_commit, load_manifest
from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL
from regrapht_core.graph.build import build_snapshot
from regrapht_core.graph.model import ReGraph
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.registry import Registry, default_registry

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "corpus" / "manifest.toml"
SEED = ROOT / "graph_snapshots" / "trajectories"


def _first(registry: Registry, technique: str, code: str, context: RewriteContext) -> str | None:
    for rewriter in registry.get(technique, ()):
        made = rewriter.apply(code, context, None)
        if made:
            return made[0].code
    return None


def new_steps(entry: SuiteTask, graph: ReGraph, registry: Registry) -> list[tuple[str, str]]:
    """The steps off ``graph``'s edges that rewriters answer on ``entry``, two steps past
    its parallelization."""
    task = entry.task()
    context = RewriteContext(task)
    start = _first(registry, PARALLELIZATION, task.source, context)
    frontier = [] if start is None else [(PARALLELIZATION, start)]
    seen: set[tuple[str, str]] = set()
    found: set[tuple[str, str]] = set()
    for _ in range(2):
        following = []
        for technique, code in frontier:
            for step in sorted(set(registry) - {technique, PARALLELIZATION, SEQUENTIAL}):
                made = _first(registry, step, code, context)
                if made is None:
                    continue
                if not graph.has_edge(technique, step):
                    found.add((technique, step))
                if (step, made) not in seen:
                    seen.add((step, made))
                    following.append((step, made))
        frontier = following
    return sorted(found)


def pick(reach: dict[str, dict[str, Any]], count: int) -> list[str]:
    """``count`` tasks with new steps, one per family in turn (families and tasks sorted)."""
    by_family: dict[str, list[str]] = defaultdict(list)
    for name in sorted(reach):
        if reach[name]["new"]:
            by_family[reach[name]["family"]].append(name)
    turns = itertools.zip_longest(*(by_family[f] for f in sorted(by_family)))
    return [name for turn in turns for name in turn if name][:count]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test")
    parser.add_argument("--pick", type=int)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        graph = build_snapshot([SEED], Path(folder) / "seed.msgpack").graph
    registry = default_registry()
    entries = [e for e in load_manifest(CORPUS) if e.split == args.split]
    reach = {
        e.name: {"family": e.family, "new": [list(s) for s in new_steps(e, graph, registry)]}
        for e in entries
    }
    if args.pick:
        sys.stdout.write("".join(f"{name}\n" for name in pick(reach, args.pick)))
    steps: dict[str, int] = defaultdict(int)
    for row in reach.values():
        for u, v in row["new"]:
            steps[f"{u} -> {v}"] += 1
    document = {
        "benchmark": "rewriter steps off the seed graph's edges, per corpus task",
        "device": "none (CPU: rewriters only, nothing compiled or run)",
        "commit": current_commit(),
        "command": " ".join(["python3 -m benchmarks.explore_reach", *(argv or sys.argv[1:])]),
        "split": args.split,
        "tasks": len(reach),
        "tasks_with_new_steps": sum(1 for row in reach.values() if row["new"]),
        "tasks_per_new_step": dict(sorted(steps.items(), key=lambda kv: (-kv[1], kv[0]))),
        "per_task": reach,
    }
    if args.out:
        args.out.write_text(json.dumps(document, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
