"""``regrapht tasks generate OUT``: write the generated task corpus, every task validated."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import click
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from regrapht_core.errors import TaskError
from regrapht_core.tasks.generate.corpus import generate, validate, write_corpus
from regrapht_core.tasks.generate.registry import FAMILIES

__all__ = ["tasks"]


@click.group()
def tasks() -> None:
    """Task corpora: serial C++ tasks generated from families, for mining the graph."""


@tasks.command("generate")
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@click.option("--seed", default=0, show_default=True, help="Seed of the train/test split.")
@click.option(
    "--test-fraction",
    default=0.2,
    show_default=True,
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    help="Share of each family held out as the test split.",
)
@click.option(
    "--jobs",
    default=os.cpu_count() or 1,
    show_default="all cores",
    type=click.IntRange(1),
    help="Tasks validated at once.",
)
def generate_command(*, out: Path, seed: int, test_fraction: float, jobs: int) -> None:
    """Generate every family's tasks, validate each under ASan and UBSan, and write them,
    the manifest (with the split) and the validation record to OUT. Nothing is written
    unless every task validates."""
    console = Console(stderr=True)
    corpus = generate(seed=seed, test_fraction=test_fraction)
    with Progress(console=console, transient=True) as bar:
        row = bar.add_task("validating", total=len(corpus.tasks))
        failures = validate(corpus.tasks, jobs=jobs, advance=lambda _task: bar.advance(row))
    if failures:
        for name, why in sorted(failures.items()):
            console.print(f"{name}: {why}", markup=False, highlight=False)
        raise TaskError(
            f"{len(failures)} of {len(corpus.tasks)} generated tasks failed validation "
            f"(listed above); nothing was written to {out}"
        )
    write_corpus(corpus, out)
    table = Table("family", "tasks", "train", "test", "what it varies")
    tested = Counter(t.family for t in corpus.tasks if corpus.split[t.name] == "test")
    summaries = {f.name: f.summary for f in FAMILIES}
    for family, count in corpus.families().items():
        test = tested[family]
        table.add_row(family, str(count), str(count - test), str(test), summaries.get(family, ""))
    console.print(table)
    console.print(f"wrote {len(corpus.tasks)} tasks in {len(corpus.families())} families to {out}")
