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


LISTS = sorted(p.name for p in (ROOT / "scripts" / "explore").glob("*.txt"))


@pytest.mark.parametrize("listed", LISTS)
def test_the_explore_lists_name_distinct_tasks_of_their_split(listed: str) -> None:
    """test.txt and train.txt are what the 9344307 run searched, as the rewriters of then
    picked them; the pick moves with the rewriters (a 3-D stencil parallelizes since), the
    lists not. Each list is named for its split (``train-2.txt``)."""
    split = listed.removesuffix(".txt").split("-")[0]
    names = _listed(listed)
    splits = {e.name: e.split for e in load_manifest(explore_reach.CORPUS)}
    assert len(names) == len(set(names)) and all(splits.get(n) == split for n in names)


def test_the_pick_takes_one_task_of_each_family_in_turn() -> None:
    reach = {
        "a1": {"family": "a", "new": [["x", "y"]]},
        "a2": {"family": "a", "new": [["x", "y"]]},
        "a3": {"family": "a", "new": []},
        "b1": {"family": "b", "new": [["x", "y"]]},
    }
    assert explore_reach.pick(reach, 3) == ["a1", "b1", "a2"]
    assert explore_reach.pick(reach, 1) == ["a1"]


def test_the_report_names_its_split_and_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "reach.json"
    assert explore_reach.main(["--split", "test", "--pick", "4", "--out", str(out)]) == 0
    picked = capsys.readouterr().out.split()
    document = json.loads(out.read_text())
    assert len(picked) == 4 and all(document["per_task"][name]["new"] for name in picked)
    assert document["tasks"] == 105 and document["commit"]


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
