"""How often the graph's variant order (``search.variants``) puts a better first variant
of the first step forward than the rewriters' own order, judged on the mined records
without a GPU: leave one train task out.

For every train task whose first step the mining measured in at least two of the variants
the rewriters offer it today, the order is predicted from the shipped graph without that
task's examples (its other paths included), and the variant each order puts first is
scored by what the mining measured for it on that task. A task whose first variant, by
either order, was never measured there is counted apart (unscored). The mining's own
timings judge, so a ratio says what a budget of one candidate would have gained on the
train split; the test split's searches on the GPU are the measurement that counts
(BENCHMARKS.md)::

    python3 -m benchmarks.variant_order [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht_core.bench.runner import SuiteTask, current_commit, load_manifest
from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL
from regrapht_core.datatypes import EdgeExample
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.optimize.rewriter_proposer import RewriterProposer
from regrapht_core.search.variants import VariantPrior, variant_kind

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "corpus" / "manifest.toml"
NOISE = 1.05
"""Ratios within this factor either way are ties (as in compare_graphs.py)."""


class WithoutTask:
    """The graph less one task's examples (every path of it): what a search of a task the
    graph never saw would read."""

    def __init__(self, graph: ReGraph, task: str) -> None:
        self._graph, self._task = graph, task

    def successors(self, node: str) -> Sequence[str]:
        return self._graph.successors(node)

    def predecessors(self, node: str) -> Sequence[str]:
        return self._graph.predecessors(node)

    def examples(self, u: str, v: str) -> Sequence[EdgeExample]:
        return [e for e in self._graph.examples(u, v) if _base(e.task) != self._task]


def _base(task: str) -> str:
    return task.split(".path", maxsplit=1)[0]


def _offered(entry: SuiteTask) -> list[str]:
    """The descriptions of the first step's variants, in the rewriters' order."""
    task = entry.task()
    request = ProposeRequest(task, SEQUENTIAL, PARALLELIZATION, task.source)
    proposer, found = RewriterProposer(), []
    while (proposal := proposer(request)).code is not None:
        found.append(proposal.think)
    return found


def measured(graph: ReGraph) -> dict[str, dict[str, float]]:
    """Train task → variant → the geometric mean speedup the mining measured for its
    first step in that variant."""
    logs: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for example in graph.examples(SEQUENTIAL, PARALLELIZATION):
        if example.speedup:
            logs[_base(example.task)][variant_kind(example.think)].append(math.log(example.speedup))
    return {
        task: {kind: math.exp(statistics.fmean(v)) for kind, v in kinds.items()}
        for task, kinds in logs.items()
    }


def judge(entries: Sequence[SuiteTask], graph: ReGraph, neighbours: int) -> list[dict[str, Any]]:
    """One row per train task whose first step was measured in two of today's variants."""
    speeds = measured(graph)
    rows = []
    for entry in entries:
        mined = speeds.get(entry.name, {})
        if len(mined) < 2:
            continue
        offered = _offered(entry)
        kinds = [variant_kind(d) for d in offered]
        if len(set(kinds) & mined.keys()) < 2:
            continue
        prior = VariantPrior(WithoutTask(graph, entry.name), neighbours=neighbours)
        order = prior.order(SEQUENTIAL, PARALLELIZATION, entry.task().source, offered)
        first, predicted = kinds[0], kinds[order[0]]
        row: dict[str, Any] = {
            "task": entry.name,
            "rewriters_first": offered[0],
            "graph_first": offered[order[0]],
            "measured": {d: mined.get(k) for d, k in zip(offered, kinds, strict=True)},
        }
        if first in mined and predicted in mined:
            row["ratio"] = mined[predicted] / mined[first]
        rows.append(row)
    return rows


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    changed = [r for r in ratios if r != 1.0]
    return {
        "tasks": len(rows),
        "scored": len(ratios),
        "first_changed": sum(1 for r in rows if r["graph_first"] != r["rewriters_first"]),
        "first_changed_scored": len(changed),
        "better": sum(1 for r in ratios if r > NOISE),
        "worse": sum(1 for r in ratios if r < 1 / NOISE),
        "geomean_ratio_scored": math.exp(statistics.fmean(map(math.log, ratios)))
        if ratios
        else None,
        "geomean_ratio_changed": math.exp(statistics.fmean(map(math.log, changed)))
        if changed
        else None,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neighbours", type=int, default=5)
    parser.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    args = parser.parse_args(argv)
    entries = [e for e in load_manifest(CORPUS) if e.split == "train"]
    rows = judge(entries, load_snapshot(shipped_snapshot()).graph, args.neighbours)
    document = {
        "benchmark": "the graph's variant order against the rewriters' own, leave one train "
        "task out, judged by the mining's measurements of the first step",
        "device": "none (CPU; the speedups are the mining's H100 and H200 records)",
        "commit": current_commit(),
        "command": "python3 -m benchmarks.variant_order " + " ".join(argv or sys.argv[1:]),
        "summary": summary(rows),
        "tasks": rows,
    }
    text = json.dumps(document, indent=1) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
