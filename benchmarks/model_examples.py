"""Does the mined graph help the model? Its first step, shown seed or mined examples.

On the test tasks where no rewriter acts at the root (the states where a job asks the
model), the embedded model is asked for the step ``sequential → parallelization`` once
with each snapshot, exactly as a search's ``ModelProposer`` asks it (same prompt, parser,
repair and borrowed definitions; seed 0), and each answer is verified on the GPU. The two
arms differ only in the examples retrieval finds: the shipped seed graph's, or the seed and
mined graph's (which holds verified steps of the same families, never of these tasks).

Two phases, because the model runs anywhere and the verifier needs the GPU::

    python3 -m benchmarks.model_examples generate OUT.json [--per-family N]   # (CPU)
    python3 -m benchmarks.model_examples verify OUT.json        # on the GPU machine

``generate`` writes the answers with the examples each arm was shown; ``verify`` checks and
times each answer (kernel-only, as mining does) and writes
``benchmarks/results/gpu-<gpu>-model-examples.json`` (the H100 run:
``gpu-h100-model-examples.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.provenance import device_prefix, provenance, write_result
from regrapht_core.bench.runner import SuiteTask, current_commit, load_manifest
from regrapht_core.contracts.proposal import ProposeRequest
from regrapht_core.contracts.task import Task, TimingMode
from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL
from regrapht_core.graph.merge import build_graph
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.retrieval import rank_step_examples
from regrapht_core.graph.trajectories import load_trajectory_dir
from regrapht_core.model.resolve import default_cache_dir, load_model, resolve_source
from regrapht_core.model.settings import ModelSettings
from regrapht_core.optimize.proposers import ModelProposer
from regrapht_core.optimize.rewriter_proposer import RewriterProposer
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "benchmarks/corpus/manifest.toml"
SEED = ROOT / "graph_snapshots/trajectories"
TRAJECTORIES = (SEED, ROOT / "graph_snapshots/mined/trajectories")
RESULT = "model-examples.json"
"""Written as ``gpu-<gpu>-model-examples.json``, named for the GPU that verified it."""


def graphs() -> dict[str, ReGraph]:
    """The two arms, built as `graph build` does: the seed's trajectories, and seed + mined
    (the shipped snapshot since issue 16's run)."""
    seed = [t for _, t in load_trajectory_dir(SEED)]
    mined = [t for folder in TRAJECTORIES for _, t in load_trajectory_dir(folder)]
    return {"seed": build_graph(seed), "mined": build_graph(mined)}


def root_refused(tasks: list[SuiteTask], graph: ReGraph) -> list[tuple[SuiteTask, Task]]:
    """The test tasks at whose root no rewriter acts on any step the graph offers."""
    rewriters, chosen = RewriterProposer(), []
    for suite_task in tasks:
        task = suite_task.task()
        steps = graph.successors(SEQUENTIAL)
        if not any(
            rewriters.answers(ProposeRequest(task, SEQUENTIAL, step, task.source)) for step in steps
        ):
            chosen.append((suite_task, task))
    return chosen


def per_family(chosen: list[tuple[SuiteTask, Task]], most: int) -> list[tuple[SuiteTask, Task]]:
    """At most ``most`` tasks of each family, in manifest order (a CPU's time for the model)."""
    taken: dict[str, int] = {}
    kept = []
    for suite_task, task in chosen:
        if taken.get(suite_task.family, 0) < most:
            taken[suite_task.family] = taken.get(suite_task.family, 0) + 1
            kept.append((suite_task, task))
    return kept


def generate(out: Path, most: int | None) -> None:
    arms = graphs()
    test = [t for t in load_manifest(MANIFEST) if t.split == "test"]
    chosen = root_refused(test, arms["seed"])
    if most is not None:
        chosen = per_family(chosen, most)
    model = load_model(
        resolve_source(ModelSettings(), os.environ),
        ModelSettings(),
        cache_dir=default_cache_dir(os.environ),
    )
    rows: list[dict[str, Any]] = []
    for suite_task, task in chosen:
        request = ProposeRequest(task, SEQUENTIAL, PARALLELIZATION, task.source)
        for arm, graph in arms.items():
            shown = rank_step_examples(graph, SEQUENTIAL, PARALLELIZATION, task.source, limit=2)
            began = time.perf_counter()
            proposal = ModelProposer(model, graph, seed=0)(request)
            rows.append(
                {
                    "task": suite_task.name,
                    "family": suite_task.family,
                    "arm": arm,
                    "examples_from": [example.task for example in shown],
                    "seconds": round(time.perf_counter() - began, 1),
                    "code": proposal.code,
                    "think": proposal.think,
                    "no_code": proposal.message if proposal.code is None else None,
                }
            )
            sys.stdout.write(
                f"{suite_task.name:45} {arm:6} {rows[-1]['seconds']:6} s "
                f"{'code' if proposal.code else proposal.message[:60]}\n"
            )
            out.write_text(json.dumps(_document(model.name, rows), indent=1) + "\n")


def _document(model: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "generated_by": " ".join(["python3 -m benchmarks.model_examples", *sys.argv[1:]]),
        "generated_at_commit": current_commit(),
        "model": model,
        "step": f"{SEQUENTIAL} -> {PARALLELIZATION}",
        "rows": rows,
    }


def verify(answers: Path) -> None:
    document = json.loads(answers.read_text(encoding="utf-8"))
    tasks = {t.name: t for t in load_manifest(MANIFEST)}
    with tempfile.TemporaryDirectory(prefix="regrapht-model-examples-") as cache:
        verifier = Verifier(VerifyConfig(cache_dir=Path(cache)))
        record: dict[str, Any] = {
            "benchmark": "the model's first step with the seed graph's examples or the mined "
            "graph's, on the test tasks where no rewriter acts at the root",
            **provenance(verifier, f"python3 -m benchmarks.model_examples verify {answers.name}"),
            "commands": [document["generated_by"], " ".join(["python3", *sys.argv])],
            "model": document["model"],
            "generated_at_commit": document["generated_at_commit"],
            "step": document["step"],
            "timing": "kernel_only",
            "rows": [],
        }
        for row in document["rows"]:
            status, speedup, why = "no_code", None, row["no_code"]
            if row["code"] is not None:
                task = replace(tasks[row["task"]], timing=TimingMode.KERNEL_ONLY).task()
                result = verifier.verify(task, row["code"])
                status, speedup, why = str(result.status), result.speedup, result.feedback[:300]
            record["rows"].append({**row, "status": status, "speedup": speedup, "why": why})
            sys.stdout.write(f"{row['task']:45} {row['arm']:6} {status:15} {speedup}\n")
            if verifier.device is not None:
                record["summary"] = summary(record["rows"])
                write_result(f"{device_prefix(verifier.device.name)}-{RESULT}", record)


def summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per arm: answers with code, verified, and verified faster than the sequential code."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        arm = counts.setdefault(row["arm"], {"tasks": 0, "code": 0, "verified": 0, "faster": 0})
        arm["tasks"] += 1
        arm["code"] += row["code"] is not None
        arm["verified"] += row["status"] == "verified"
        arm["faster"] += row["status"] == "verified" and (row["speedup"] or 0.0) > 1.0
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phase", choices=("generate", "verify"))
    parser.add_argument("answers", type=Path, help="the answers' JSON file")
    parser.add_argument(
        "--per-family", type=int, help="generate: at most this many tasks of each family"
    )
    args = parser.parse_args()
    if args.phase == "generate":
        generate(args.answers, args.per_family)
    else:
        verify(args.answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
