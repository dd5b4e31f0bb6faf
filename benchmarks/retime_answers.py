"""Two `graph mine` arms' answers timed again, alternately, in one verifier session: a paired
comparison of two graphs without the run-to-run spread.

Two searches of one task are otherwise compared by what their own runs measured, and two
runs of the very same search differ by 20% in the geomean of passed speedups and by 3 in
pass@1 on the test split (``gpu-h100-graph-compare-test-d2b4e8d-repeat.json``), and each
run timed the sequential reference in its own session, on a machine busy in its own way. Here
each task's reference is timed once and both arms' answers against it, in rounds that
alternate which arm goes first, so the reference and the session's load drop out of the
ratio of the two programs' speedups.
Tasks whose arms answered with the same code need no timing (their ratio is 1).

Two phases, because the arms' folders hold more than the answers and the timing needs the
GPU::

    python3 -m benchmarks.retime_answers collect BASE OTHER --names seed mined \\
        [--only TASK ...] > ANSWERS.json
    python3 -m benchmarks.retime_answers time MANIFEST ANSWERS.json [--rounds 3]

``collect`` takes two ``graph mine --out`` folders and keeps each task's answer, the fastest
step of its trajectories, with where and how the arms measured it (their records' device,
commit and commands). Either may instead be a ``regrapht bench`` JSON: its answers are its
passed runs' code; a file of several methods (``bench merge --arm``, both graphs in one)
gives each arm the runs of the method named as the arm. ``time`` times both arms' answers
kernel-only, as the mining and issue 20's bench runs did.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.provenance import device_prefix, provenance, write_result
from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.evaluation import Evaluation
from regrapht_core.contracts.task import Task, TimingMode
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.pipeline import Verifier
from regrapht_core.verify.pool import Verifies, build_workers

__all__ = ["NOISE", "answers", "collect", "main", "prebuild", "retime"]

NOISE = 1.05
"""Paired ratios within this factor either way count as ties (as in compare_graphs.py)."""

Answer = tuple[str, float]
"""An answer's code and the speedup its own run measured."""


TimeFn = Callable[[Task, str], float | None]
"""Verify ``code`` for the task and return its speedup (``None`` if it did not verify)."""


def answers(folder: Path, arm: str | None = None) -> dict[str, Answer]:
    """Each task's fastest verified step over its trajectory files (``task.json``,
    ``task.path2.json``, ...) in ``folder/trajectories``: what the search answered. For a
    bench JSON, its passed runs' answers (of method ``arm`` where it has several)."""
    if folder.is_file():
        return _bench_answers(json.loads(folder.read_text(encoding="utf-8")), arm)
    best: dict[str, Answer] = {}
    for path in sorted((folder / "trajectories").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        task = str(document["task"]).split(".path")[0]
        for step in document["steps"]:
            speedup = step.get("speedup")
            if speedup is not None and (task not in best or speedup > best[task][1]):
                best[task] = (step["code"], float(speedup))
    return best


def _bench_answers(document: Mapping[str, Any], arm: str | None) -> dict[str, Answer]:
    runs = document["runs"]
    if len({run["method"] for run in runs}) > 1:
        runs = [run for run in runs if run["method"] == arm]
        if not runs:
            raise SystemExit(f"no runs of method {arm!r} in the bench file")
    return {
        run["task"]: (run["code"], float(run["speedup"]))
        for run in runs
        if run.get("passed") and run.get("code")
    }


def retime(
    tasks: Mapping[str, Task],
    arms: tuple[Mapping[str, Answer], Mapping[str, Answer]],
    time_fn: TimeFn,
    *,
    rounds: int,
    on_task: Callable[[dict[str, Any]], None] = lambda row: None,
) -> list[dict[str, Any]]:
    """Per task (in ``tasks``' order) both arms' speedups over ``rounds`` rounds, the first
    arm first in odd rounds and second in even ones, and the ratio of their medians (other
    over base). A task one arm did not answer keeps that arm at 1.0 (its user keeps the
    sequential code); one both arms answered with the same code is not timed."""
    rows = []
    for name, task in tasks.items():
        codes = [arm.get(name) for arm in arms]
        then = [None if a is None else round(a[1], 4) for a in codes]
        row: dict[str, Any] = {"task": name, "measured_then": then}
        if codes[0] is None and codes[1] is None:
            continue
        if codes[0] is not None and codes[1] is not None and codes[0][0] == codes[1][0]:
            row.update(same_code=True, ratio=1.0)
        else:
            timed: list[list[float | None]] = [[], []]
            for r in range(rounds):
                order = (0, 1) if r % 2 == 0 else (1, 0)
                for i in order:
                    answer = codes[i]
                    timed[i].append(1.0 if answer is None else time_fn(task, answer[0]))
            row.update(same_code=False, speedups=timed, ratio=_ratio(timed))
        rows.append(row)
        on_task(row)
    return rows


def _ratio(timed: Sequence[Sequence[float | None]]) -> float | None:
    """Other over base of the median speedups; ``None`` if an arm never verified again."""
    medians = []
    for speedups in timed:
        verified = [s for s in speedups if s is not None]
        if not verified:
            return None
        medians.append(statistics.median(verified))
    return medians[1] / medians[0]


def summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None and not r["same_code"]]
    geomean = math.exp(statistics.fmean(math.log(r) for r in ratios)) if ratios else None
    return {
        "tasks": len(rows),
        "same_code": sum(1 for r in rows if r["same_code"]),
        "timed": len(ratios),
        "not_verified_again": sum(1 for r in rows if r["ratio"] is None),
        "geomean_ratio_timed": None if geomean is None else round(geomean, 4),
        "better": sum(1 for r in ratios if r > NOISE),
        "worse": sum(1 for r in ratios if r < 1 / NOISE),
        "within_5_percent": sum(1 for r in ratios if 1 / NOISE <= r <= NOISE),
    }


def collect(
    folders: tuple[Path, Path], names: tuple[str, str], only: Sequence[str] | None
) -> dict[str, Any]:
    """Both arms' answers (of the tasks ``only`` names, else all) with their provenance."""
    arms = {name: answers(folder, name) for name, folder in zip(names, folders, strict=True)}
    known = set(arms[names[0]]) | set(arms[names[1]])
    unknown = sorted(set(only or ()) - known)
    if unknown:
        raise SystemExit(f"no answer in either arm for: {', '.join(unknown)}")
    records = [
        json.loads(path.read_text(encoding="utf-8"))
        for folder in folders
        for path in ([folder] if folder.is_file() else sorted((folder / "records").glob("*.json")))
    ]

    def recorded(key: str) -> list[str]:
        return sorted({str(r[key]) for r in records if r.get(key) is not None})

    return {
        "benchmark": "two graph-mine arms' answers, each task's fastest verified step",
        "device": recorded("device"),
        "driver": recorded("driver"),
        "nvcc": recorded("nvcc"),
        "commit": recorded("commit"),
        "commands": recorded("command"),
        "timing": recorded("timing"),
        "arms": {
            name: {
                task: {"code": code, "speedup": speedup}
                for task, (code, speedup) in sorted(answered.items())
                if only is None or task in only
            }
            for name, answered in arms.items()
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    phases = parser.add_subparsers(dest="phase", required=True)
    gather = phases.add_parser("collect", help="both arms' answers, as JSON on stdout")
    gather.add_argument(
        "base", type=Path, help="`graph mine --out` (or a bench JSON) of the graph compared to"
    )
    gather.add_argument(
        "other", type=Path, help="`graph mine --out` (or a bench JSON) of the graph compared"
    )
    gather.add_argument("--names", nargs=2, default=("base", "other"), metavar=("BASE", "OTHER"))
    gather.add_argument("--only", nargs="+", default=None, metavar="TASK")
    timing = phases.add_parser("time", help="time both arms' answers again (GPU)")
    timing.add_argument("manifest", type=Path)
    timing.add_argument("answers", type=Path, help="the output of `collect`")
    timing.add_argument("--rounds", type=int, default=3)
    timing.add_argument(
        "--gpu",
        type=int,
        default=0,
        help="the GPU to time on (one process per GPU, each "
        "with its own answers file: the result is named after it)",
    )
    args = parser.parse_args(argv)
    command = "python3 -m benchmarks.retime_answers " + " ".join(argv or sys.argv[1:])
    if args.phase == "collect":
        document = collect((args.base, args.other), tuple(args.names), args.only)
        json.dump({**document, "command": command}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    return time_answers(args.manifest, args.answers, args.rounds, command, gpu=args.gpu)


def prebuild(
    verifier: Verifies, jobs: Sequence[tuple[Task, str]], *, workers: int | None = None
) -> list[bool]:
    """Compile every ``(task, code)`` at once (``verify.pool.build_workers``), for the
    object cache: the rounds then verify one answer at a time, each build a cache hit, so
    the GPU does not wait on nvcc task after task. Whether each built (the rounds report
    the rest)."""

    def build(job: tuple[Task, str]) -> bool:
        built = verifier.build(*job)
        if isinstance(built, Evaluation):
            return False
        shutil.rmtree(built.work, ignore_errors=True)
        return True

    count = build_workers(workers)
    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="retime-build") as pool:
        return list(pool.map(build, jobs))


def time_answers(
    manifest: Path, answers_file: Path, rounds: int, command: str, *, gpu: int = 0
) -> int:
    collected = json.loads(answers_file.read_text(encoding="utf-8"))
    names = tuple(collected["arms"])
    arms = tuple(
        {task: (a["code"], float(a["speedup"])) for task, a in collected["arms"][name].items()}
        for name in names
    )
    suite = {t.name: t for t in load_manifest(manifest)}
    missing = sorted((set(arms[0]) | set(arms[1])) - set(suite))
    if missing:
        raise SystemExit(f"not tasks of {manifest}: {', '.join(missing)}")
    wanted = [n for n in suite if n in arms[0] or n in arms[1]]
    tasks = {n: replace(suite[n], timing=TimingMode.KERNEL_ONLY).task() for n in wanted}
    with tempfile.TemporaryDirectory(prefix="regrapht-retime-") as cache:
        verifier = Verifier(VerifyConfig(cache_dir=Path(cache), gpu_index=gpu))
        if verifier.device is None:
            sys.stderr.write("retime_answers needs a GPU: nothing can be timed here\n")
            return 2
        record: dict[str, Any] = {
            "benchmark": f"{names[1]} against {names[0]}: both arms' answers timed again, "
            "alternately, in one verifier session (kernel-only)",
            **provenance(verifier, command),
            "answers": {"file": str(answers_file), "commit": collected["commit"]},
            "rounds": rounds,
            "tasks": [],
        }

        def time_fn(task: Task, code: str) -> float | None:
            return verifier.verify(task, code).speedup

        def on_task(row: dict[str, Any]) -> None:
            record["tasks"].append(row)
            record["summary"] = summary(record["tasks"])
            arms_named = "-".join(names)
            prefix = device_prefix(record["device"])
            name = f"{prefix}-retime-{arms_named}-{record['commit'][:7]}-{answers_file.stem}.json"
            write_result(name, record)

        jobs = [(tasks[n], a[n][0]) for n in wanted for a in arms if n in a]
        prebuild(verifier, jobs)
        retime(tasks, (arms[0], arms[1]), time_fn, rounds=rounds, on_task=on_task)
    json.dump(record.get("summary", {}), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
