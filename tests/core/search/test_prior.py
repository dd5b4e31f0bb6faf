"""The graph as prior: what similar code gained from a step, as a starting value the
search's data outweighs."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest

from regrapht_core.datatypes import EdgeExample
from regrapht_core.search.prior import GAIN_NOISE, NO_PRIOR, EdgePrior, Priors

Edges = Mapping[tuple[str, str], Sequence[EdgeExample]]


class Graph:
    def __init__(self, stored: Edges) -> None:
        self.stored = stored

    def successors(self, node: str) -> Sequence[str]:
        return sorted(v for u, v in self.stored if u == node)

    def predecessors(self, node: str) -> Sequence[str]:
        return sorted(u for u, v in self.stored if v == node)

    def examples(self, u: str, v: str) -> Sequence[EdgeExample]:
        return self.stored.get((u, v), ())


def step(task: str, before: str, after: str, speedup: float | None) -> EdgeExample:
    return EdgeExample(task, "", "", before, after, speedup=speedup, verified_on="H100")


STENCIL = "for (int i = 1; i < n - 1; ++i) out[i] = in[i - 1] + in[i] + in[i + 1];"
MAP = "for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];"


def priors(stored: Edges, *, cap: int = 2, neighbours: int = 1) -> Priors:
    return Priors(Graph(stored), cap=cap, neighbours=neighbours)


def test_a_step_is_judged_by_its_gain_over_the_code_it_started_from() -> None:
    """A later step's example measures its whole path; the prior reads what the step added."""
    stored = {
        ("sequential", "P"): [step("t", "serial", "kernel", 400.0)],
        ("P", "T"): [step("t", "kernel", "tiled", 800.0)],
    }
    prior = priors(stored).of("kernel", 10.0, "P", "T")
    assert prior.gain == pytest.approx(2.0)
    assert prior.value == pytest.approx(20.0)  # the state's 10x, doubled, as paper Eq. 3


def test_a_step_is_worth_what_its_path_reached_after_it() -> None:
    """Timed end to end, a first port is often slower than the loop (the copies) and the
    step after it is not: the port is still the step to take."""
    stored = {
        ("sequential", "P"): [step("t", "serial", "kernel", 0.9)],
        ("P", "T"): [step("t", "kernel", "resident", 6.0)],
        ("P", "F"): [step("t", "kernel", "fast", 0.8)],
    }
    port = priors(stored).of("serial", 1.0, "sequential", "P")
    assert port.gain == pytest.approx(6.0) and port.promising
    assert priors(stored).of("kernel", 0.9, "P", "F").gain == pytest.approx(0.8 / 0.9)


def test_the_examples_most_like_the_states_code_decide() -> None:
    """One technique gains on one kind of code and not on another: the nearest decide."""
    stored = {
        ("P", "L"): [
            step("stencil", STENCIL, "stencil tuned", 1.8),
            step("map", MAP, "map tuned", 0.8),
        ]
    }
    assert priors(stored).of(STENCIL.replace("out", "res"), 1.0, "P", "L").gain == 1.8
    assert priors(stored).of(MAP.replace("y[i]", "z[i]"), 1.0, "P", "L").gain == 0.8
    both = priors(stored, neighbours=2).of(MAP, 1.0, "P", "L")
    assert both.gain == pytest.approx(math.sqrt(1.8 * 0.8))  # geometric mean
    assert (both.weight, both.examples) == (2, 2)


HISTOGRAM = "for (int i = 0; i < n; ++i) h[x[i]] += 1;"


def test_a_step_only_unlike_code_took_has_no_evidence_here() -> None:
    """Read per step, an edge's few examples predict their gain for any code: with the
    mined corpus the model was asked to privatize a running product, because privatization's
    six examples (histograms) gained as much as parallelization's thousand."""
    stored = {
        ("sequential", "P"): [step("map", MAP, "map kernel", 100.0)],
        ("sequential", "V"): [step("hist", HISTOGRAM, "private bins", 120.0)],
    }
    near_map = MAP.replace("a * x[i]", "x[i] * x[i]")
    assert priors(stored).of(near_map, 1.0, "sequential", "P").gain == pytest.approx(100.0)
    assert priors(stored).of(near_map, 1.0, "sequential", "V") == EdgePrior(examples=1)
    assert priors(stored).of(HISTOGRAM, 1.0, "sequential", "V").gain == pytest.approx(120.0)


def test_unmeasured_steps_and_a_zero_cap_give_no_value() -> None:
    stored = {("P", "L"): [step("t", MAP, "x", None)], ("P", "M"): [step("t", MAP, "y", 2.0)]}
    assert priors(stored).of(MAP, 1.0, "P", "L") == EdgePrior(examples=1)
    assert priors(stored, cap=0).of(MAP, 1.0, "P", "M") == EdgePrior(examples=1)
    # a step after an unmeasured one has no known start: its gain is unknown too
    chained = {
        ("sequential", "P"): [step("t", "s", MAP, None)],
        ("P", "M"): [step("t", MAP, "y", 2.0)],
    }
    assert priors(chained).of(MAP, 1.0, "P", "M").gain is None


def test_the_cap_bounds_how_many_visits_the_prior_is_worth() -> None:
    prior = EdgePrior(value=3.0, gain=3.0, weight=2, examples=10)
    assert prior.blend(-1.0, 0) == 3.0
    assert prior.blend(-1.0, 2) == 1.0
    assert abs(prior.blend(-1.0, 200) - (-1.0)) < 0.05  # the search's own results win
    assert NO_PRIOR.blend(0.7, 3) == 0.7


def test_rank_puts_gains_first_then_the_unknown_then_what_gained_nothing() -> None:
    gains = EdgePrior(value=1.3, gain=1.3, weight=1, examples=1)
    unknown = EdgePrior(examples=9)
    neutral = EdgePrior(value=1.0, gain=1.0, weight=2, examples=2)
    loses = EdgePrior(value=-0.2, gain=0.8, weight=2, examples=2)
    assert gains.rank() > unknown.rank() > NO_PRIOR.rank() > neutral.rank() > loses.rank()


def test_only_a_gain_beyond_timing_noise_or_no_evidence_is_promising() -> None:
    assert NO_PRIOR.promising
    assert EdgePrior(value=1.2, gain=1.0 + 2 * GAIN_NOISE, weight=1).promising
    assert not EdgePrior(value=1.0, gain=1.0 + GAIN_NOISE / 2, weight=1).promising
    assert not EdgePrior(value=-0.5, gain=0.5, weight=1).promising
