from __future__ import annotations

import pytest

from regrapht_core.datatypes import EdgeExample
from regrapht_core.errors import GraphError
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.retrieval import rank_all_examples, rank_examples, rank_step_examples
from regrapht_core.graph.taxonomy import SEQUENTIAL

MATMUL = "void matmul(const float* A, const float* B, float* C, int n) { C[i*n+j] += A[i*n+k]; }"
SAXPY = "void saxpy(int n, float a, const float* x, float* y) { y[i] = a * x[i] + y[i]; }"
HISTO = "void histogram(const int* data, int* bins, int n) { bins[data[i]]++; }"


def example(task: str, before: str) -> EdgeExample:
    return EdgeExample(task, "think", "detail", before, f"// {task} cuda", None, None)


def graph_with(*examples: EdgeExample) -> ReGraph:
    graph = ReGraph()
    for e in examples:
        graph.add_example(SEQUENTIAL, "parallelization", e)
    return graph


def test_examples_are_ranked_by_similarity_of_their_before_code() -> None:
    graph = graph_with(example("matmul", MATMUL), example("saxpy", SAXPY), example("h", HISTO))
    query = "void histogram_u8(const unsigned char* data, int* bins, int n) { bins[data[i]]++; }"
    ranked = rank_examples(graph, SEQUENTIAL, "parallelization", query)
    assert [e.task for e in ranked] == ["h", "matmul", "saxpy"]
    assert rank_examples(graph, SEQUENTIAL, "parallelization", query, limit=1) == ranked[:1]


def test_ties_are_broken_canonically_whatever_the_merge_order() -> None:
    a, b, c = example("b", SAXPY), example("a", MATMUL), example("c", HISTO)
    first = rank_examples(graph_with(a, b, c), SEQUENTIAL, "parallelization", "unrelated")
    second = rank_examples(graph_with(c, a, b), SEQUENTIAL, "parallelization", "unrelated")
    assert [e.task for e in first] == [e.task for e in second] == ["a", "b", "c"]


def test_missing_edge_is_a_graph_error() -> None:
    with pytest.raises(GraphError, match="no transition"):
        rank_examples(ReGraph(), SEQUENTIAL, "atomics", SAXPY)


def graph_into(technique: str, edges: dict[str, list[EdgeExample]]) -> ReGraph:
    """A graph whose edges from each key of ``edges`` into ``technique`` hold its examples."""
    graph = ReGraph()
    for node in [*edges, technique]:
        graph.add_node(node)
    graph.add_edges((node, technique, examples) for node, examples in edges.items())
    return graph


def test_a_step_shows_its_edges_examples_first_then_the_techniques_from_other_edges() -> None:
    graph = graph_into(
        "shared_memory_tiling",
        {
            "parallelization": [example("saxpy", SAXPY)],
            "read_only_cache": [example("matmul", MATMUL), example("h", HISTO)],
        },
    )
    ranked = rank_step_examples(graph, "parallelization", "shared_memory_tiling", HISTO, limit=2)
    assert [e.task for e in ranked] == ["saxpy", "h"]  # own edge, then the nearest other
    only = rank_step_examples(graph, "parallelization", "shared_memory_tiling", HISTO, limit=1)
    assert [e.task for e in only] == ["saxpy"]


def test_an_edge_without_examples_falls_back_to_the_nearest_into_its_technique() -> None:
    graph = graph_into(
        "atomics",
        {SEQUENTIAL: [], "a": [example("saxpy", SAXPY)], "b": [example("h", HISTO)]},
    )
    graph.add_example(SEQUENTIAL, "parallelization", example("matmul", MATMUL))
    for node in (SEQUENTIAL, "parallelization"):  # an empty edge, and no edge at all
        ranked = rank_step_examples(graph, node, "atomics", HISTO, limit=5)
        assert [e.task for e in ranked] == ["h", "saxpy"]  # never another technique's


def test_a_technique_without_examples_gets_the_graphs_nearest() -> None:
    graph = graph_with(example("matmul", MATMUL), example("h", HISTO))
    graph.add_node("loop_unrolling")
    graph.add_edges([("parallelization", "loop_unrolling", [])])
    for technique in ("loop_unrolling", "not_in_the_graph"):
        ranked = rank_step_examples(graph, "parallelization", technique, HISTO, limit=1)
        assert ranked == rank_all_examples(graph, HISTO, limit=1)
        assert [e.task for e in ranked] == ["h"]


def test_one_example_per_before_code_the_fastest_of_them() -> None:
    """Mined paths of one task share their first step's source: a prompt with room for two
    examples shows two sources, not one source twice."""

    def timed(task: str, before: str, speedup: float) -> EdgeExample:
        return EdgeExample(task, "t", "d", before, f"// {task}", speedup)

    graph = graph_with(
        timed("h", HISTO, 2.0), timed("h.path2", HISTO, 9.0), timed("saxpy", SAXPY, 3.0)
    )
    ranked = rank_step_examples(graph, SEQUENTIAL, "parallelization", HISTO, limit=2)
    assert [e.task for e in ranked] == ["h.path2", "saxpy"]
    assert [e.task for e in rank_examples(graph, SEQUENTIAL, "parallelization", HISTO)] == [
        "h.path2",
        "saxpy",
    ]
