"""The graph as prior: an edge's examples as a starting value the search's data outweighs."""

from __future__ import annotations

from regrapht_core.datatypes import EdgeExample
from regrapht_core.search.prior import NO_PRIOR, edge_prior


def example(speedup: float | None) -> EdgeExample:
    return EdgeExample("t", "", "", "before", "after", speedup=speedup)


def test_measured_examples_give_the_mean_reward_and_unmeasured_ones_only_count() -> None:
    prior = edge_prior([example(4.0), example(0.5), example(None)], cap=5)
    assert prior.value == (4.0 + (0.5 - 1.0)) / 2  # paper Eq. 3 on each
    assert (prior.weight, prior.examples) == (2, 3)
    assert edge_prior([example(None)], cap=5) == edge_prior([example(None)], cap=0)
    assert edge_prior([example(None)], cap=5).weight == 0


def test_the_cap_bounds_how_many_visits_the_prior_is_worth() -> None:
    prior = edge_prior([example(3.0)] * 10, cap=2)
    assert prior.weight == 2
    assert prior.blend(-1.0, 0) == 3.0
    assert prior.blend(-1.0, 2) == 1.0
    assert abs(prior.blend(-1.0, 200) - (-1.0)) < 0.05  # the search's own results win


def test_rank_puts_measured_evidence_before_mere_use() -> None:
    measured = edge_prior([example(1.2)], cap=2)
    used_often = edge_prior([example(None)] * 9, cap=2)
    assert measured.rank() > used_often.rank() > NO_PRIOR.rank()
    assert NO_PRIOR.blend(0.7, 3) == 0.7
