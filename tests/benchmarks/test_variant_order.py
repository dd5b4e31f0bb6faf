"""benchmarks/variant_order.py: the graph's variant order against the rewriters' own, one
train task left out, judged by the mining's measurements."""

from __future__ import annotations

import pytest

from benchmarks.variant_order import CORPUS, WithoutTask, judge, summary
from regrapht_core.bench.runner import load_manifest
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.snapshot import load_snapshot


def test_a_train_task_is_judged_without_its_own_examples() -> None:
    """The 1-D stencil's own measurements are left out, its siblings' still say a thread
    per output beats the block per output the rewriters offer first; the row norm's
    keep the block first."""
    graph = load_snapshot(shipped_snapshot()).graph
    names = {"stencil1d_radius_interior_f32_ptr", "rows_l2norm_f32_ptr"}
    entries = [e for e in load_manifest(CORPUS) if e.name in names]
    left = WithoutTask(graph, "stencil1d_radius_interior_f32_ptr")
    assert all(
        not e.task.startswith("stencil1d_radius_interior_f32_ptr")
        for e in left.examples("sequential", "parallelization")
    )
    rows = {row["task"]: row for row in judge(entries, graph, neighbours=5)}
    stencil, norm = rows["stencil1d_radius_interior_f32_ptr"], rows["rows_l2norm_f32_ptr"]
    assert "one CUDA thread" in stencil["graph_first"]
    assert "block of 128" in stencil["rewriters_first"]
    assert stencil["ratio"] > 10
    assert norm["graph_first"] == norm["rewriters_first"]
    assert norm["ratio"] == 1.0


def test_the_summary_counts_ties_apart_and_leaves_unscored_tasks_out() -> None:
    rows = [
        {"task": "a", "rewriters_first": "x", "graph_first": "y", "ratio": 4.0},
        {"task": "b", "rewriters_first": "x", "graph_first": "y", "ratio": 0.5},
        {"task": "c", "rewriters_first": "x", "graph_first": "x", "ratio": 1.0},
        {"task": "d", "rewriters_first": "x", "graph_first": "y"},
    ]
    got = summary(rows)
    assert (got["tasks"], got["scored"], got["first_changed"]) == (4, 3, 3)
    assert (got["first_changed_scored"], got["better"], got["worse"]) == (2, 1, 1)
    assert got["geomean_ratio_changed"] == pytest.approx(2**0.5)
    assert got["geomean_ratio_scored"] == pytest.approx(2 ** (1 / 3))
