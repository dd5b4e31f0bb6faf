"""Okapi BM25 over code tokens: how much one piece of code looks like another.

Written out here rather than taken from a library: an edge of the graph holds a handful of
examples, so building an index (or a numpy matrix) for each query costs more than scoring
the few documents directly, and owning the tokenizer and the tie-break keeps the ranking
identical across machines, which replayable searches need. Plain text in, numbers out, so
both the graph's retrieval (examples shown to the model) and the search's prior (examples
that predict a step's gain) use it without knowing of each other.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["BM25_B", "BM25_K1", "BM25Index", "bm25_scores", "tokenize"]

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
