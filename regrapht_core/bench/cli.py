"""``regrapht bench MANIFEST``: the task suite with each method, results as JSON;
``regrapht bench report RESULTS``: those results as a Markdown report with plots; and
``regrapht graph mine MANIFEST``: the same search over a corpus, keeping what verified as
trajectories (registered under ``graph``, where its output goes, by the main command)."""

from __future__ import annotations

import json
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import Progress

from regrapht_core.bench.mine import MINED, Mined, mine
from regrapht_core.bench.runner import METHODS, SuiteTask, current_commit, load_manifest, run_suite
from regrapht_core.contracts.task import TimingMode
from regrapht_core.errors import ConfigError, TaskError
from regrapht_core.files import read_regular
from regrapht_core.optimize.options import job_options, require_nvcc
from regrapht_core.optimize.session import JobSettings, Optimizer

__all__ = ["bench", "mine_command"]


_timing_option = click.option(
    "--timing",
    type=click.Choice([str(m) for m in TimingMode]),
    help="Time every task this way instead of its own mode: kernel_only ranks candidates "
    "by their kernels, as if the data lived on the GPU (default: each task's mode).",
)


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
    job: JobSettings,
    out: Path,
    resume: bool,
    timing: str | None,
) -> None:
    """Measure pass@1 and speedup@1 of each method on the suite in MANIFEST."""
    console = Console(stderr=True)
    require_nvcc(job)
    tasks = [t for t in _load_manifest(manifest) if not only or t.name in only]
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
    help=f"Folder for the trajectories ({MINED}/) and each task's record (records/).",
)
@click.option("--split", help="Mine only the tasks with this split (train, test).")
@click.option("--only", multiple=True, help="Mine only these task names (repeatable).")
@click.option("--limit", type=click.IntRange(1), help="Mine at most this many tasks.")
@_timing_option
@job_options(budget=8)
def mine_command(
    *,
    manifest: Path,
    out: Path,
    split: str | None,
    only: tuple[str, ...],
    limit: int | None,
    timing: str | None,
    job: JobSettings,
) -> None:
    """Search every task of MANIFEST on this machine's GPU and keep each verified, faster
    path as a trajectory; `regrapht graph build --trajectories OUT/trajectories` builds a
    snapshot from them. Resumes: tasks already mined with these settings are skipped."""
    console = Console(stderr=True)
    require_nvcc(job)
    listed = _load_manifest(manifest)
    if split is not None and not any(t.split == split for t in listed):
        raise ConfigError(f"{manifest}: no task has split = {split!r}")
    mode = TimingMode(timing) if timing else None
    tasks = [
        replace(t, timing=mode)
        for t in listed
        if (split is None or t.split == split) and (not only or t.name in only)
    ][:limit]
    optimizer = Optimizer(job)
    if not optimizer.gpu:
        raise ConfigError("mining keeps only what verified on a GPU, and there is none here")
    device = optimizer.verifier.device
    settings = {
        "device": device.name if device else None,
        "driver": device.driver if device else None,
        "nvcc": device.nvcc if device else None,
        "budget": job.search.budget,
        "model": job.model.model if job.model else None,
        "timing": timing or "task",
        "commit": current_commit(),
    }
    with Progress(console=console) as bar:
        row = bar.add_task("mining", total=len(tasks))

        def done(mined: Mined | None, task: SuiteTask) -> None:
            said = "already mined" if mined is None else f"{len(mined.trajectories)} paths"
            bar.console.print(f"{task.name:<44} {said}", markup=False, highlight=False)
            bar.advance(row)

        results = mine(tasks, optimizer, out, settings=settings, on_done=done)
    paths = sum(len(m.trajectories) for m in results)
    console.print(f"mined {len(results)} tasks, {paths} trajectories, into {out / MINED}")
