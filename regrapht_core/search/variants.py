"""Which variant of a step to try first: what the graph's examples measured for each of a
step's variants on the code most like the state's.

A proposer may offer several variants of one step (a row shared by a block, by a warp or
left to one thread; a 2-D or a 1-D mapping; a register-blocked, a tiled or a plain matrix
product) and hands them out in a fixed order, one per request. Which one is fastest
depends on the code: the mining measured a 1-D stencil of a run-time radius
(``stencil1d_radius_interior_f32_ptr``) 81x faster with a thread per output than with the
block of 128 threads per output that the row rewriter offers first, and a row norm
(``rows_l2norm_f32_ptr``) 6x faster the other way round
(``benchmarks/results/cpu-variant-order-*.json``). A search whose budget allows one
variant of the first step (the variants after the first come only from progressive
widening) keeps the fixed order's first, so that knowledge only reaches it through the
order: the examples of the step from the ``before`` codes nearest to the state's (BM25, as
``search.prior`` reads them, at most ``neighbours`` and none less than half as alike as the
nearest, ``NEAR``) that measured at least two of the variants offered, and each variant's
strength fitted to all of them at once (``_strengths``). Variants are told apart by their
descriptions (a rewriter's candidate description, stored as the example's ``think``), with
the names of the code's variables left out. A variant without such evidence counts as
average, and evidence within timing noise as none, so the fixed order stands wherever the
graph has nothing to say -- as it has with the seed graph, whose examples measured one
variant per step. Left one train task out, the order put a better first variant forward
on 20 of 125 train tasks and a worse one on 6 (``benchmarks/variant_order.py``).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from collections.abc import Sequence

from regrapht_core.errors import GraphError
from regrapht_core.search.config import GraphView
from regrapht_core.search.prior import GAIN_NOISE
from regrapht_core.similarity import BM25Index, tokenize

__all__ = ["NEAR", "VariantPrior", "variant_kind"]

_FIT_ROUNDS = 50
"""Alternating-means rounds of the strength fit: a handful of variants on a handful of
codes settle in far fewer."""

_NAME = re.compile(r"`[^`]*`")

NEAR = 0.5
"""A ``before`` code counts only if it scores at least this fraction of the nearest one's
BM25 score: a row reduction's nearest codes are row reductions, and a 1-D stencil half as
similar, whose variants rank the other way round by a factor of 70, would outvote them."""


def variant_kind(description: str) -> str:
    """What a description says of its variant, without the code's own names: ``shared each
    row of the loop over `i` among a block of 128 threads`` and the same over `r` are one
    variant, on two codes."""
    return " ".join(_NAME.sub("`_`", description).split())


class VariantPrior:
    """The variant order of one graph, each edge's measured variants read once; ``enabled``
    false (the search's ``prior_weight`` of 0, which ignores measurements) keeps every
    proposer's own order."""

    def __init__(self, graph: GraphView, *, neighbours: int, enabled: bool = True) -> None:
        self._graph, self._neighbours, self._enabled = graph, neighbours, enabled
        self._edges: dict[tuple[str, str], dict[str, dict[str, list[float]]]] = {}

    def order(self, source: str, target: str, code: str, descriptions: Sequence[str]) -> list[int]:
        """The indices of ``descriptions`` (the variants of ``source → target`` offered for
        ``code``, in the proposer's order), best predicted first; the proposer's order
        among equals."""
        scores = self.scores(source, target, code, descriptions)
        noise = math.log1p(GAIN_NOISE)

        def key(index: int) -> float:
            score = scores[index]
            return 0.0 if score is None or abs(score) <= noise else -score

        return sorted(range(len(descriptions)), key=key)

    def scores(
        self, source: str, target: str, code: str, descriptions: Sequence[str]
    ) -> list[float | None]:
        """Each variant's log speedup relative to the others (``_strengths``) over the
        nearest ``before`` codes that compared it; ``None`` where none did."""
        kinds = [variant_kind(d) for d in descriptions]
        if not self._enabled or len(set(kinds)) < 2:
            return [None] * len(kinds)
        offered = set(kinds)
        compared = {
            before: logs
            for before, logs in self._measured(source, target).items()
            if len(offered & logs.keys()) >= 2
        }
        if not compared:
            return [None] * len(kinds)
        befores = sorted(compared)
        ranks = BM25Index([tokenize(b) for b in befores]).scores(tokenize(code))
        nearest = sorted(range(len(befores)), key=lambda i: (-ranks[i], befores[i]))
        nearest = nearest[: self._neighbours]
        near = [i for i in nearest if ranks[i] >= NEAR * ranks[nearest[0]]]
        tables = [
            {
                kind: statistics.fmean(logs)
                for kind, logs in compared[befores[i]].items()
                if kind in offered
            }
            for i in near
        ]
        strength = _strengths(tables)
        return [strength.get(k) for k in kinds]

    def _measured(self, source: str, target: str) -> dict[str, dict[str, list[float]]]:
        """``before`` → variant → the log speedups measured for it, where a ``before``
        measured at least two variants."""
        if (source, target) not in self._edges:
            table: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
            try:
                examples = self._graph.examples(source, target)
            except GraphError:  # a step off the graph's edges (a proposer asked directly)
                examples = ()
            for example in examples:
                if example.speedup is not None and example.speedup > 0:
                    table[example.before][variant_kind(example.think)].append(
                        math.log(example.speedup)
                    )
            self._edges[source, target] = {
                before: dict(logs) for before, logs in table.items() if len(logs) >= 2
            }
        return self._edges[source, target]


def _strengths(tables: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each variant's log speedup relative to the others, fitted to every ``before``'s
    measured variants at once (least squares of ``log speedup = offset of the before +
    strength of the variant``, by alternating means; centred on 0). A mean relative to
    the variants measured beside it would not do: a 2-D mapping measured against a
    register-blocked product on two gemms and against a 1-D mapping 70x slower on three
    would come out far above the blocked product it lost to."""
    kinds = sorted({kind for table in tables for kind in table})
    strength = dict.fromkeys(kinds, 0.0)
    for _ in range(_FIT_ROUNDS):
        offsets = [statistics.fmean(v - strength[k] for k, v in table.items()) for table in tables]
        strength = {
            kind: statistics.fmean(
                table[kind] - offset
                for table, offset in zip(tables, offsets, strict=True)
                if kind in table
            )
            for kind in kinds
        }
        centre = statistics.fmean(strength.values()) if strength else 0.0
        strength = {kind: value - centre for kind, value in strength.items()}
    return strength
