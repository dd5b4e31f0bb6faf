"""``regrapht bench MANIFEST``: the task suite with each method, results as JSON;
``regrapht bench report RESULTS``: those results as a Markdown report with plots; and
``regrapht graph mine MANIFEST``: the same search over a corpus, keeping what verified as
trajectories (registered under ``graph``, where its output goes, by the main command)."""

from __future__ import annotations

import json
import signal
import sys
import time
import tomllib
from dataclasses import replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import Progress

from regrapht_core.bench.mine import MINED, Mined, mine, task_miner, verified_candidates
from regrapht_core.bench.mine_ray import Cluster, mine_on_ray
from regrapht_core.bench.runner import (
    METHODS,
    SuiteTask,
    current_commit,
    load_manifest,
    merge_arms,
    merge_results,
    run_suite,
    shard,
)
from regrapht_core.contracts.task import TimingMode
from regrapht_core.errors import ConfigError, TaskError
from regrapht_core.files import atomic_write, read_regular
from regrapht_core.optimize.options import job_options, require_nvcc
from regrapht_core.optimize.session import JobSettings, Optimizer

__all__ = ["bench", "mine_command"]


_timing_option = click.option(
    "--timing",
    type=click.Choice([str(m) for m in TimingMode]),
    help="Time every task this way instead of its own mode: kernel_only ranks candidates "
    "by their kernels, as if the data lived on the GPU (default: each task's mode).",
)


_split_option = click.option("--split", help="Only the tasks with this split (train, test).")


class _RunByDefault(click.Group):
    """``regrapht bench MANIFEST ...`` stays the way to run the suite: anything that is not
    a subcommand's name goes to ``run``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_RunByDefault)
def bench() -> None:
    """Measure the search and its baselines on the task suite, and report the results."""


@bench.command("run")
@click.argument("manifest", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--method",
    "methods",
    multiple=True,
    type=click.Choice(METHODS),
    default=("mcgs",),
    show_default=True,
)
@click.option("--only", multiple=True, help="Run only these task names (repeatable).")
@_split_option
@click.option(
    "--shard",
    "part",
    metavar="I/N",
    callback=lambda _ctx, _param, value: _shard_spec(value),
    help="Run only part I of N (every N-th task): one part per GPU, then `bench merge`.",
)
@click.option("--json", "out", type=click.Path(path_type=Path, dir_okay=False), required=True)
@click.option(
    "--resume",
    is_flag=True,
    help="Keep the runs already in --json (same settings, commit and GPU) and do the rest.",
)
@_timing_option
@job_options(budget=8)
def run(
    *,
    manifest: Path,
    methods: tuple[str, ...],
    only: tuple[str, ...],
    split: str | None,
    part: tuple[int, int] | None,
    job: JobSettings,
    out: Path,
    resume: bool,
    timing: str | None,
) -> None:
    """Measure pass@1 and speedup@1 of each method on the suite in MANIFEST."""
    console = Console(stderr=True)
    require_nvcc(job)
    tasks = _selected(manifest, split, only)
    tasks = shard(tasks, *part) if part else tasks
    earlier = _read_results(out) if resume and out.exists() else None
    optimizer = Optimizer(job)
    if not optimizer.gpu:
        console.print("[yellow]No GPU: nothing can pass; results are compile-level only.[/]")
    with Progress(console=console) as bar:
        row = bar.add_task("tasks", total=len(tasks) * len(methods))

        def done(record: dict[str, Any]) -> None:
            speedup = record.get("speedup")
            shown = f"{speedup:.2f}x" if speedup else record.get("failure", "")[:60]
            bar.console.print(f"{record['task']:<28} {record['method']:<6} {shown}")
            bar.advance(row)

        document = run_suite(
            tasks,
            list(methods),
            optimizer,
            out=out,
            on_done=done,
            resume=earlier,
            timing=TimingMode(timing) if timing else None,
        )
    for method, stats in document["summary"].items():
        console.print(f"{method}: {stats}")
    console.print(f"wrote {out}")


@bench.command("merge")
@click.argument(
    "parts", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True, dir_okay=False)
)
@click.option("--json", "out", type=click.Path(path_type=Path, dir_okay=False), required=True)
@click.option(
    "--arm",
    "arms",
    multiple=True,
    help="One per file, in order: each file is one method's runs with another graph "
    "(--snapshot), named ARM in the merged results, so the report compares the graphs.",
)
def merge(*, parts: tuple[Path, ...], out: Path, arms: tuple[str, ...]) -> None:
    """Join the results of one suite run split with --shard over several GPUs, or, with
    --arm, the runs of one method with different graphs."""
    names = [str(p) for p in parts]
    given = [f"--arm {arm}" for arm in arms]
    command = " ".join(["regrapht bench merge", *names, *given, "--json", str(out)])
    documents = [_read_results(p) for p in parts]
    document = (
        merge_arms(list(arms), documents, names, command)
        if arms
        else merge_results(documents, names, command)
    )
    atomic_write(out, (json.dumps(document, indent=1) + "\n").encode("utf-8"))
    console = Console(stderr=True)
    for method, stats in document["summary"].items():
        console.print(f"{method}: {stats}")
    console.print(f"wrote {out}")


def _shard_spec(value: str | None) -> tuple[int, int] | None:
    """``I/N`` as two numbers, 1 <= I <= N."""
    if value is None:
        return None
    part, _, parts = value.partition("/")
    if not (part.isdigit() and parts.isdigit() and 1 <= int(part) <= int(parts)):
        raise click.BadParameter(f"{value!r} is not I/N with 1 <= I <= N (as in 2/4)")
    return int(part), int(parts)


@bench.command("report")
@click.argument("results", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder for report.md and its plots (default: benchmarks/results/<date>-<device>/).",
)
def report(*, results: Path, out_dir: Path | None) -> None:
    """Write RESULTS (a `regrapht bench` JSON) as a Markdown table with plots."""
    try:  # matplotlib is the report's alone: an optional dependency, loaded when asked for
        from regrapht_core.bench.report import default_report_dir, write_report
    except ImportError as err:
        raise ConfigError(
            f"the report needs matplotlib ({err}): pip install 'regrapht[report]'"
        ) from err
    document = _read_results(results)
    written = write_report(document, out_dir or default_report_dir(document, RESULTS_ROOT))
    Console(stderr=True).print(f"wrote {written}")


RESULTS_ROOT = Path("benchmarks") / "results"
_MAX_INPUT = 256 << 20


def _read(path: Path, what: str) -> str:
    """An input file's text: a regular file, UTF-8 (as TOML and JSON are)."""
    try:
        data = read_regular(path, _MAX_INPUT)
    except OSError as err:
        raise ConfigError(f"cannot read the {what} in {path}: {err.strerror or err}") from err
    except TaskError as err:
        raise ConfigError(f"cannot read the {what} in {err}") from err
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"cannot read the {what} in {path}: not UTF-8 (byte {err.start})"
        ) from None


def _selected(manifest: Path, split: str | None, only: tuple[str, ...]) -> list[SuiteTask]:
    """The manifest's tasks of ``split`` (all if ``None``) named by ``only`` (all if empty),
    once every name and the split are the manifest's: a misspelt one would otherwise just
    shrink the run, silently."""
    tasks = _load_manifest(manifest)
    unknown = sorted(set(only) - {t.name for t in tasks})
    if unknown:
        raise ConfigError(f"{manifest}: no task named {', '.join(map(repr, unknown))}")
    if split is not None and not any(t.split == split for t in tasks):
        raise ConfigError(f"{manifest}: no task has split = {split!r}")
    return [
        t for t in tasks if (split is None or t.split == split) and (not only or t.name in only)
    ]


def _load_manifest(path: Path) -> list[SuiteTask]:
    """The manifest's tasks, its shape checked first: every defect is one line naming it."""
    try:
        document = tomllib.loads(_read(path, "task manifest"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not a task manifest (TOML: {err})") from None
    entries = document.get("task", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{path}: not a task manifest ('task' must be [[task]] tables)")
    for number, entry in enumerate(entries, start=1):
        for key in ("file", "function"):
            value = entry.get(key)
            if not isinstance(value, str) or not value.strip() or "\0" in value:
                raise ConfigError(
                    f"{path}: task {number}: {key!r} must be a non-empty string, not {value!r:.60}"
                )
    return load_manifest(path)


def _read_results(path: Path) -> dict[str, Any]:
    text = _read(path, "results")
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        problem = err if isinstance(err, json.JSONDecodeError) else "nested too deeply"
        raise ConfigError(f"cannot read the results in {path}: {problem}") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{path} is not a `regrapht bench` results file")
    runs = document.get("runs")
    if not isinstance(runs, list) or not all(
        isinstance(run, dict) and {"task", "method", "passed"} <= run.keys() for run in runs
    ):
        raise ConfigError(
            f"{path} is not a `regrapht bench` results file (runs with task, method and passed)"
        )
    return document


@click.command("mine")
@click.argument("manifest", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help=f"Folder for the trajectories ({MINED}/), each task's record (records/) and each "
    "run's summary (runs/).",
)
@_split_option
@click.option("--only", multiple=True, help="Mine only these task names (repeatable).")
@click.option("--limit", type=click.IntRange(1), help="Mine at most this many tasks.")
@click.option(
    "--ray",
    "ray_address",
    is_flag=False,
    flag_value="local",
    metavar="[ADDRESS]",
    help="Spread the tasks over every GPU with Ray: alone, a cluster started on this "
    "machine; with an ADDRESS (auto, ray://host:10001), that running cluster.",
)
@click.option(
    "--workers-per-gpu",
    type=click.IntRange(1),
    default=1,
    show_default=True,
    help="With --ray: workers sharing each GPU (they compile at once; one times at a time).",
)
@click.option(
    "--explore",
    is_flag=True,
    help="Let the search try, after the first step, every technique a rewriter implements, "
    "not only the graph's edges: what verifies faster adds edges to a graph built from it.",
)
@_timing_option
@job_options(budget=8)
def mine_command(
    *,
    manifest: Path,
    out: Path,
    split: str | None,
    only: tuple[str, ...],
    limit: int | None,
    ray_address: str | None,
    workers_per_gpu: int,
    explore: bool,
    timing: str | None,
    job: JobSettings,
) -> None:
    """Search every task of MANIFEST on the GPU (or, with --ray, on every GPU) and keep
    each verified, faster path as a trajectory; `regrapht graph build --trajectories
    OUT/trajectories` builds a snapshot from them. Resumes: tasks already mined with these
    settings are skipped. Each task's search ends within --time-limit seconds, 900 by
    default, so no task can hold a worker for good."""
    console = Console(stderr=True)
    require_nvcc(job)
    job = replace(_bounded(job), explore=explore)
    if workers_per_gpu > 1 and ray_address is None:
        raise ConfigError("--workers-per-gpu needs --ray")
    mode = TimingMode(timing) if timing else None
    tasks = [replace(t, timing=mode) for t in _selected(manifest, split, only)][:limit]
    began, clock = datetime.now(UTC), time.monotonic()
    placed: dict[str, int] = {}  # set once mining starts: a refused run writes no summary
    finished: list[Mined] = []
    # SIGTERM (a scheduler's or `timeout`'s stop) ends the run as Ctrl-C does: the workers
    # are stopped, the Ray cluster shut down and the summary written.
    before = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with Progress(console=console) as bar:
            row = bar.add_task("mining", total=len(tasks))

            def done(mined: Mined | None, task: SuiteTask) -> None:
                said = "already mined" if mined is None else f"{len(mined.trajectories)} paths"
                bar.console.print(f"{task.name:<44} {said}", markup=False, highlight=False)
                bar.advance(row)
                finished.extend([] if mined is None else [mined])

            def started(workers: int, gpus: int) -> None:
                placed.update(workers=workers, gpus=gpus)
                if ray_address is not None:
                    bar.console.print(f"Ray: {workers} worker(s) on {gpus} GPU(s)")

            address = None if ray_address == "local" else ray_address
            if ray_address is None:
                miner = task_miner(job, timing, current_commit(), _command())
                started(1, 1)
                mine(tasks, miner, out, settings=miner.settings, on_done=done)
            else:
                mine_on_ray(
                    tasks,
                    out,
                    make_miner=partial(
                        task_miner, _for_workers(job), timing, current_commit(), _command()
                    ),
                    cluster=Cluster(address, workers_per_gpu),
                    on_start=started,
                    on_done=done,
                )
    finally:
        signal.signal(signal.SIGTERM, before)
        # Written when interrupted too: a run cut short still says what it mined, how fast.
        if placed:
            summary = _run_summary(finished, began, time.monotonic() - clock, placed)
            _report_run(summary, out, began, console)


def _report_run(summary: dict[str, Any], out: Path, began: datetime, console: Console) -> None:
    """The run's summary into ``OUT/runs/<start>.json``, and its line on the console."""
    (out / RUNS).mkdir(parents=True, exist_ok=True)
    stamp = began.strftime("%Y%m%dT%H%M%SZ")
    atomic_write(out / RUNS / f"{stamp}.json", (json.dumps(summary, indent=1) + "\n").encode())
    console.print(
        f"mined {summary['tasks_mined']} tasks, {summary['trajectories']} trajectories, "
        f"{summary['verified_candidates']} verified candidates in "
        f"{summary['seconds'] / 60:.1f} min ({summary['verified_per_minute']:.1f} verified "
        f"per minute, {summary['workers']} worker(s) on {summary['gpus']} GPU(s)), into "
        f"{out / MINED}"
    )


def _interrupt(_signal: int, _frame: object) -> None:
    raise KeyboardInterrupt


RUNS = "runs"
"""The folder (under the mining output) of one summary per run: what it mined, how fast."""


MINE_TASK_LIMIT_S = 900.0
"""A mined task's default time limit: nearly four times the longest seen on the H100
(graph_snapshots/mined). Unattended runs need one: waits for the GPU end at the job's
deadline, and without one a worker whose GPU was held by a process that never let go
(three sanitizers spinning, on four H200s) waited for good."""


def _bounded(job: JobSettings) -> JobSettings:
    """The job with the default per-task limit where --time-limit named none."""
    if job.search.time_limit_s is not None:
        return job
    return replace(job, search=replace(job.search, time_limit_s=MINE_TASK_LIMIT_S))


def _for_workers(job: JobSettings) -> JobSettings:
    """The job as Ray workers get it: paths absolute (a worker may start elsewhere)."""
    snapshot = None if job.snapshot is None else job.snapshot.resolve()
    return replace(job, snapshot=snapshot)


def _command() -> str:
    """This run's command line, as its summary and each task's record name it."""
    return " ".join(["regrapht", *sys.argv[1:]])


def _run_summary(
    results: list[Mined], began: datetime, seconds: float, placed: dict[str, int]
) -> dict[str, Any]:
    """Throughput of one run from its records: tasks, trajectories and verified
    candidates, per minute in all and per GPU."""
    verified = sum(verified_candidates(m.record) for m in results)
    minutes = max(seconds, 1e-9) / 60
    first = next((m.record for m in results if m.record.get("device")), {})
    return {
        "command": _command(),
        "started": began.isoformat(timespec="seconds"),
        "seconds": round(seconds, 1),
        **{key: first.get(key) for key in ("device", "driver", "nvcc", "commit", "budget")},
        **placed,
        "tasks_mined": len(results),
        "tasks_failed": sum(1 for m in results if m.record.get("failure")),
        "trajectories": sum(len(m.trajectories) for m in results),
        "verified_candidates": verified,
        "verified_per_minute": verified / minutes,
        "verified_per_minute_per_gpu": verified / minutes / max(placed["gpus"], 1),
        "tasks_per_minute": len(results) / minutes,
        # How busy the workers were kept: their seconds on tasks against the run's.
        "workers_seen": len({m.record["worker"] for m in results if "worker" in m.record}),
        "worker_busy": round(
            sum(m.record.get("seconds", 0.0) for m in results)
            / (max(seconds, 1e-9) * max(placed["workers"], 1)),
            3,
        ),
        # How busy the GPUs were kept: seconds held for timed runs against seconds waited.
        "gpu_held_s": round(sum(m.record.get("gpu_held_s", 0.0) for m in results), 1),
        "gpu_waited_s": round(sum(m.record.get("gpu_waited_s", 0.0) for m in results), 1),
    }
