"""Pick the edge examples whose ``before`` code looks most like the code being optimized.

Ranking is Okapi BM25 over code tokens, written out here rather than taken from a library:
an edge holds a handful of examples, so building an index (or a numpy matrix) costs more
than scoring the few documents directly, and owning the tokenizer and the tie-break keeps
the ranking identical across machines, which replayable searches need.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from regrapht_core.datatypes import EdgeExample
from regrapht_core.graph.model import ReGraph, example_sort_key

__all__ = [
    "BM25_B",
    "BM25_K1",
    "BM25Index",
    "bm25_scores",
    "rank_all_examples",
    "rank_examples",
    "rank_step_examples",
    "tokenize",
]

BM25_K1 = 1.2
"""Term-frequency saturation; the usual default, code repeats identifiers a lot."""
BM25_B = 0.75
"""Length normalisation; the usual default."""

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|<<<|>>>")


def tokenize(code: str) -> list[str]:
    """Identifiers, keywords, numbers and launch brackets: what distinguishes two kernels.

    Other punctuation is dropped: every C file is full of it, so it only adds noise.
    """
    return _TOKEN.findall(code)


class BM25Index:
    """Okapi BM25 over a fixed set of tokenized documents, their statistics counted once: the
    search scores every state's code against the same edge's examples again and again
    (``search.prior``)."""

    __slots__ = ("_frequencies", "_idf", "_norms")

    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        count = len(documents)
        average = sum(len(doc) for doc in documents) / (count or 1) or 1.0
        self._frequencies = [Counter(doc) for doc in documents]
        document_frequency: Counter[str] = Counter()
        for freq in self._frequencies:
            document_frequency.update(freq.keys())
        self._idf = {
            term: math.log(1 + (count - df + 0.5) / (df + 0.5))
            for term, df in document_frequency.items()
        }
        self._norms = [BM25_K1 * (1 - BM25_B + BM25_B * len(doc) / average) for doc in documents]

    def scores(self, query: Sequence[str]) -> list[float]:
        """Each document's score for ``query`` (Lucene's non-negative IDF), in order."""
        terms = [
            (term, repeats, self._idf[term])
            for term, repeats in Counter(query).items()
            if term in self._idf
        ]
        scores = []
        for freq, norm in zip(self._frequencies, self._norms, strict=True):
            score = 0.0
            for term, repeats, idf in terms:
                tf = freq.get(term, 0)
                if tf:
                    score += repeats * idf * tf * (BM25_K1 + 1) / (tf + norm)
            scores.append(score)
        return scores


def bm25_scores(query: Sequence[str], documents: Sequence[Sequence[str]]) -> list[float]:
    """BM25 score of each tokenized document for ``query`` (Lucene's non-negative IDF)."""
    return BM25Index(documents).scores(query)


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
