"""``regrapht bench MANIFEST``: the task suite with each method, results as JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import Progress

from regrapht_core.bench.runner import METHODS, load_manifest, run_suite
from regrapht_core.optimize.options import job_options, require_nvcc
from regrapht_core.optimize.session import JobSettings, Optimizer

__all__ = ["bench"]


@click.command()
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
@job_options(budget=8)
def bench(
    *,
    manifest: Path,
    methods: tuple[str, ...],
    only: tuple[str, ...],
    job: JobSettings,
    out: Path,
) -> None:
    """Measure pass@1 and speedup@1 of each method on the suite in MANIFEST."""
    console = Console(stderr=True)
    require_nvcc(job)
    tasks = [t for t in load_manifest(manifest) if not only or t.name in only]
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

        document = run_suite(tasks, list(methods), optimizer, out=out, on_done=done)
    for method, stats in document["summary"].items():
        console.print(f"{method}: {stats}")
    console.print(f"wrote {out}")
