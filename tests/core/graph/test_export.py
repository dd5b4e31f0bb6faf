from __future__ import annotations

import json

from regrapht_core.graph.export import EXPORTERS, to_dot, to_json, to_mermaid
from regrapht_core.graph.merge import build_graph
from tests.core.graph.factories import trajectory

GRAPH = build_graph(
    [
        trajectory("saxpy", ["parallelization", "unroll"]),
        trajectory("sum", ["parallelization", "unroll", "unroll"]),
        trajectory("new", ["cooperative groups"]),
    ],
    allow_new=True,
)


def test_json_holds_every_node_edge_and_example() -> None:
    document = json.loads(to_json(GRAPH))
    nodes = {node["id"]: node for node in document["nodes"]}
    assert set(nodes) == set(GRAPH.nodes)
    assert nodes["loop_unrolling"]["name"] == "Loop unrolling"
    assert nodes["cooperative_groups"]["description"] is None
    edges = {(e["from"], e["to"]): e["examples"] for e in document["edges"]}
    assert set(edges) == set(GRAPH.edges)
    assert [e["task"] for e in edges["parallelization", "loop_unrolling"]] == ["saxpy", "sum"]
    first = edges["sequential", "parallelization"][0]
    assert first["before"] == "void saxpy(float* x) { x[0] = 0; }"


def test_dot_labels_nodes_by_name_and_edges_by_example_count() -> None:
    dot = to_dot(GRAPH)
    assert dot.startswith("digraph regraph {")
    assert '"loop_unrolling" [label="Loop unrolling"];' in dot
    assert '"sequential" -> "parallelization" [label=2];' in dot
    assert '"loop_unrolling" -> "loop_unrolling" [label=1];' in dot


def test_mermaid_prefixes_ids_and_counts_examples() -> None:
    mermaid = to_mermaid(GRAPH).splitlines()
    assert mermaid[0] == "flowchart LR"
    assert '  n_parallelization["Parallelization"]' in mermaid
    assert "  n_sequential -->|2| n_parallelization" in mermaid
    assert len(mermaid) == 1 + GRAPH.node_count + GRAPH.edge_count


def test_exports_are_deterministic_and_registered() -> None:
    again = build_graph(
        [
            trajectory("new", ["cooperative groups"]),
            trajectory("sum", ["parallelization", "unroll", "unroll"]),
            trajectory("saxpy", ["parallelization", "unroll"]),
        ],
        allow_new=True,
    )
    for name, export in EXPORTERS.items():
        assert export(again) == export(GRAPH), name
    assert set(EXPORTERS) == {"json", "dot", "mermaid"}
