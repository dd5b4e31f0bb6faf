"""``regrapht graph ...``: build the ReGraph snapshot and look inside it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.table import Table

from regrapht_core.errors import GraphError, UnknownTechniqueError
from regrapht_core.graph.build import build_snapshot
from regrapht_core.graph.export import EXPORTERS
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.paths import (
    SNAPSHOT_ENV,
    build_target,
    default_trajectory_dirs,
    snapshot_path,
)
from regrapht_core.graph.relabel import normalize, relabel
from regrapht_core.graph.snapshot import Snapshot, load_snapshot
from regrapht_core.graph.taxonomy import display_name, technique

__all__ = ["graph"]

_TOP_TRANSITIONS = 10
_F = TypeVar("_F", bound=Callable[..., object])
_PATH = click.Path(path_type=Path, dir_okay=False)


def _snapshot_option(command: _F) -> _F:
    return click.option(
        "--snapshot",
        type=_PATH,
        default=None,
        help=f"Snapshot file (default: ${SNAPSHOT_ENV}, else your learned copy in the user data "
        "directory if any, else the shipped snapshot).",
    )(command)


def _load(flag: Path | None) -> Snapshot:
    return load_snapshot(snapshot_path(flag))


@click.group()
def graph() -> None:
    """Build and inspect the ReGraph of CUDA optimization techniques."""


@graph.command()
@click.option(
    "--trajectories",
    type=click.Path(path_type=Path, file_okay=False),
    multiple=True,
    help="Folder of trajectory JSON files, repeatable: the seed's and mined ones together "
    "(default: a checkout's graph_snapshots/trajectories, graph_snapshots/mined/trajectories "
    "and graph_snapshots/explored/trajectories).",
)
@click.option(
    "--out",
    type=_PATH,
    default=None,
    help=f"Snapshot to write (default: ${SNAPSHOT_ENV}, else a checkout's "
    "graph_snapshots/regraph.msgpack, the source of the shipped snapshot).",
)
@click.option("--allow-new", is_flag=True, help="Add unknown technique names as new nodes.")
def build(trajectories: tuple[Path, ...], out: Path | None, allow_new: bool) -> None:
    """Merge the trajectory files into a snapshot."""
    sources = list(trajectories) or default_trajectory_dirs()
    target = build_target(out)
    if not sources or target is None:
        raise click.UsageError(
            "not in a source checkout: name the trajectories with --trajectories DIR and the "
            "snapshot to write with --out FILE"
        )
    try:
        snapshot = build_snapshot(sources, target, allow_new=allow_new)
    except RecursionError:
        raise GraphError(
            f"{', '.join(map(str, sources))}: a trajectory file nests its JSON too deeply to "
            "be read"
        ) from None
    g = snapshot.graph
    Console(soft_wrap=True).print(
        f"Wrote {target}: {g.node_count} nodes, {g.edge_count} edges, "
        f"{g.example_count} examples from {snapshot.build.trajectories} trajectories.",
        markup=False,
        highlight=False,
    )


@graph.command()
@_snapshot_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the counts and top transitions as one JSON object.",
)
def stats(snapshot: Path | None, as_json: bool) -> None:
    """Counts and the most exemplified transitions."""
    path = snapshot_path(snapshot)
    loaded = load_snapshot(path)
    g = loaded.graph
    top = sorted(g.edges, key=lambda e: (-g.example_count_of(*e), e))[:_TOP_TRANSITIONS]
    if as_json:
        click.echo(json.dumps(_stats_json(path, loaded, top), indent=2))
        return
    console = Console(soft_wrap=True)
    summary = Table.grid(padding=(0, 2))
    for label, value in (
        ("nodes", g.node_count),
        ("edges", g.edge_count),
        ("examples", g.example_count),
        ("trajectories", loaded.build.trajectories),
        ("built by", loaded.build.builder),
    ):
        summary.add_row(label, str(value))
    console.print(summary)
    table = Table(title="Top transitions")
    for column in ("from", "to", "examples", "tasks"):
        table.add_column(column)
    for u, v in top:
        tasks = {example.task for example in g.examples(u, v)}
        table.add_row(u, v, str(g.example_count_of(u, v)), str(len(tasks)))
    console.print(table)


def _stats_json(path: Path, loaded: Snapshot, top: list[tuple[str, str]]) -> dict[str, Any]:
    g = loaded.graph
    return {
        "snapshot": str(path),
        "nodes": g.node_count,
        "edges": g.edge_count,
        "examples": g.example_count,
        "trajectories": loaded.build.trajectories,
        "builtBy": loaded.build.builder,
        "topTransitions": [
            {
                "from": u,
                "to": v,
                "examples": g.example_count_of(u, v),
                "tasks": len({example.task for example in g.examples(u, v)}),
            }
            for u, v in top
        ],
    }


def _resolve(g: ReGraph, name: str) -> str:
    """A node id as written, else the technique any of its names relabels to, else the
    slug of a node that ``--allow-new`` added under that name."""
    if g.has_node(name):
        return name
    try:
        return relabel(name)
    except UnknownTechniqueError:
        slug = relabel(name, allow_new=True) if normalize(name) else None
        if slug is not None and g.has_node(slug):
            return slug
        raise


def _edge_table(title: str, g: ReGraph, edges: list[tuple[str, str]], other: int) -> Table:
    table = Table(title=title)
    for column in ("technique", "examples", "tasks"):
        table.add_column(column)
    for edge in edges:
        tasks = {example.task for example in g.examples(*edge)}
        table.add_row(edge[other], str(g.example_count_of(*edge)), ", ".join(sorted(tasks)))
    return table


@graph.command()
@click.argument("node")
@_snapshot_option
def show(node: str, snapshot: Path | None) -> None:
    """One technique (by id or any synonym): description and its transitions."""
    g = _load(snapshot).graph
    resolved = _resolve(g, node)
    known = technique(resolved)
    console = Console(soft_wrap=True)
    console.print(f"{display_name(resolved)} ({resolved})", markup=False, highlight=False)
    if known is not None:
        console.print(known.description, markup=False, highlight=False)
    if not g.has_node(resolved):
        console.print("No transitions in this snapshot.", markup=False)
        return
    incoming = [(u, resolved) for u in g.predecessors(resolved)]
    outgoing = [(resolved, v) for v in g.successors(resolved)]
    console.print(_edge_table("Reached from", g, incoming, 0))
    console.print(_edge_table("Followed by", g, outgoing, 1))


@graph.command()
@click.option("--format", "fmt", type=click.Choice(sorted(EXPORTERS)), required=True)
@click.option("--out", type=_PATH, default=None, help="File to write (default: stdout).")
@_snapshot_option
def export(fmt: str, out: Path | None, snapshot: Path | None) -> None:
    """Write the graph as JSON (with all examples), Graphviz DOT or Mermaid."""
    text = EXPORTERS[fmt](_load(snapshot).graph)
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as err:
        raise GraphError(f"cannot write {out}: {err.strerror or err}") from err
