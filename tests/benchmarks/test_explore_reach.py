"""The explore lists (scripts/explore/*.txt) are what `benchmarks.explore_reach` picks,
and what it counts as new is a step the rewriters answer off the seed graph's edges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import explore_reach
from regrapht_core.bench.runner import load_manifest
from regrapht_core.graph.build import build_snapshot
from regrapht_core.rewrite.registry import default_registry

ROOT = Path(__file__).resolve().parents[2]


def _listed(name: str) -> list[str]:
    text = (ROOT / "scripts" / "explore" / name).read_text()
    return [line for line in text.splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize(
    ("split", "count", "listed"),
    [
        ("test", 32, "test.txt"),
        pytest.param("train", 64, "train.txt", marks=pytest.mark.slow),
    ],
)
def test_the_committed_lists_are_the_pick(
    split: str, count: int, listed: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "reach.json"
    assert explore_reach.main(["--split", split, "--pick", str(count), "--out", str(out)]) == 0
    picked = capsys.readouterr().out.split()
    assert picked == _listed(listed)
    document = json.loads(out.read_text())
    assert all(document["per_task"][name]["new"] for name in picked)
    assert document["device"].startswith("none") and document["commit"]


def test_a_step_counts_as_new_only_off_the_graphs_edges(tmp_path: Path) -> None:
    """On a map, a launch configuration after the read-only cache is new to the seed graph;
    with that edge in the graph it is not."""
    graph = build_snapshot([explore_reach.SEED], tmp_path / "seed.msgpack").graph
    (entry,) = [
        e
        for e in load_manifest(explore_reach.CORPUS)
        if e.name == "elementwise_arith_axpby_f32_ptr"
    ]
    registry = default_registry()
    step = ("read_only_cache", "launch_configuration")
    found = explore_reach.new_steps(entry, graph, registry)
    assert step in found and all(not graph.has_edge(u, v) for u, v in found)
    example = graph.examples("parallelization", "read_only_cache")[0]
    graph.add_example(*step, example)
    assert step not in explore_reach.new_steps(entry, graph, registry)
