"""Where a graph's prior can change what a small budget tries, and what that is worth.

Issue 20 asks for MCGS with the mined graph to beat MCGS with the seed graph at equal
budget. A graph acts on a search only through the order its prior gives a state's steps
(``search.prior``): the order a state's first batch is tried in, and the steps a budget
cuts. So for each task of a split this lists, with the rewriters as proposers:

- the steps a rewriter applies to the sequential code, and each graph's order of them;
- the steps a rewriter applies after its parallelization, each graph's order of them and
  its first batch (the steps it calls promising);
- from ``graph mine`` records of the same tasks (a GPU run whose searches tried the steps
  after parallelization), what each graph's first choice there would have measured: the
  answer a budget of 2 gives (parallelization, then one step), both read from one run,
  so one session's timing judges both choices.

No GPU: the choices are the search's own, the speedups the records'. The records' steps
are matched by technique (the first candidate of that technique after the verified
parallelization), so code since changed in a rewriter is measured as it was then::

    python3 -m benchmarks.prior_choices MANIFEST --split test --graph seed=A.msgpack \\
        --graph mined=B.msgpack --records DIR [--records DIR2] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht_core.bench.report import LEVEL, head_to_head
from regrapht_core.bench.runner import current_commit, load_manifest
from regrapht_core.contracts.proposal import Proposal, ProposeRequest
from regrapht_core.contracts.task import Task
from regrapht_core.files import atomic_write
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.search.config import SearchConfig
from regrapht_core.search.prior import Priors

__all__ = ["budget_two", "choices", "main"]

SEQUENTIAL, PARALLEL = "sequential", "parallelization"


def _ordered(graph: ReGraph, code: str, source: str, steps: Sequence[str]) -> dict[str, Any]:
    """``steps`` (those a rewriter applies) in the order ``graph``'s prior tries them, and
    the ones it calls promising: a state's first batch, or its best one where none is."""
    config = SearchConfig()
    priors = Priors(graph, cap=config.prior_weight, neighbours=config.prior_neighbours)
    ours = [s for s in graph.successors(source) if s in steps]
    ranked = sorted(ours, key=lambda s: priors.of(code, 1.0, source, s).rank(), reverse=True)
    batch = [s for s in ranked if priors.of(code, 1.0, source, s).promising] or ranked[:1]
    return {"order": ranked, "first_batch": batch}


def _propose(task: Task, source: str, step: str, code: str) -> Proposal:
    """The rewriters' first proposal for one step, from a fresh proposer: one remembers the
    candidates it handed out, and this asks the same step more than once."""
    return rewriter_propose_fn()(ProposeRequest(task, source, step, code))


def _applied(task: Task, source: str, code: str, steps: Sequence[str]) -> list[str]:
    return [step for step in steps if _propose(task, source, step, code).code is not None]


def choices(task: Task, graphs: dict[str, ReGraph]) -> dict[str, Any]:
    """One task's steps at the root and after the rewriters' parallelization, as each
    graph orders them."""
    row: dict[str, Any] = {"root": {}, "after_parallelization": None}
    candidates = sorted({s for g in graphs.values() for s in g.successors(SEQUENTIAL)})
    applied = _applied(task, SEQUENTIAL, task.source, candidates)
    row["root"] = {"applied": applied} | {
        name: _ordered(graph, task.source, SEQUENTIAL, applied) for name, graph in graphs.items()
    }
    first = _propose(task, SEQUENTIAL, PARALLEL, task.source)
    if first.code is None:
        return row
    nexts = sorted({s for g in graphs.values() for s in g.successors(PARALLEL)})
    applied = _applied(task, PARALLEL, first.code, nexts)
    row["after_parallelization"] = {"applied": applied} | {
        name: _ordered(graph, first.code, PARALLEL, applied) for name, graph in graphs.items()
    }
    return row


def _measured(records: Path, task: str) -> dict[str, float] | None:
    """Speedups the records' search measured: its verified parallelization and, per
    technique, the first step after it (0.0 where that step failed)."""
    path = records / f"{task}.json"
    if not path.is_file():
        return None
    candidates = json.loads(path.read_text(encoding="utf-8"))["candidates"]
    root = next(
        (
            c
            for c in candidates
            if c["technique"] == PARALLEL and c["parent"] is None and c["verified"]
        ),
        None,
    )
    if root is None:
        return None
    measured = {PARALLEL: float(root["speedup"])}
    for c in candidates:
        if c["parent"] == root["index"] and c["technique"] not in measured:
            measured[c["technique"]] = float(c["speedup"]) if c["verified"] else 0.0
    return measured


def budget_two(rows: dict[str, dict[str, Any]], records: Path, names: list[str]) -> dict[str, Any]:
    """Each graph's answer at budget 2 on the tasks whose records measured every graph's
    first choice after parallelization: the faster of the parallelization and that step,
    1.00x where neither beat the sequential code."""
    answers: dict[str, dict[str, float]] = {}
    for task, row in rows.items():
        after, measured = row["after_parallelization"], _measured(records, task)
        if not after or measured is None or not all(after[n]["order"] for n in names):
            continue  # a graph without an edge to any applied step has no first choice
        firsts = {name: after[name]["order"][0] for name in names}
        if not all(step in measured for step in firsts.values()):
            continue
        answers[task] = {
            name: max(1.0, measured[PARALLEL], measured[step]) for name, step in firsts.items()
        }
    first, *others = names
    summary: dict[str, Any] = {"tasks": len(answers)}
    for name in names:
        values = [a[name] for a in answers.values()]
        summary[name] = {
            "passed": sum(v > 1.0 for v in values),
            "geomean": round(statistics.geometric_mean(values), 3) if values else None,
        }
    runs = [
        {"task": task, "method": name, "passed": value > 1.0, "speedup": value}
        for task, answer in answers.items()
        for name, value in answer.items()
    ]
    for other in others:
        duel = head_to_head(runs, other, first)
        level = duel["tasks"] - duel["faster"] - duel["slower"]
        summary[f"{other}_against_{first}"] = {
            "faster": duel["faster"],
            "level": level,
            "slower": duel["slower"],
        }
    return {
        "records": str(records),
        "summary": summary,
        "later_steps": _later_steps(records),
        "answers": answers,
    }


def _later_steps(records: Path) -> dict[str, int]:
    """Every verified step the records measured after a verified parallelization, by its
    speedup over that parallelization: how much a step there can change at all."""
    ratios = []
    for path in sorted(records.glob("*.json")):
        measured = _measured(records, path.stem) or {}
        start = measured.get(PARALLEL)
        ratios += [v / start for t, v in measured.items() if t != PARALLEL and v and start]
    return {
        "measured": len(ratios),
        "gained": sum(r > LEVEL for r in ratios),
        "level": sum(1 / LEVEL <= r <= LEVEL for r in ratios),
        "lost": sum(r < 1 / LEVEL for r in ratios),
    }


def _counts(rows: dict[str, dict[str, Any]], names: list[str]) -> dict[str, Any]:
    after = [r["after_parallelization"] for r in rows.values() if r["after_parallelization"]]
    first, *others = names
    counts: dict[str, Any] = {
        "tasks": len(rows),
        "root_steps_applied": dict(
            sorted(Counter(len(r["root"]["applied"]) for r in rows.values()).items())
        ),
        "with_parallelization": len(after),
        "steps_applied_after_it": dict(sorted(Counter(len(a["applied"]) for a in after).items())),
    }
    for name in names:
        counts[f"{name}_first_after_it"] = dict(
            Counter(a[name]["order"][0] for a in after if a[name]["order"]).most_common()
        )
    for other in others:
        counts[f"{other}_differs_from_{first}"] = {
            "root_first": sum(
                r["root"][other]["order"][:1] != r["root"][first]["order"][:1]
                for r in rows.values()
            ),
            "first_after_parallelization": sum(
                a[other]["order"][:1] != a[first]["order"][:1] for a in after
            ),
            "first_batch_after_parallelization": sum(
                a[other]["first_batch"] != a[first]["first_batch"] for a in after
            ),
        }
    return counts


def _graph_option(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError("NAME=SNAPSHOT")
    return name, Path(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.prior_choices")
    parser.add_argument("manifest", type=Path)
    parser.add_argument("--split", default="test")
    parser.add_argument("--graph", type=_graph_option, action="append", required=True)
    parser.add_argument("--records", type=Path, action="append", default=[])
    parser.add_argument("--only", action="append", help="a task's name (repeatable)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    graphs = {name: load_snapshot(path).graph for name, path in args.graph}
    names = list(graphs)
    tasks = [
        t
        for t in load_manifest(args.manifest)
        if t.split == args.split and (not args.only or t.name in args.only)
    ]
    rows = {t.name: choices(t.task(), graphs) for t in tasks}
    measured = [budget_two(rows, folder, names) for folder in args.records]
    provenance = [_provenance(folder) for folder in args.records]
    document = {
        "benchmark": "where a graph's prior changes what a small budget tries",
        "device": ", ".join(sorted({str(p.get("device")) for p in provenance})) or None,
        "records_commits": sorted({str(p.get("commit")) for p in provenance}),
        "commit": current_commit(),
        "command": shlex.join(
            ["python3", "-m", "benchmarks.prior_choices", *(argv or sys.argv[1:])]
        ),
        "graphs": {name: str(path) for name, path in args.graph},
        "counts": _counts(rows, names),
        "budget_two": measured,
        "tasks": rows,
    }
    text = json.dumps(document, indent=1) + "\n"
    if args.json:
        atomic_write(args.json, text.encode("utf-8"))
    sys.stdout.write(
        json.dumps(
            {"counts": document["counts"], "budget_two": [m["summary"] for m in measured]}, indent=1
        )
        + "\n"
    )
    return 0


def _provenance(records: Path) -> dict[str, Any]:
    """The GPU run the records come from: any record names its device and commit."""
    first = next(iter(sorted(records.glob("*.json"))), None)
    return json.loads(first.read_text(encoding="utf-8")) if first else {}


if __name__ == "__main__":
    raise SystemExit(main())
