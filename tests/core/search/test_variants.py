"""Which variant of a step first: what similar code measured for each variant offered."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.proposal import Proposal, ProposeRequest
from regrapht_core.datatypes import EdgeExample
from regrapht_core.graph.build import build_snapshot
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.optimize.rewriter_proposer import RewriterProposer
from regrapht_core.search.variants import VariantPrior, variant_kind
from tests.core.search.test_prior import Graph

BLOCK = "shared each row of the loop over `i` among a block of 128 threads"
WARP = "shared each row of the loop over `i` among one warp (4 rows per block)"
THREAD = "mapped each iteration of the loop over `i` to one CUDA thread"
STENCIL = (
    "for (int i = r; i < n - r; ++i) { double s = 0;"
    " for (int k = -r; k <= r; ++k) s += x[i + k]; y[i] = s; }"
)
ROWS = (
    "for (int r = 0; r < rows; ++r) { double m = 0;"
    " for (int c = 0; c < cols; ++c) m += a[r * cols + c]; out[r] = m; }"
)
ROOT = Path(__file__).resolve().parents[3]


def variant(before: str, think: str, speedup: float | None, task: str = "t") -> EdgeExample:
    return EdgeExample(task, think, "", before, f"{before} // {think}", speedup, "H100")


def prior(*examples: EdgeExample, neighbours: int = 1) -> VariantPrior:
    return VariantPrior(Graph({("S", "P"): examples}), neighbours=neighbours)


def test_a_variant_is_one_whatever_the_code_names_its_loop() -> None:
    assert variant_kind(BLOCK) == variant_kind(BLOCK.replace("`i`", "`row`"))
    assert variant_kind(BLOCK) != variant_kind(WARP)


def test_the_variant_that_won_on_the_most_similar_code_goes_first() -> None:
    """The nearest code (a stencil) measured a thread per output fastest; a row reduction
    elsewhere measured the block fastest, which does not count for a stencil."""
    graph = prior(
        variant(STENCIL, BLOCK.replace("`i`", "`j`"), 100.0),
        variant(STENCIL, WARP, 200.0),
        variant(STENCIL, THREAD, 400.0),
        variant(ROWS, BLOCK, 800.0, "rows"),
        variant(ROWS, THREAD, 10.0, "rows"),
    )
    code = STENCIL.replace("double", "float")
    assert graph.order("S", "P", code, [BLOCK, WARP, THREAD]) == [2, 1, 0]
    scores = graph.scores("S", "P", code, [BLOCK, WARP, THREAD])
    assert [math.exp(s or 0) for s in scores] == pytest.approx([0.5, 1.0, 2.0])
    rows = ROWS.replace("out", "norm")
    assert graph.order("S", "P", rows, [BLOCK, WARP, THREAD]) == [0, 1, 2]


def test_variants_compared_on_different_codes_are_ranked_together() -> None:
    """Two gemms measured the blocked product ahead of the 2-D mapping, three other codes
    the 2-D mapping 70x ahead of the 1-D one: the blocked product still comes first (a
    mean relative to whatever was measured beside a variant put the 2-D mapping first)."""
    blocked, tiled, two_d, one_d = "blocked in registers", "tiled", "2-D grid", "1-D"
    gemm = "for (i) for (j) { acc = 0; for (k) acc += a[i*n+k] * b[k*n+j]; c[i*n+j] = acc; }"
    examples = [
        variant(gemm, blocked, 3000.0),
        variant(gemm, tiled, 2600.0),
        variant(gemm, two_d, 2000.0),
        variant(gemm + " ", blocked, 1800.0, "u"),
        variant(gemm + " ", two_d, 1200.0, "u"),
    ]
    for k in range(3):
        other = gemm.replace("b[k*n+j]", f"b[j*n+k] /* {k} */")
        examples += [variant(other, two_d, 700.0, f"v{k}"), variant(other, one_d, 10.0, f"v{k}")]
    graph = prior(*examples, neighbours=5)
    offered = [blocked, tiled, two_d, one_d]
    assert graph.order("S", "P", gemm, offered) == [0, 1, 2, 3]
    strengths = graph.scores("S", "P", gemm, offered)
    assert strengths == sorted(strengths, reverse=True)


def test_codes_far_less_alike_than_the_nearest_are_not_read() -> None:
    """A row reduction's nearest code ranks the block first; a stencil, less than half as
    alike, ranks it last by far more: it is not read (``NEAR``)."""
    rows = prior(
        variant(ROWS, BLOCK, 300.0, "rows"),
        variant(ROWS, THREAD, 60.0, "rows"),
        variant("y[i] = x[i-1] + x[i+1];", BLOCK, 20.0),
        variant("y[i] = x[i-1] + x[i+1];", THREAD, 1600.0),
        neighbours=5,
    )
    assert rows.order("S", "P", ROWS, [BLOCK, THREAD]) == [0, 1]


def test_the_proposers_order_stands_without_evidence_beyond_noise() -> None:
    """One variant measured per code (the seed graph's examples), gains within timing noise,
    measurements ignored (``prior_weight`` 0), an unmeasured example: the fixed order."""
    offered = [BLOCK, WARP, THREAD]
    one_each = prior(variant(STENCIL, THREAD, 400.0), variant(ROWS, BLOCK, 10.0, "rows"))
    assert one_each.order("S", "P", STENCIL, offered) == [0, 1, 2]
    level = prior(variant(STENCIL, BLOCK, 100.0), variant(STENCIL, THREAD, 104.0))
    assert level.order("S", "P", STENCIL, offered) == [0, 1, 2]
    examples = (variant(STENCIL, BLOCK, 100.0), variant(STENCIL, THREAD, 400.0))
    ignored = VariantPrior(Graph({("S", "P"): examples}), neighbours=1, enabled=False)
    assert ignored.order("S", "P", STENCIL, offered) == [0, 1, 2]
    unmeasured = prior(variant(STENCIL, BLOCK, None), variant(STENCIL, THREAD, 400.0))
    assert unmeasured.order("S", "P", STENCIL, offered) == [0, 1, 2]


def test_a_variant_never_compared_counts_as_average() -> None:
    """The warp was never measured: it stays between the winner and the loser."""
    graph = prior(variant(STENCIL, BLOCK, 100.0), variant(STENCIL, THREAD, 400.0))
    assert graph.order("S", "P", STENCIL, [BLOCK, WARP, THREAD]) == [2, 1, 0]
    assert graph.scores("S", "P", STENCIL, [BLOCK, WARP, THREAD])[1] is None


def test_a_step_off_the_graphs_edges_keeps_the_proposers_order() -> None:
    """A proposer asked directly for a step the graph lacks: no examples, no error."""
    assert VariantPrior(ReGraph(), neighbours=5).order("S", "P", STENCIL, [BLOCK, THREAD]) == [
        0,
        1,
    ]


def corpus_request(name: str) -> ProposeRequest:
    entry = next(
        e for e in load_manifest(ROOT / "benchmarks/corpus/manifest.toml") if e.name == name
    )
    task = entry.task()
    return ProposeRequest(task, "sequential", "parallelization", task.source)


def test_the_shipped_graph_gives_a_radius_16_stencil_a_thread_per_output_first(
    tmp_path: Path,
) -> None:
    """A test-split task: the row rewriter offers a block of 128 threads per output first,
    which on the train split's stencils of the same family measured a fraction of a thread
    per output; the shipped graph's mined examples say so, the seed's 19 trajectories do
    not, and the proposer hands out the variants in the order its graph predicts."""
    request = corpus_request("stencil1d_movavg_r16_interior_f64_vec")
    shipped = load_snapshot(shipped_snapshot()).graph
    seed = build_snapshot([ROOT / "graph_snapshots/trajectories"], tmp_path / "seed.msgpack").graph
    descriptions = [p.think for p in _all(RewriterProposer(), request)]
    assert "among a block of 128 threads" in descriptions[0]
    first = {
        name: RewriterProposer(variants=VariantPrior(graph, neighbours=5))(request).think
        for name, graph in (("shipped", shipped), ("seed", seed))
    }
    assert first["seed"] == descriptions[0]
    assert "to one CUDA thread" in first["shipped"]
    reordered = _all(RewriterProposer(variants=VariantPrior(shipped, neighbours=5)), request)
    assert sorted(p.think for p in reordered) == sorted(descriptions)


def _all(proposer: RewriterProposer, request: ProposeRequest) -> list[Proposal]:
    """Every variant the proposer hands out for ``request``, in its order."""
    proposals = []
    while (proposal := proposer(request)).code is not None:
        proposals.append(proposal)
    return proposals
