"""Run a task suite with one or more search methods and record what was measured.

Every method gets the same budget, verifier and seed, so the numbers differ only by how
candidates were chosen and who proposed them. Results are rewritten after every task, so
a run cut short (a time limit on the GPU machine) still leaves a valid file with the tasks
done so far. Provenance (device, driver, nvcc, commit, command) comes from the verifier's
own device probe, never from the caller.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from regrapht_core.bench.fingerprint import counted_as, engine_fingerprint
from regrapht_core.contracts.evaluation import Evaluation, Status, copy_bound
from regrapht_core.contracts.proposal import Candidate, ProposeFn
from regrapht_core.contracts.task import Task, TimingMode
from regrapht_core.cxx.parse import language_for_path
from regrapht_core.errors import ConfigError, ReGraphTError
from regrapht_core.files import atomic_write, read_source
from regrapht_core.model.check import runs_on
from regrapht_core.optimize.job import OptimizeOutcome, SearchFn
from regrapht_core.optimize.proposers import ONE_SHOT_STYLES, OneShotProposer
from regrapht_core.optimize.session import Optimizer
from regrapht_core.search import run_search
from regrapht_core.search.baselines import run_random_walks, run_sampling
from regrapht_core.tasks.extract import extract_task

__all__ = [
    "METHODS",
    "SuiteTask",
    "applied_techniques",
    "current_commit",
    "engine_fingerprint",
    "load_manifest",
    "merge_arms",
    "merge_results",
    "run_suite",
    "shard",
    "summarise",
    "uncommitted",
]

_log = logging.getLogger(__name__)

METHODS = ("mcgs", "walks", *ONE_SHOT_STYLES)
"""``mcgs``: ReGraphT; ``walks``: random walks on the graph; ``plain``/``cot``/``rag``:
one-shot model baselines (need a model)."""


@dataclass(frozen=True, slots=True)
class SuiteTask:
    name: str
    file: Path
    function: str
    family: str
    split: str = ""
    """The corpus split the manifest puts the task on (``train``, ``test``), if any."""
    timing: TimingMode | None = None
    """What the search times and the answer must beat, when not the task's own mode:
    ``kernel_only`` ranks candidates by their kernels (the data already on the GPU), which
    end-to-end timing of a copy-dominated task cannot tell apart."""

    def task(self) -> Task:
        """The task extracted from the file's function (raises the extractor's errors)."""
        task = extract_task(
            read_source(self.file).text,
            language_for_path(self.file),
            function=self.function,
            origin=str(self.file),
        )
        return task if self.timing is None else replace(task, timing_mode=self.timing)


def load_manifest(path: Path) -> list[SuiteTask]:
    """``[[task]]`` tables with ``file`` (relative to the manifest), ``function``, ``family``
    and, in a generated corpus, ``split``."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
        return [
            SuiteTask(
                name=str(entry.get("name") or Path(entry["file"]).stem),
                file=path.parent / entry["file"],
                function=str(entry["function"]),
                family=str(entry.get("family", "")),
                split=str(entry.get("split", "")),
            )
            for entry in document.get("task", [])
        ]
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as err:
        raise ConfigError(f"{path}: not a task manifest ({err!r})") from err


def _search_for(method: str, optimizer: Optimizer) -> tuple[SearchFn, ProposeFn | None]:
    if method == "mcgs":
        return run_search, None
    if method == "walks":
        return run_random_walks, None
    model = optimizer.model()
    if model is None:
        raise ConfigError(f"the {method!r} baseline prompts a model: run it with a model")
    return run_sampling, OneShotProposer(model, optimizer.graph, style=method)


def _record(suite_task: SuiteTask, method: str, outcome: OptimizeOutcome) -> dict[str, Any]:
    answer = outcome.faster
    best = outcome.search.best
    timing = best.result.timing if best else None
    statuses: dict[str, int] = {}
    for candidate in outcome.search.candidates:
        statuses[candidate.result.status] = statuses.get(candidate.result.status, 0) + 1
    return {
        "task": suite_task.name,
        "family": suite_task.family,
        "method": method,
        "passed": answer is not None,
        "speedup": answer.result.speedup if answer else None,
        "best_verified_speedup": best.result.speedup if best else None,
        "timing_mode": answer.result.timing.mode if answer and answer.result.timing else None,
        "reference_ms": timing.reference_ms if timing else None,
        "best_ms": timing.candidate_ms if timing else None,
        "copy_floor_ms": timing.copy_floor_ms if timing else None,
        "techniques": [step.technique for step in outcome.search.path],
        "producers": [step.producer for step in outcome.search.path],
        "candidates": len(outcome.search.candidates),
        "best_by_candidate": _best_by_candidate(outcome),
        "statuses": statuses,
        "no_code": _no_code_reasons(outcome.search.candidates),
        "relabelled": sum(1 for c in outcome.search.candidates if c.asked),
        "stop_reason": outcome.search.stop_reason,
        "wall_s": outcome.wall.as_dict(),
        "failure": None if answer else outcome.failure_summary()[:300],
        "code": answer.code if answer else None,
        "kernel_ms": _kernel_ms(answer.result) if answer else None,
    }


_PARTICULARS = re.compile(r"'[^']*'|`[^`]*`|\b\d+\b")


def _no_code_reasons(candidates: Iterable[Candidate]) -> dict[str, int]:
    """Why proposals had no code, counted by reason with its particulars (names, numbers)
    blanked: the largest share of a model's candidates (130 of 300 in the H200 model-only
    runs), which the statuses alone could not break down."""
    reasons: Counter[str] = Counter()
    for candidate in candidates:
        if candidate.result.status is Status.NO_CODE:
            first = (candidate.result.feedback.strip().splitlines() or ["(none given)"])[0]
            reasons[_PARTICULARS.sub("…", first)[:200]] += 1
    return dict(reasons.most_common())


def _kernel_ms(result: Evaluation) -> float | None:
    """The answer's kernel-only time, where the verifier could time its launches (else
    ``None``): ``benchmarks/vs_library.py`` sets its own measurement beside it."""
    return next((t.candidate_ms for t in result.timings if t.mode is TimingMode.KERNEL_ONLY), None)


def _best_by_candidate(outcome: OptimizeOutcome) -> list[float | None]:
    """The best verified speedup after each candidate with code, in the order tried: how
    fast a method gets there, not only where it ends (refusals and empty answers cost no
    verifier time and are left out)."""
    best: float | None = None
    curve = []
    for candidate in outcome.search.candidates:
        if not candidate.code:
            continue
        speedup = candidate.result.speedup if candidate.result.verified else None
        if speedup is not None and (best is None or speedup > best):
            best = speedup
        curve.append(None if best is None else round(best, 4))
    return curve


_UNCOMPILED = frozenset({"no_code", "gate_rejected", "compile_error"})
"""Statuses of a candidate that never became a program; any other status compiled."""


def summarise(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """pass@1 (a verified, faster answer) and speedup@1 statistics per method, how many
    tasks got any candidate compiled (on a machine without a GPU, the most it can say), and
    how many are copy-bound: their arguments take longer to copy over the bus than the
    sequential code takes to run, so no per-call CUDA version can pass them here.

    Two geomeans: of the passed answers' speedups, and over every task with 1.0 where no
    faster answer came (the user keeps the sequential code). Only the second compares
    methods that pass different tasks: one that passes three easy tasks fast has the higher
    geomean of passed speedups than one that passes those three and ten harder ones less
    fast, yet gives its user less."""
    by_method: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_method.setdefault(record["method"], []).append(record)
    summary = {}
    for method, rows in by_method.items():
        speedups = [row["speedup"] for row in rows if row["passed"]]
        compiled = [row for row in rows if set(row.get("statuses", {})) - _UNCOMPILED]
        summary[method] = {
            "tasks": len(rows),
            "compiled": len(compiled),
            "copy_bound": sum(
                1 for row in rows if copy_bound(row.get("copy_floor_ms"), row.get("reference_ms"))
            ),
            "passed": len(speedups),
            "pass_at_1": round(len(speedups) / len(rows), 4),
            "geomean_speedup_passed": _geomean(speedups) if speedups else None,
            "median_speedup_passed": round(statistics.median(speedups), 3) if speedups else None,
            "geomean_speedup_all": _geomean(
                row["speedup"] if row["passed"] else 1.0 for row in rows
            ),
            "techniques_passed": sorted(
                {t for row in rows if row["passed"] for t in applied_techniques(row)}
            ),
        }
    return summary


def _geomean(values: Iterable[float]) -> float:
    return round(math.exp(statistics.fmean(math.log(v) for v in values)), 3)


def applied_techniques(record: dict[str, Any]) -> list[str]:
    """The techniques a run's answer applied, step by step: a rewriter's own technique where
    it answered another step (the reduction rewriter answers ``parallelization`` with a
    warp-shuffle reduction), else the step's."""
    techniques: list[str] = record.get("techniques", [])
    producers: list[str] = record.get("producers") or [""] * len(techniques)
    return [
        producer.removeprefix("rewriter:") if producer.startswith("rewriter:") else technique
        for technique, producer in zip(techniques, producers, strict=True)
    ]


def current_commit() -> str:
    """``REGRAPHT_COMMIT`` if set (the GPU machine's copy has stale git metadata), else
    the checkout's HEAD."""
    if commit := os.environ.get("REGRAPHT_COMMIT"):
        return commit
    probe = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    return probe.stdout.strip() or "unknown"


def uncommitted() -> list[str] | None:
    """Tracked files that differ from HEAD: a result is that of ``current_commit`` only
    without them (``None`` outside a git checkout, where it cannot be told)."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=False,
    )
    if status.returncode != 0:
        return None
    return sorted(line[3:] for line in status.stdout.splitlines())


def run_suite(
    tasks: list[SuiteTask],
    methods: list[str],
    optimizer: Optimizer,
    *,
    out: Path,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    resume: dict[str, Any] | None = None,
    timing: TimingMode | None = None,
    header: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run every task with every method; ``out`` is rewritten after each run.

    ``resume``, a document an earlier run of the same settings wrote (cut short by a time
    limit, or by the GPU machine going away), keeps its runs and does only the rest.
    ``timing``, when given, replaces every task's own timing mode (see ``SuiteTask.timing``).
    ``header`` adds to or replaces the document's top-level fields: a study that drives the
    runner (the defaults sweep) records its own command and settings.
    """
    tasks = [replace(t, timing=timing) for t in tasks] if timing else tasks
    document = _document(methods, optimizer, timing) | (header or {})
    if resume is not None:
        _check_resumable(resume, document, out)
        sources = {t.name: _source_sha256(t.file) for t in tasks}
        document["runs"] = [run for run in resume["runs"] if _same_source(run, sources)]
        document["started"] = resume.get("started", document["started"])
        document["commits"] = _all_of("commit", resume, document)
        document["engines"] = _all_of("engine", resume, document)
        earlier = resume["config"]["methods"]
        document["config"]["methods"] = [*earlier, *(m for m in methods if m not in earlier)]
    done = {(run["task"], run["method"]) for run in document["runs"]}
    for suite_task in tasks:
        for method in methods:
            if (suite_task.name, method) in done:
                continue
            record = _run_one(suite_task, method, optimizer)
            record["commit"] = document["commit"]  # a resumed file's runs span commits
            record["source_sha256"] = _source_sha256(suite_task.file)
            document["runs"].append(record)
            if optimizer.loaded_model is not None:  # where it answered is part of a result
                document["model_runs_on"] = runs_on(optimizer.loaded_model)
            document["summary"] = summarise(document["runs"])
            atomic_write(out, (json.dumps(document, indent=1) + "\n").encode("utf-8"))
            if on_done is not None:
                on_done(record)
    document["summary"] = summarise(document["runs"])
    return document


def shard(tasks: list[SuiteTask], part: int, parts: int) -> list[SuiteTask]:
    """Part ``part`` (from 1) of ``parts``: every ``parts``-th task, so that on a machine of
    several GPUs each GPU runs its own part of the suite at once, and each part takes a
    share of every family (manifests list a family's tasks together)."""
    if not 1 <= part <= parts:
        raise ConfigError(f"shard {part}/{parts}: the part must be from 1 to {parts}")
    return tasks[part - 1 :: parts]


def merge_results(parts: list[dict[str, Any]], names: list[str], command: str) -> dict[str, Any]:
    """One results document from the parts of one suite run on several GPUs at once (each
    part a ``--shard``): the parts must share settings, code and kind of GPU, and no task
    may have run twice with one method. Each part's command, host and start stay recorded;
    ``command`` becomes the merge's own, ``command``."""
    if not parts:
        raise ConfigError("nothing to merge")
    first, *rest = parts
    merged = dict(first)
    merged["runs"] = list(first["runs"])
    methods = list(first["config"]["methods"])
    seen = {(run["task"], run["method"]): names[0] for run in first["runs"]}
    for name, part in zip(names[1:], rest, strict=True):
        _check_resumable(part, first, Path(name))
        methods += [m for m in part["config"]["methods"] if m not in methods]
        for run in part["runs"]:
            key = (run["task"], run["method"])
            if key in seen:
                raise ConfigError(f"{key[0]} ran with {key[1]} in both {seen[key]} and {name}")
            seen[key] = name
            merged["runs"].append(run)
    merged["config"] = {**first["config"], "methods": methods}
    merged["command"] = command
    merged["commits"] = _all_of("commit", *parts)
    merged["engines"] = _all_of("engine", *parts)
    merged["parts"] = [
        {key: part.get(key) for key in ("command", "host", "started", "commit", "engine")}
        for part in parts
    ]
    merged["summary"] = summarise(merged["runs"])
    return merged


def merge_arms(
    arms: list[str],
    parts: list[dict[str, Any]],
    names: list[str],
    command: str,
    *,
    setting: str = "graph",
) -> dict[str, Any]:
    """One results document from the runs of one method under different values of one
    ``config`` setting (another graph; for the defaults sweep, another depth cap), each file
    an arm (``arms``, one name per file) whose runs become the method ``arm``, so that
    ``regrapht bench report`` sets the first arm against the others, task by task and per
    tier. The files must agree on all else, as parts of one run do; ``config[setting]``
    then maps each arm to its value."""
    if len(arms) != len(parts) or len(set(arms)) != len(arms):
        raise ConfigError(f"one distinct arm name per file: {len(parts)} files, arms {arms}")
    renamed = []
    for arm, name, part in zip(arms, names, parts, strict=True):
        methods = part.get("config", {}).get("methods")
        if not isinstance(methods, list) or len(methods) != 1:
            raise ConfigError(f"{name}: an arm is one method's runs, not {methods!r}")
        renamed.append(
            part
            | {
                "config": {**part["config"], setting: None, "methods": [arm]},
                "runs": [run | {"method": arm} for run in part["runs"]],
            }
        )
    merged = merge_results(renamed, names, command)
    merged["config"][setting] = {
        arm: part["config"].get(setting) for arm, part in zip(arms, parts, strict=True)
    }
    return merged


def _all_of(key: str, *documents: dict[str, Any]) -> list[str]:
    """Every commit (``key`` "commit") or engine the documents' runs were made with, in
    order: one engine, or engines it continues (``fingerprint.CONTINUED_ENGINES``)."""
    seen: dict[str, None] = {}
    for document in documents:
        for value in document.get(f"{key}s") or [document.get(key)]:
            seen.setdefault(str(value), None)
    return list(seen)


def _check_resumable(earlier: dict[str, Any], now: dict[str, Any], out: Path) -> None:
    """Runs of one file must differ only by method: same settings, engine and GPU. Results
    without an engine fingerprint (older than it) must share the commit."""
    config = earlier.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("methods"), list):
        raise ConfigError(f"{out} has no settings to resume from")
    mismatched = [
        (key, theirs, ours)
        for key, theirs, ours in (
            *(
                (f"config.{k}", config.get(k), v)
                for k, v in now["config"].items()
                if k != "methods"
            ),
            (
                ("engine", counted_as(earlier["engine"]), counted_as(now.get("engine")))
                if earlier.get("engine")
                else ("commit", earlier.get("commit"), now["commit"])
            ),
            ("device", earlier.get("device"), now["device"]),
        )
        if theirs != ours
    ]
    if mismatched:
        key, theirs, ours = mismatched[0]
        raise ConfigError(
            f"{out} was written with {key} = {theirs!r}, not {ours!r}: "
            "resume with the same settings, or write a new file"
        )


def _same_source(run: dict[str, Any], sources: dict[str, str | None]) -> bool:
    """Whether a resumed run compiled the task file as it is now: a run of an edited task
    is done again, or its methods would be compared on two programs. Runs older than the
    record, and of tasks not asked for now, are kept."""
    recorded = run.get("source_sha256")
    return recorded is None or run["task"] not in sources or recorded == sources[run["task"]]


def _source_sha256(path: Path) -> str | None:
    """The task file as run: an engine fingerprint says the code is the same, this that the
    task is."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _run_one(suite_task: SuiteTask, method: str, optimizer: Optimizer) -> dict[str, Any]:
    lock = optimizer.verifier.gpu_lock
    waited, held = lock.waited_s, lock.held_s
    try:
        task = suite_task.task()
        search_fn, propose_fn = _search_for(method, optimizer)
        outcome = optimizer.run(task, search_fn=search_fn, propose_fn=propose_fn)
        record = _record(suite_task, method, outcome)
        # The GPU's turns this search waited for and held (runs and model answers): with
        # several processes on one GPU, what its searches were waiting for.
        record["gpu_s"] = {
            "waited": round(lock.waited_s - waited, 3),
            "held": round(lock.held_s - held, 3),
        }
        return record
    except Exception as err:  # one search's bug must not end the other searches of a run
        expected = isinstance(err, (OSError, ReGraphTError))
        if not expected:
            _log.exception("%s with %s: internal error", suite_task.name, method)
        return {
            "task": suite_task.name,
            "family": suite_task.family,
            "method": method,
            "passed": False,
            "speedup": None,
            "failure": ("" if expected else "internal error: ")
            + f"{type(err).__name__}: {err}"[:300],
            "code": None,
            "kernel_ms": None,
        }


def _document(
    methods: list[str], optimizer: Optimizer, timing: TimingMode | None
) -> dict[str, Any]:
    device = optimizer.verifier.device
    settings = optimizer.settings
    return {
        "benchmark": "task suite: pass@1 and speedup@1 per method",
        "device": device.name if device else None,
        "driver": device.driver if device else None,
        "nvcc": device.nvcc if device else None,
        "arch": device.arch if device else None,
        "commit": current_commit(),
        "engine": engine_fingerprint(),
        "command": " ".join(["regrapht", *sys.argv[1:]]),
        "host": platform.node(),
        "cpus": os.cpu_count(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "config": {
            "budget": settings.search.budget,
            "depth_cap": settings.search.depth_cap,
            "time_limit_s": settings.search.time_limit_s,
            "model": optimizer.model_named,
            "rewriters": settings.rewriters,
            "seed": settings.seed,
            "timing": str(timing) if timing else "task",
            "graph": {
                "trajectories": optimizer.graph_build.trajectories,
                "source_digest": optimizer.graph_build.source_digest,
            },
            "methods": methods,
        },
        "runs": [],
    }
