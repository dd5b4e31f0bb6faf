"""Which variant of a step to try first: what the graph's examples measured for each of a
step's variants on the code most like the state's.

A proposer may offer several variants of one step (a row shared by a block, by a warp or
left to one thread; a 2-D or a 1-D mapping; a register-blocked, a tiled or a plain matrix
product) and hands them out in a fixed order, one per request. Which one is fastest
depends on the code: on the train split's mining records (``graph_snapshots/mined``) a
1-D stencil of radius 16 ran 4.7x faster with a thread per output than with a block of 128
threads per output, which the row rewriters offer first, and a CSR product ran faster with
a thread per row than with the warp per row offered first. A search whose budget allows one
variant of the first step (the variants after the first come only from progressive
widening) keeps the fixed order's first, so that knowledge only reaches it through the
order: the examples of the step from the ``neighbours`` ``before`` codes nearest to the
state's (BM25, as ``search.prior`` reads them) that measured at least two of the variants
offered, each variant's log speedup taken relative to the mean of those measured from the
same ``before``. Variants are told apart by their descriptions (a rewriter's candidate
description, stored as the example's ``think``), with the names of the code's variables
left out. A variant without such evidence counts as average, and evidence within timing
noise as none, so the fixed order stands wherever the graph has nothing to say -- as it
has with the seed graph, whose examples measured one variant per step.
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

__all__ = ["VariantPrior", "variant_kind"]

_NAME = re.compile(r"`[^`]*`")


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
        """Each variant's mean log speedup relative to the alternatives measured with it,
        over the nearest ``before`` codes that compared it; ``None`` where none did."""
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
        relative: dict[str, list[float]] = defaultdict(list)
        for i in nearest[: self._neighbours]:
            means = {
                kind: statistics.fmean(logs)
                for kind, logs in compared[befores[i]].items()
                if kind in offered
            }
            centre = statistics.fmean(means.values())
            for kind, mean in means.items():
                relative[kind].append(mean - centre)
        return [statistics.fmean(relative[k]) if relative[k] else None for k in kinds]

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
