"""``regrapht optimize FILE --function NAME``: the main job, from the terminal.

The search runs in a worker thread so Ctrl-C only sets the cancel event: the search stops
between candidates and the best verified result so far is still written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from regrapht_core.contracts.proposal import SearchProgress
from regrapht_core.cxx.parse import language_for_path
from regrapht_core.errors import GraphError
from regrapht_core.files import atomic_write
from regrapht_core.graph.paths import snapshot_path
from regrapht_core.graph.taxonomy import display_name
from regrapht_core.optimize.job import OptimizeOutcome
from regrapht_core.optimize.learning import learn_outcome
from regrapht_core.optimize.options import job_options
from regrapht_core.optimize.session import JobSettings, Optimizer
from regrapht_core.search.config import SearchConfig
from regrapht_core.search.trace_log import write_trace
from regrapht_core.tasks.extract import extract_task

__all__ = ["EXIT_NOTHING_FOUND", "optimize"]

EXIT_NOTHING_FOUND = 1
_DEFAULTS = SearchConfig()


@click.command()
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--function", "function", help="The function to optimize.")
@click.option("--loop", "loop", type=click.IntRange(min=1), help="A line inside the loop instead.")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), help="Default: FILE.cu")
@click.option("--trace", type=click.Path(path_type=Path, dir_okay=False), help="JSONL trace.")
@click.option(
    "--learn",
    is_flag=True,
    help="Add a verified, faster result's steps to the snapshot as examples (it is rewritten).",
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
) -> None:
    """Search for a verified, faster CUDA version of a function in FILE."""
    if function is None and loop is None:
        raise click.UsageError("name the code to optimize with --function NAME or --loop LINE")
    console = Console(stderr=True)
    source = file.read_text(encoding="utf-8")
    task = extract_task(
        source,
        language_for_path(file),
        function=function,
        line=None if loop is None else loop - 1,
        origin=str(file),
    )
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
    code = outcome.annotated_code()
    if code is None:
        console.print(f"[red]No verified faster code found[/]: {outcome.failure_summary()}")
        raise click.exceptions.Exit(EXIT_NOTHING_FOUND)
    target = out or file.with_suffix(".regrapht.cu")
    try:
        atomic_write(target, code.encode("utf-8"))
    except OSError as err:
        raise click.ClickException(f"cannot write {target}: {err.strerror or err}") from err
    faster = outcome.faster
    if faster is not None and faster.result.speedup is not None:
        device = faster.result.device.name if faster.result.device else "the GPU"
        console.print(f"wrote {target}: {faster.result.speedup:.2f}x faster, verified on {device}")
    else:
        console.print(f"wrote {target}: compiled only - not run, not timed (no GPU)")
    if learn:
        _learn(console, outcome, snapshot_path(job.snapshot))


def _learn(console: Console, outcome: OptimizeOutcome, snapshot: Path) -> None:
    try:
        learned = learn_outcome(outcome, snapshot)
    except GraphError as err:
        raise click.ClickException(f"nothing learned: {err}") from err
    if learned is None:
        console.print("nothing learned: only a verified, faster result becomes an example")
        return
    console.print(f"learned {learned.steps} verified step(s) into {learned.snapshot}")


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
                description=display_name(progress.technique),
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
