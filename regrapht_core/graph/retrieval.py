"""Pick the edge examples whose ``before`` code looks most like the code being optimized
(Okapi BM25 over code tokens, ``regrapht_core.similarity``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from regrapht_core.datatypes import EdgeExample
from regrapht_core.graph.model import ReGraph, example_sort_key
from regrapht_core.similarity import bm25_scores, tokenize

__all__ = ["rank_all_examples", "rank_examples", "rank_step_examples"]


def rank_examples(
    graph: ReGraph, node: str, candidate: str, code: str, *, limit: int | None = None
) -> tuple[EdgeExample, ...]:
    """Examples of ``node`` → ``candidate``, most similar ``before`` to ``code`` first.

    Equal scores fall back to the canonical example order, so the ranking never depends on
    the order the examples were merged in. Raises ``GraphError`` when there is no such edge.
    """
    return _most_similar(graph.examples(node, candidate), code, limit)


def rank_step_examples(
    graph: ReGraph, node: str, technique: str, code: str, *, limit: int
) -> tuple[EdgeExample, ...]:
    """What to show the model for the step ``node`` → ``technique``, best first.

    The edge's own examples, most similar first; then, where it has fewer than ``limit``,
    those of the other edges into ``technique`` (the same technique applied after another
    one), most similar first; only when no edge into ``technique`` has any, the most
    similar of the whole graph. A small model follows a shown example far better than a
    description, so every step it takes gets one where the graph has any.
    """
    own = rank_examples(graph, node, technique, code) if graph.has_edge(node, technique) else ()
    into = graph.predecessors(technique) if graph.has_node(technique) else ()
    others = [e for u in into if u != node for e in graph.examples(u, technique)]
    ranked = _distinct((*own, *_most_similar(others, code, None)), limit)
    return ranked or rank_all_examples(graph, code, limit=limit)


def rank_all_examples(graph: ReGraph, code: str, *, limit: int) -> tuple[EdgeExample, ...]:
    """Examples from every edge, most similar ``before`` first: code-RAG without the graph."""
    examples = [example for u, v in graph.edges for example in graph.examples(u, v)]
    return _most_similar(examples, code, limit)


def _most_similar(
    examples: Sequence[EdgeExample], code: str, limit: int | None
) -> tuple[EdgeExample, ...]:
    """Most similar ``before`` first, one example per ``before`` code: several mined paths
    of one task share their first step's source, and two copies of it in a two-example
    prompt showed the model one task twice (10 of 11 prompts,
    ``benchmarks/results/gpu-h100-model-examples.json``). Of those, the fastest is kept."""
    scores = bm25_scores(tokenize(code), [tokenize(example.before) for example in examples])
    ranked = sorted(
        zip(scores, examples, strict=True),
        key=lambda pair: (-pair[0], -(pair[1].speedup or 0.0), example_sort_key(pair[1])),
    )
    return _distinct((example for _, example in ranked), limit)


def _distinct(ranked: Iterable[EdgeExample], limit: int | None) -> tuple[EdgeExample, ...]:
    """The first example of each ``before`` code, at most ``limit`` of them."""
    seen: set[str] = set()
    kept: list[EdgeExample] = []
    for example in ranked:
        if limit is not None and len(kept) == limit:
            break
        if example.before not in seen:
            seen.add(example.before)
            kept.append(example)
    return tuple(kept)
