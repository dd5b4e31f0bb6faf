"""``regrapht optimize FILE --function NAME`` (or ``--loop LINE``): the main job, from the
terminal. It writes FILE with the result in place of the function (``FILE.regrapht.cu``).

The search runs in a worker thread so Ctrl-C only sets the cancel event: the search stops
between candidates and the best verified result so far is still written. Everything for a
person goes to stderr; ``--json`` puts the outcome, and only it, on stdout for scripts.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from regrapht_core.contracts.proposal import SearchProgress
from regrapht_core.contracts.task import Task, TaskMode
from regrapht_core.cxx.parse import language_for_path
from regrapht_core.errors import GraphError, ReGraphTError, TaskError
from regrapht_core.files import SourceText, atomic_write, read_source
from regrapht_core.graph.paths import learning_snapshot, snapshot_path
from regrapht_core.graph.taxonomy import display_name
from regrapht_core.optimize.job import OptimizeOutcome
from regrapht_core.optimize.learning import learn_outcome
from regrapht_core.optimize.options import job_options, require_nvcc
from regrapht_core.optimize.session import JobSettings, Optimizer
from regrapht_core.search.config import SearchConfig
from regrapht_core.search.trace_log import write_trace
from regrapht_core.tasks.extract import extract_task

__all__ = ["EXIT_NOTHING_FOUND", "optimize"]

EXIT_NOTHING_FOUND = 1
_DEFAULTS = SearchConfig()
_SUFFIX = ".regrapht.cu"


@click.command()
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--function", "function", help="The function to optimize.")
@click.option(
    "--loop",
    "loop",
    type=click.IntRange(min=1),
    help="Instead: a line inside one top-level loop of a function; only that loop is "
    "optimized, the rest of the function stays on the host as written.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    help=f"Where FILE goes with the CUDA version of the function (with its result header) in "
    f"place of the original; the rest of FILE is kept, and FILE itself is never changed. "
    f"Default: FILE with the suffix {_SUFFIX} (smooth.cpp -> smooth{_SUFFIX}).",
)
@click.option(
    "--trace",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write every candidate (technique, producer, status, code) as JSON lines here.",
)
@click.option(
    "--learn",
    is_flag=True,
    help="Add a verified, faster result's steps as examples to the snapshot named by "
    "--snapshot or $REGRAPHT_SNAPSHOT, else to your own copy in the user data directory "
    "($XDG_DATA_HOME/regrapht, made from the shipped snapshot on first use).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the outcome as one JSON object on stdout (status, speedup, device, "
    "techniques, candidates, wall time, output file).",
)
@job_options(budget=_DEFAULTS.budget)
def optimize(
    *,
    file: Path,
    function: str | None,
    loop: int | None,
    job: JobSettings,
    out: Path | None,
    trace: Path | None,
    learn: bool,
    as_json: bool,
) -> None:
    """Search for a verified, faster CUDA version of a function in FILE.

    Exit status: 0 with code written, 1 when nothing verified (or, without a GPU,
    compiled) was found, 2 for a problem to fix (the message names it).
    """
    if function is None and loop is None:
        raise click.UsageError("name the code to optimize with --function NAME or --loop LINE")
    _never_the_input(file, out=out, trace=trace)
    console = Console(stderr=True)
    source = read_source(file)
    task = _extract(source, file, function, loop)
    require_nvcc(job)
    used = snapshot_path(job.snapshot)  # what the optimizer loads; learning may copy it
    optimizer = Optimizer(job)
    if not optimizer.gpu:
        console.print(
            "[yellow]No GPU found: candidates are checked and compiled, but not run or timed."
            " Nothing can be verified faster on this machine.[/]"
        )
    outcome = _run_with_progress(
        console,
        lambda progress_fn, cancel: optimizer.run(task, progress_fn=progress_fn, cancel=cancel),
        job.search.budget,
    )
    if trace is not None:
        trace.parent.mkdir(parents=True, exist_ok=True)
        write_trace(outcome.search.candidates, trace)
    _summary(console, outcome)
    code = outcome.annotated_file(source.text)
    target = None if code is None else out or file.with_suffix(_SUFFIX)
    if code is not None and target is not None:
        try:
            atomic_write(target, source.encode(code))
        except OSError as err:
            raise ReGraphTError(f"cannot write {target}: {err.strerror or err}") from err
    _report(console, outcome, target)
    learned = _learn(console, outcome, learning_snapshot(job.snapshot)) if learn else None
    if as_json:
        document = _outcome_json(outcome, target, used, learned)
        click.echo(json.dumps(document, indent=2))
    if code is None:
        raise click.exceptions.Exit(EXIT_NOTHING_FOUND)


def _never_the_input(file: Path, **outputs: Path | None) -> None:
    """FILE is only read: an output path that names it is refused before any work."""
    for flag, path in outputs.items():
        if path is not None and _same_file(path, file):
            raise click.BadParameter(
                f"{path} is FILE itself, which is never changed: write elsewhere",
                param_hint=f"--{flag}",
            )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and a.samefile(b))
    except (OSError, RuntimeError):  # unreadable, or a loop of links: not FILE, which exists
        return False


def _extract(source: SourceText, file: Path, function: str | None, loop: int | None) -> Task:
    try:
        task = extract_task(
            source.text,
            language_for_path(file),
            function=function,
            line=None if loop is None else loop - 1,
            origin=str(file),
        )
    except RecursionError:
        raise TaskError(
            f"{file}: the code nests too deeply to analyse (an expression or block hundreds "
            "of levels deep); simplify it or move that part out of the function"
        ) from None
    if loop is not None and task.loop is None and task.mode is TaskMode.SEQUENTIAL_TO_CUDA:
        raise TaskError(
            f"{file}:{loop}: not inside a top-level for loop of {task.entry!r}; name a line "
            f"of the loop to optimize, or the whole function with --function {task.entry}"
        )
    return task


def _report(console: Console, outcome: OptimizeOutcome, target: Path | None) -> None:
    if target is None:
        console.print(f"[red]No verified faster code found[/]: {outcome.failure_summary()}")
        return
    faster = outcome.faster
    if faster is not None and faster.result.speedup is not None:
        device = faster.result.device.name if faster.result.device else "the GPU"
        console.print(f"wrote {target}: {faster.result.speedup:.2f}x faster, verified on {device}")
    else:
        console.print(f"wrote {target}: compiled only - not run, not timed (no GPU)")


def _learn(console: Console, outcome: OptimizeOutcome, snapshot: Path) -> Path | None:
    """The snapshot that grew, or ``None`` when there was nothing to learn."""
    try:
        learned = learn_outcome(outcome, snapshot)
    except GraphError as err:
        raise click.ClickException(f"nothing learned: {err}") from err
    if learned is None:
        console.print("nothing learned: only a verified, faster result becomes an example")
        return None
    console.print(f"learned {learned.steps} verified step(s) into {learned.snapshot}")
    return learned.snapshot


def _outcome_json(
    outcome: OptimizeOutcome, target: Path | None, snapshot: Path, learned: Path | None
) -> dict[str, Any]:
    """The outcome for scripts: what ``--json`` prints (documented in docs/search.md)."""
    faster, answer = outcome.faster, outcome.answer
    status = "faster" if faster else "compiled_only" if answer else "not_found"
    device = next((c.result.device for c in outcome.search.candidates if c.result.device), None)
    return {
        "status": status,
        "function": outcome.task.entry,
        "speedup": None if faster is None else faster.result.speedup,
        "device": None if device is None else device.name,
        "gpu": outcome.gpu,
        "model": outcome.model,
        "stopReason": str(outcome.search.stop_reason),
        "techniques": [
            {
                "technique": step.technique,
                "name": display_name(step.technique),
                "producer": step.producer,
                "status": step.status,
                "speedup": step.speedup,
            }
            for step in outcome.search.path
        ],
        "candidates": [
            {
                "index": c.index,
                "parent": c.parent,
                "technique": c.technique,
                "producer": c.producer,
                "status": str(c.result.status),
                "speedup": c.result.speedup,
                "feedback": c.result.feedback,
            }
            for c in outcome.search.candidates
        ],
        "wall": outcome.wall.as_dict(),
        "output": None if target is None else str(target),
        "snapshot": str(snapshot),
        "learnedInto": None if learned is None else str(learned),
        "failure": None if answer else outcome.failure_summary(),
    }


_Job = Callable[[Callable[[SearchProgress], None], threading.Event], OptimizeOutcome]


def _run_with_progress(console: Console, job: _Job, budget: int) -> OptimizeOutcome:
    cancel = threading.Event()
    box: list[OptimizeOutcome | BaseException] = []
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[best]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        row = bar.add_task("searching", total=budget, best="best: -")

        def report(progress: SearchProgress) -> None:
            best = "-" if progress.best_speedup is None else f"{progress.best_speedup:.2f}x"
            bar.update(
                row,
                completed=progress.evaluations,
                description=(
                    "confirming the best"
                    if progress.confirming
                    else display_name(progress.technique)
                ),
                best=f"best: {best}",
            )

        def work() -> None:
            try:
                box.append(job(report, cancel))
            except BaseException as err:
                box.append(err)

        worker = threading.Thread(target=work, name="regrapht-search", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.2)
        except KeyboardInterrupt:
            console.print("cancelling: finishing the current candidate ...")
            cancel.set()
            worker.join()
    outcome = box[0]
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def _summary(console: Console, outcome: OptimizeOutcome) -> None:
    table = Table(title=f"ReGraphT: {outcome.task.entry} ({outcome.search.stop_reason})")
    for column in ("step", "technique", "by", "status", "speedup"):
        table.add_column(column)
    for number, step in enumerate(outcome.search.path, start=1):
        speedup = "-" if step.speedup is None else f"{step.speedup:.2f}x"
        name = display_name(step.technique)
        table.add_row(str(number), name, step.producer, step.status, speedup)
    console.print(table)
    wall = outcome.wall
    console.print(
        f"candidates tried: {len(outcome.search.candidates)}; {wall.total:.1f} s: "
        f"proposing {wall.propose:.1f} s, compiling {wall.compile:.1f} s, "
        f"running {wall.run:.1f} s, search {wall.search:.3f} s"
    )
