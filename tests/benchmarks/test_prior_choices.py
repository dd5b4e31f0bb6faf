"""benchmarks/prior_choices.py: each graph's order of the steps the rewriters apply, and the
budget-2 answer each graph's first choice would have measured in a records folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.prior_choices import budget_two, choices
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.snapshot import load_snapshot
from tests.core.rewrite import cases


def test_one_graph_twice_orders_alike_and_the_parallelization_opens_more_steps() -> None:
    graph = load_snapshot(shipped_snapshot()).graph
    row = choices(cases.SAXPY, {"a": graph, "b": graph})
    assert "parallelization" in row["root"]["applied"]
    after = row["after_parallelization"]
    assert after is not None and after["applied"], "the rewriters have steps after it"
    assert after["a"] == after["b"]
    assert set(after["a"]["order"]) == set(after["applied"])
    assert set(after["a"]["first_batch"]) <= set(after["applied"])


def _after(seed_first: str, mined_first: str) -> dict[str, Any]:
    return {
        "root": {},
        "after_parallelization": {
            "applied": [seed_first, mined_first],
            "seed": {"order": [seed_first, mined_first], "first_batch": [seed_first]},
            "mined": {"order": [mined_first, seed_first], "first_batch": [mined_first]},
        },
    }


def _record(folder: Path, task: str, speedups: dict[str, float | None]) -> None:
    candidates = [{"index": 0, "parent": None, "technique": "parallelization", "verified": True}]
    candidates[0]["speedup"] = speedups.pop("parallelization")
    for index, (technique, speedup) in enumerate(speedups.items(), start=1):
        candidates.append(
            {
                "index": index,
                "parent": 0,
                "technique": technique,
                "verified": speedup is not None,
                "speedup": speedup,
            }
        )
    (folder / f"{task}.json").write_text(json.dumps({"candidates": candidates}))


def test_budget_two_takes_the_better_of_the_parallelization_and_each_graphs_first_step(
    tmp_path: Path,
) -> None:
    _record(
        tmp_path,
        "t1",
        {"parallelization": 4.0, "read_only_cache": 4.1, "launch_configuration": 6.0},
    )
    _record(
        tmp_path, "t2", {"parallelization": 0.5, "read_only_cache": 0.9, "grid_stride_loop": None}
    )
    _record(tmp_path, "t3", {"parallelization": 2.0, "read_only_cache": 2.0})  # mined's unmeasured
    rows = {
        "t1": _after("read_only_cache", "launch_configuration"),
        "t2": _after("read_only_cache", "grid_stride_loop"),
        "t3": _after("read_only_cache", "vectorized_access"),
        "absent": _after("read_only_cache", "grid_stride_loop"),
    }
    result = budget_two(rows, tmp_path, ["seed", "mined"])
    assert result["answers"] == {
        "t1": {"seed": 4.1, "mined": 6.0},
        "t2": {"seed": 1.0, "mined": 1.0},
    }
    summary = result["summary"]
    assert summary["tasks"] == 2
    assert summary["seed"] == {"passed": 1, "geomean": round(4.1**0.5, 3)}
    assert summary["mined_against_seed"] == {"faster": 1, "level": 1, "slower": 0}
    # every verified step after a parallelization, by its gain over it (t1's launch
    # configuration and t2's read-only cache gained; the failed step is not counted)
    assert result["later_steps"] == {"measured": 4, "gained": 2, "level": 2, "lost": 0}
