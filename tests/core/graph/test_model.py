from __future__ import annotations

import pytest

from regrapht_core.datatypes import EdgeExample
from regrapht_core.errors import GraphError
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.taxonomy import SEQUENTIAL


def example(task: str, before: str = "b", speedup: float | None = None) -> EdgeExample:
    return EdgeExample(task, "think", "detail", before, f"{task} after", speedup, None)


def test_a_new_graph_holds_only_the_initial_node() -> None:
    graph = ReGraph()
    assert graph.nodes == (SEQUENTIAL,)
    assert (graph.node_count, graph.edge_count, graph.example_count) == (1, 0, 0)


def test_add_example_creates_node_and_edge_together_and_counts() -> None:
    graph = ReGraph()
    graph.add_example(SEQUENTIAL, "parallelization", example("a"))
    graph.add_example(SEQUENTIAL, "parallelization", example("b"))
    graph.add_example("parallelization", "parallelization", example("c"))
    assert graph.nodes == ("parallelization", SEQUENTIAL)
    assert graph.edges == (("parallelization", "parallelization"), (SEQUENTIAL, "parallelization"))
    assert [e.task for e in graph.examples(SEQUENTIAL, "parallelization")] == ["a", "b"]
    assert graph.example_count == 3
    assert graph.example_count_of(SEQUENTIAL, "parallelization") == 2
    assert graph.example_count_of("parallelization", SEQUENTIAL) == 0
    assert graph.successors("parallelization") == ("parallelization",)
    assert graph.predecessors("parallelization") == ("parallelization", SEQUENTIAL)


def test_errors_name_the_missing_node_or_edge() -> None:
    graph = ReGraph()
    with pytest.raises(GraphError, match="'nowhere' is not a node"):
        graph.successors("nowhere")
    with pytest.raises(GraphError, match="no transition 'sequential' -> 'atomics'"):
        graph.examples(SEQUENTIAL, "atomics")
    with pytest.raises(GraphError, match="cannot add an edge from 'atomics'"):
        graph.add_example("atomics", "fast_math", example("a"))
    with pytest.raises(GraphError, match="not a valid technique id"):
        graph.add_node("Not A Slug")
    with pytest.raises(GraphError, match="ends outside the graph"):
        graph.add_edges([(SEQUENTIAL, "atomics", [example("a")])])
    graph.add_node("atomics")
    graph.add_edges([(SEQUENTIAL, "atomics", [example("a")])])
    with pytest.raises(GraphError, match="already in the graph"):
        graph.add_edges([(SEQUENTIAL, "atomics", [example("b")])])


def test_equality_ignores_insertion_order_but_not_content() -> None:
    one, two = ReGraph(), ReGraph()
    one.add_example(SEQUENTIAL, "atomics", example("a"))
    one.add_example(SEQUENTIAL, "atomics", example("b", speedup=2.0))
    two.add_example(SEQUENTIAL, "atomics", example("b", speedup=2.0))
    two.add_example(SEQUENTIAL, "atomics", example("a"))
    assert one == two
    two.add_example(SEQUENTIAL, "atomics", example("a"))
    assert one != two
    assert one != "not a graph"


def test_networkx_copy_is_independent() -> None:
    graph = ReGraph()
    graph.add_example(SEQUENTIAL, "atomics", example("a"))
    copy = graph.to_networkx()
    copy.edges[SEQUENTIAL, "atomics"]["examples"].append(example("b"))
    copy.add_node("fast_math")
    assert graph.example_count_of(SEQUENTIAL, "atomics") == 1
    assert not graph.has_node("fast_math")
    assert repr(graph) == "ReGraph(nodes=2, edges=1, examples=1)"


def test_add_edges_is_all_or_nothing_and_later_appends_still_work() -> None:
    graph = ReGraph()
    graph.add_node("atomics")
    with pytest.raises(GraphError, match="given twice"):
        graph.add_edges([(SEQUENTIAL, "atomics", [example("a")])] * 2)
    assert graph.edge_count == 0
    graph.add_edges([(SEQUENTIAL, "atomics", (example("a"),))])
    graph.add_example(SEQUENTIAL, "atomics", example("b"))
    assert [e.task for e in graph.examples(SEQUENTIAL, "atomics")] == ["a", "b"]
    assert graph.example_count == 2
