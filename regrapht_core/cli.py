"""The ``regrapht`` command: one group per area, errors users must act on shown plainly.

Every ``ReGraphTError`` is translated here, once, into one line on stderr and exit code 2,
so no command needs its own error handling and no traceback reaches a user for a problem
they can fix (a missing snapshot, a malformed trajectory).
"""

from __future__ import annotations

import logging
from typing import Any

import click
from rich.console import Console

from regrapht_core.bench.cli import bench
from regrapht_core.errors import ReGraphTError
from regrapht_core.graph.cli import graph
from regrapht_core.model.cli import model
from regrapht_core.optimize.cli import optimize

__all__ = ["EXIT_USER_ERROR", "main"]

EXIT_USER_ERROR = 2


class _Main(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ReGraphTError as err:
            Console(stderr=True, soft_wrap=True).print(
                f"error: {err}", markup=False, highlight=False
            )
            raise click.exceptions.Exit(EXIT_USER_ERROR) from err


@click.group(cls=_Main)
@click.option("-v", "--verbose", count=True, help="Log more (-v info, -vv debug) to stderr.")
def main(verbose: int) -> None:
    """ReGraphT: a local CUDA optimizer driven by a graph of optimization techniques."""
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


main.add_command(bench)
main.add_command(graph)
main.add_command(model)
main.add_command(optimize)
