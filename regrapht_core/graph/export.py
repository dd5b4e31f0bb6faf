"""Render a ReGraph for people and other tools: JSON (everything), DOT and Mermaid (shape).

The diagram formats label edges with example counts only: the code would make them
unreadable, and the JSON export is there for anyone who needs it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import MappingProxyType

from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.taxonomy import display_name, technique

__all__ = ["EXPORTERS", "to_dot", "to_json", "to_mermaid"]


def to_json(graph: ReGraph) -> str:
    nodes, edges = graph.canonical()
    document = {
        "nodes": [
            {
                "id": node,
                "name": display_name(node),
                "description": known.description if (known := technique(node)) else None,
            }
            for node in nodes
        ],
        "edges": [
            {
                "from": u,
                "to": v,
                "examples": [
                    {
                        "task": e.task,
                        "think": e.think,
                        "detail": e.detail,
                        "before": e.before,
                        "after": e.after,
                        "speedup": e.speedup,
                        "verified_on": e.verified_on,
                    }
                    for e in examples
                ],
            }
            for u, v, examples in edges
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: ReGraph) -> str:
    lines = ["digraph regraph {", "  rankdir=LR;"]
    lines += [f"  {_dot_quote(n)} [label={_dot_quote(display_name(n))}];" for n in graph.nodes]
    lines += [
        f"  {_dot_quote(u)} -> {_dot_quote(v)} [label={graph.example_count_of(u, v)}];"
        for u, v in graph.edges
    ]
    return "\n".join([*lines, "}"]) + "\n"


def to_mermaid(graph: ReGraph) -> str:
    """Node ids get an ``n_`` prefix: a bare technique slug could be a Mermaid keyword."""
    lines = ["flowchart LR"]
    lines += [f'  n_{n}["{display_name(n).replace(chr(34), "#quot;")}"]' for n in graph.nodes]
    lines += [f"  n_{u} -->|{graph.example_count_of(u, v)}| n_{v}" for u, v in graph.edges]
    return "\n".join(lines) + "\n"


EXPORTERS: Mapping[str, Callable[[ReGraph], str]] = MappingProxyType(
    {"json": to_json, "dot": to_dot, "mermaid": to_mermaid}
)
