"""The graph as prior: what the examples on an edge say about taking that step from *this*
code, before the search has tried it.

An example shows a step its task took: the code before it, the code after it and the
speedup measured for ``after``. What the step itself gained is that speedup over the one
measured for ``before`` (the ``after`` of the step before it in the same task, found on an
edge into the step's source technique; the task's own code, at 1.0, where there is none).
One technique gains very different amounts on different code: in the H100 mining records of
the train split (``graph_snapshots/mined/records``), launch configuration over the
parallelization it followed gained a median 1.86x on 9 dense gemm candidates and 0.82x on 17
integer-map ones, and two thirds of all later steps gained nothing (docs/graph.md). An edge's
average therefore says little about a given state, and an absolute speedup (what the prior
read before) mostly says how well the task parallelized.

So a state's prior for a step reads what the code most like the state's did: the
``neighbours`` distinct ``before`` codes nearest to it (BM25 over code tokens,
``regrapht_core.similarity``) among every measured step from the state's technique, and of
those the ones that took this step; it predicts the state's speedup times their
geometric-mean gain. A step none of them took has no evidence here, however much it gained
on other code: with the mined corpus, sequential → privatization has six examples, all
histograms, and read per step they predicted a running product (no histogram) the same
100x as parallelization's thousand, so the model was asked to privatize it.
The prior orders the steps a state tries first; a state's first batch holds the steps
predicted to gain beyond timing noise and the steps never measured, and leaves those
predicted to gain nothing for later, so a small budget goes deeper along steps that paid
off on similar code instead of re-timing neutral ones. Its value, the reward of the
predicted speedup (paper Eq. 3, the scale of the search's Q), starts the rollout policy's
transition values, where ``weight`` measured examples count as that many visits: the
search's own results soon outweigh them (``SearchConfig.prior_weight``).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass

from regrapht_core.contracts.evaluation import speedup_reward
from regrapht_core.search.config import GraphView, Measured
from regrapht_core.similarity import BM25Index, tokenize

__all__ = ["GAIN_NOISE", "NO_PRIOR", "EdgePrior", "Priors"]

GAIN_NOISE = 0.05
"""A gain within this fraction of 1 is no gain: timing two equal kernels on the H100 differs
by about this much from run to run (docs/mining.md, the paired graph comparison)."""


@dataclass(frozen=True, slots=True)
class EdgePrior:
    value: float | None = None
    """The reward of the predicted speedup after the step; ``None`` when nothing was measured."""
    gain: float | None = None
    """The predicted speedup of the step over the state: the similar examples' geometric mean."""
    weight: int = 0
    """Measured examples read, as pseudo-visits (at most the search's cap)."""
    examples: int = 0
    """All the edge's examples, measured or not."""

    @property
    def promising(self) -> bool:
        """Worth a place in a state's first batch: similar code gained from the step beyond
        timing noise, or the step was never measured (only trying it tells)."""
        return self.gain is None or self.gain > 1.0 + GAIN_NOISE

    def rank(self) -> tuple[bool, float, int, int]:
        """Sort key, best first when reversed: promising steps first, then the predicted
        gain (an unmeasured step's counts as 1), then the evidence behind it, then how
        often the step was taken at all. So a step measured to gain comes before one never
        measured, and that before one measured to gain nothing."""
        gain = 1.0 if self.gain is None else self.gain
        return (self.promising, gain, self.weight, self.examples)

    def blend(self, value: float, visits: int) -> float:
        """The transition value with this prior as ``weight`` pseudo-visits."""
        if not self.weight or self.value is None:
            return value
        return (self.weight * self.value + visits * value) / (self.weight + visits)


NO_PRIOR = EdgePrior()


@dataclass(frozen=True, slots=True)
class _Edge:
    """One edge's measured steps, grouped by their ``before`` code."""

    befores: tuple[str, ...]
    log_gains: tuple[tuple[float, ...], ...]
    """Per ``before``: the log gains of the steps taken from it."""
    examples: int


class Priors:
    """The priors of one search: each edge's steps read once, each technique's measured
    ``before`` codes indexed once, each state's nearest of them found once; ``cap`` bounds
    the pseudo-visits (0 ignores measurements)."""

    def __init__(self, graph: GraphView, *, cap: int, neighbours: int) -> None:
        self._graph, self._cap, self._neighbours = graph, cap, neighbours
        self._edges: dict[tuple[str, str], _Edge] = {}
        self._sources: dict[str, tuple[tuple[str, ...], BM25Index]] = {}
        self._near: dict[tuple[str, str], frozenset[str]] = {}
        self._reached: dict[str, dict[tuple[str, str], float | None]] = {}
        self._best: dict[tuple[str, str, str], float | None] = {}
        self._from: dict[str, dict[tuple[str, str], list[tuple[str, Measured]]]] = {}

    def of(self, code: str, speedup: float, source: str, target: str) -> EdgePrior:
        """The prior of ``source → target`` from a state with ``code`` at ``speedup``."""
        edge = self._edge(source, target)
        if not edge.befores or not self._cap:
            return EdgePrior(examples=edge.examples)
        near = self._nearest(source, code)
        nearest = [
            logs
            for before, logs in zip(edge.befores, edge.log_gains, strict=True)
            if before in near
        ]
        if not nearest:
            return EdgePrior(examples=edge.examples)
        gain = math.exp(statistics.fmean(statistics.fmean(logs) for logs in nearest))
        read = sum(len(logs) for logs in nearest)
        return EdgePrior(speedup_reward(speedup * gain), gain, min(read, self._cap), edge.examples)

    def _nearest(self, source: str, code: str) -> frozenset[str]:
        """The ``neighbours`` measured ``before`` codes most like ``code`` among the steps
        from ``source``, whichever step each took."""
        if (source, code) not in self._near:
            if source not in self._sources:
                befores = tuple(
                    sorted(
                        {
                            b
                            for t in self._graph.successors(source)
                            for b in self._edge(source, t).befores
                        }
                    )
                )
                self._sources[source] = befores, BM25Index([tokenize(b) for b in befores])
            befores, index = self._sources[source]
            scores = index.scores(tokenize(code))
            ranked = sorted(range(len(befores)), key=lambda i: (-scores[i], befores[i]))
            self._near[source, code] = frozenset(befores[i] for i in ranked[: self._neighbours])
        return self._near[source, code]

    def _edge(self, source: str, target: str) -> _Edge:
        if (source, target) not in self._edges:
            examples = self._graph.examples(source, target)
            reached = self._reached_at(source)
            gains: dict[str, list[float]] = defaultdict(list)
            for example in examples:
                start = reached.get((example.task, example.before), 1.0)
                best = self._best_from(target, example.task, example.after, example.speedup)
                if best is not None and start is not None and best > 0 and start > 0:
                    gains[example.before].append(math.log(best / start))
            befores = tuple(sorted(gains))
            self._edges[source, target] = _Edge(
                befores,
                tuple(tuple(gains[b]) for b in befores),
                len(examples),
            )
        return self._edges[source, target]

    def _reached_at(self, technique: str) -> dict[tuple[str, str], float | None]:
        """(task, code) → speedup of every example's ``after`` on an edge into ``technique``:
        where the steps from ``technique`` began."""
        if technique not in self._reached:
            self._reached[technique] = {
                (example.task, example.after): example.speedup
                for u in self._graph.predecessors(technique)
                for example in self._graph.examples(u, technique)
            }
        return self._reached[technique]

    def _best_from(
        self,
        technique: str,
        task: str,
        code: str,
        speedup: float | None,
        seen: frozenset[str] = frozenset(),
    ) -> float | None:
        """The best speedup ``task``'s paths reached from ``code`` (at ``technique``, itself
        at ``speedup``) onwards: a step's worth is also what it led to, as the search backs
        up the best reward of a rollout (parallelization timed end to end is often slower
        than the loop, and what follows it is not). ``None`` where nothing was measured."""
        key = (technique, task, code)
        if key not in self._best:
            best = speedup
            for target, example in self._steps_from(technique).get((task, code), ()):
                if example.after in seen:
                    continue
                later = self._best_from(target, task, example.after, example.speedup, seen | {code})
                if later is not None and (best is None or later > best):
                    best = later
            self._best[key] = best
        return self._best[key]

    def _steps_from(self, technique: str) -> dict[tuple[str, str], list[tuple[str, Measured]]]:
        """(task, code) → the steps taken from it at ``technique``, each with its target."""
        if technique not in self._from:
            steps: dict[tuple[str, str], list[tuple[str, Measured]]] = defaultdict(list)
            for target in self._graph.successors(technique):
                for example in self._graph.examples(technique, target):
                    steps[example.task, example.before].append((target, example))
            self._from[technique] = steps
        return self._from[technique]
