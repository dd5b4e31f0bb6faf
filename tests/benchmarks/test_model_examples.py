"""The model-examples benchmark: which tasks it asks the model about, and how it counts."""

from __future__ import annotations

from benchmarks.model_examples import MANIFEST, graphs, per_family, root_refused, summary
from regrapht_core.bench.runner import load_manifest


def test_only_tasks_no_rewriter_moves_from_the_root_are_asked() -> None:
    """An odd-even sort (every rewriter refuses it: each pass reads what the last wrote)
    is asked; an axpby map and a float arg-max (rewriters act) are not: the benchmark
    measures the model where a job would ask it."""
    wanted = {
        "sorting_selection_oddeven_f32_ptr",
        "arg_reductions_argmax_f32_ptr",
        "elementwise_arith_axpby_f64_vec",
    }
    tasks = [t for t in load_manifest(MANIFEST) if t.name in wanted]
    chosen = root_refused(tasks, graphs()["seed"])
    assert [suite_task.name for suite_task, _ in chosen] == ["sorting_selection_oddeven_f32_ptr"]


def test_the_mined_arm_is_the_seed_with_the_mined_examples() -> None:
    arms = graphs()
    assert arms["mined"].edge_count == arms["seed"].edge_count
    assert arms["mined"].example_count > 30 * arms["seed"].example_count


def test_summary_counts_code_verified_and_faster_per_arm() -> None:
    rows = [
        {"arm": "seed", "code": None, "status": "no_code", "speedup": None},
        {"arm": "seed", "code": "x", "status": "wrong_output", "speedup": None},
        {"arm": "mined", "code": "x", "status": "verified", "speedup": 0.5},
        {"arm": "mined", "code": "x", "status": "verified", "speedup": 12.0},
    ]
    assert summary(rows) == {
        "seed": {"tasks": 2, "code": 1, "verified": 0, "faster": 0},
        "mined": {"tasks": 2, "code": 2, "verified": 2, "faster": 1},
    }


def test_per_family_keeps_the_first_tasks_of_each_family_in_order() -> None:
    tasks = [t for t in load_manifest(MANIFEST) if t.split == "test"][:12]
    pairs = [(t, t.task()) for t in tasks]
    kept = [t.name for t, _ in per_family(pairs, 1)]
    assert len(kept) == len({t.family for t in tasks})
    assert kept == [t.name for t in tasks if t.name in kept]
