from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrapht_core.datatypes import Trajectory
from regrapht_core.errors import UnknownTechniqueError
from regrapht_core.graph.merge import build_graph, merge_graph, merge_trajectory
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.relabel import relabel
from regrapht_core.graph.taxonomy import SEQUENTIAL
from tests.core.graph.factories import trajectories, trajectory


def test_first_trajectory_records_every_edge_including_those_to_new_nodes() -> None:
    graph = build_graph([trajectory("saxpy", ["parallelization", "grid stride", "float4"])])
    assert graph.edges == (
        ("grid_stride_loop", "vectorized_access"),
        ("parallelization", "grid_stride_loop"),
        (SEQUENTIAL, "parallelization"),
    )
    assert graph.example_count == 3


def test_examples_chain_code_from_the_source_through_each_step() -> None:
    t = trajectory("saxpy", ["parallelization", "smem tiling"])
    graph = build_graph([t])
    (first,) = graph.examples(SEQUENTIAL, "parallelization")
    (second,) = graph.examples("parallelization", "shared_memory_tiling")
    assert (first.before, first.after) == (t.source, t.steps[0].code)
    assert (second.before, second.after) == (t.steps[0].code, t.steps[1].code)
    assert (second.think, second.detail) == ("saxpy think 1", "saxpy detail 1")
    assert second.task == "saxpy"
    assert (second.speedup, second.verified_on) == (2.0, "nvcc test")


def test_reuses_existing_edges_and_adds_edges_to_existing_nodes() -> None:
    graph = build_graph([trajectory("a", ["parallelization", "atomicAdd"])])
    merge_trajectory(graph, trajectory("b", ["parallelization", "atomics"]))
    merge_trajectory(graph, trajectory("c", ["atomics"]))
    assert graph.example_count_of(SEQUENTIAL, "parallelization") == 2
    assert graph.example_count_of("parallelization", "atomics") == 2
    assert graph.example_count_of(SEQUENTIAL, "atomics") == 1
    assert graph.node_count == 3


def test_repeated_techniques_make_self_loops_and_cycles() -> None:
    graph = build_graph([trajectory("a", ["unroll", "unroll", "fast math", "unroll"])])
    assert graph.has_edge("loop_unrolling", "loop_unrolling")
    assert graph.has_edge("fast_math", "loop_unrolling")
    assert graph.successors("loop_unrolling") == ("fast_math", "loop_unrolling")


def test_unknown_technique_leaves_the_graph_untouched() -> None:
    graph = build_graph([trajectory("a", ["parallelization"])])
    before = graph.canonical()
    with pytest.raises(UnknownTechniqueError):
        merge_trajectory(graph, trajectory("b", ["parallelization", "cooperative groups"]))
    assert graph.canonical() == before


def test_allow_new_adds_a_slug_node_with_its_edge() -> None:
    graph = build_graph([trajectory("a", ["cooperative groups"])], allow_new=True)
    assert graph.examples(SEQUENTIAL, "cooperative_groups")[0].task == "a"


@settings(max_examples=60, deadline=None)
@given(trajectories(), st.randoms(use_true_random=False), st.integers(0, 8))
def test_order_and_grouping_do_not_change_the_graph(
    ts: list[Trajectory], rng: random.Random, cut: int
) -> None:
    reference = build_graph(ts)
    shuffled = ts[:]
    rng.shuffle(shuffled)
    assert build_graph(shuffled) == reference
    grouped = build_graph(shuffled[:cut])
    merge_graph(grouped, build_graph(shuffled[cut:]))
    assert grouped == reference
    one_by_one = ReGraph()
    for t in reversed(ts):
        merge_trajectory(one_by_one, t)
    assert one_by_one == reference


@settings(max_examples=60, deadline=None)
@given(trajectories())
def test_every_step_is_an_example_on_exactly_one_edge(ts: list[Trajectory]) -> None:
    graph = build_graph(ts)
    placed = Counter((e.task, e.after, u, v) for u, v in graph.edges for e in graph.examples(u, v))
    expected: Counter[tuple[str, str, str, str]] = Counter()
    for t in ts:
        previous = SEQUENTIAL
        for step in t.steps:
            node = relabel(step.method)
            expected[(t.task, step.code, previous, node)] += 1
            previous = node
    assert placed == expected
    assert graph.example_count == sum(len(t.steps) for t in ts)
