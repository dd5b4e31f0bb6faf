"""Exploring: mining's action set adds, after the first step, every technique a rewriter
implements, so a search can take steps no edge of the graph holds and a graph built from
what it verified can grow edges; the editor's search keeps to the graph."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.evaluation import Evaluation, Status, Timing
from regrapht_core.contracts.task import TimingMode
from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL
from regrapht_core.graph.build import build_snapshot
from regrapht_core.graph.model import ReGraph
from regrapht_core.optimize.exploring import ExploringGraph
from regrapht_core.optimize.rewriter_proposer import rewriter_propose_fn
from regrapht_core.optimize.session import JobSettings, Optimizer
from regrapht_core.rewrite.registry import default_registry
from regrapht_core.search import run_search
from regrapht_core.search.answer import lineage
from regrapht_core.search.config import GraphView, SearchConfig
from tests.core.optimize.test_learning import seed_snapshot

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "benchmarks" / "corpus" / "manifest.toml"
SEED = ROOT / "graph_snapshots" / "trajectories"
REWRITTEN = frozenset(default_registry())


def seed_graph(tmp_path: Path) -> ReGraph:
    return build_snapshot([SEED], tmp_path / "seed.msgpack").graph


def test_after_the_first_step_every_rewritten_technique_may_follow(tmp_path: Path) -> None:
    graph = seed_graph(tmp_path)
    view = ExploringGraph(graph, REWRITTEN)
    assert view.successors(SEQUENTIAL) == graph.successors(SEQUENTIAL)
    after = set(view.successors("read_only_cache"))
    assert set(graph.successors("read_only_cache")) < after
    assert after == (set(graph.successors("read_only_cache")) | REWRITTEN) - {
        SEQUENTIAL,
        PARALLELIZATION,
        "read_only_cache",
    }
    assert "launch_configuration" in after and not graph.has_edge(
        "read_only_cache", "launch_configuration"
    )
    # An added edge holds no examples (never measured); the graph's keep theirs.
    assert view.examples("read_only_cache", "launch_configuration") == ()
    assert view.examples(PARALLELIZATION, "read_only_cache") == graph.examples(
        PARALLELIZATION, "read_only_cache"
    )
    assert view.predecessors("launch_configuration") == graph.predecessors("launch_configuration")


def test_a_technique_the_graph_lacks_is_explored_from_and_into(tmp_path: Path) -> None:
    view = ExploringGraph(ReGraph(), ["loop_unrolling", "fast_math"])
    assert view.successors(SEQUENTIAL) == ()
    assert view.successors("loop_unrolling") == ("fast_math",)
    assert view.predecessors("fast_math") == () and view.examples("x", "fast_math") == ()


def _steps(graph: GraphView, task_name: str, budget: int) -> set[tuple[str, str]]:
    """The technique steps a rewriters-only search takes on ``task_name`` when every
    program verifies at 2x (a scripted verifier: which steps are taken, not their worth)."""
    (entry,) = [e for e in load_manifest(CORPUS) if e.name == task_name]
    task = entry.task()

    def evaluate(_code: str) -> Evaluation:
        timing = Timing(TimingMode.KERNEL_ONLY, 1.0, 0.5, 0.0, 0.0, 30)
        return Evaluation(Status.VERIFIED, "h", timing=timing)

    result = run_search(
        task,
        graph,
        propose_fn=rewriter_propose_fn(),
        evaluate_fn=evaluate,
        config=SearchConfig(budget=budget, retry_with_feedback=False),
        rng=random.Random(0),
    )
    made = [c for c in result.candidates if c.code]
    steps = set()
    for candidate in made:
        path = [SEQUENTIAL, *(c.technique for c in lineage(result.candidates, candidate))]
        steps |= set(itertools.pairwise(path))
    return steps


def test_an_explored_search_takes_steps_the_graph_never_holds(tmp_path: Path) -> None:
    """On a corpus map the seed graph allows a read-only cache or a launch configuration
    after the parallelization, never both; exploring, the search chains them."""
    graph = seed_graph(tmp_path)
    task = "elementwise_arith_axpby_f32_ptr"
    walked = _steps(graph, task, budget=40)
    assert walked and all(graph.has_edge(u, v) for u, v in walked)
    explored = _steps(ExploringGraph(graph, REWRITTEN), task, budget=40)
    new = {(u, v) for u, v in explored if not graph.has_edge(u, v)}
    assert new and all(u != SEQUENTIAL and v != PARALLELIZATION for u, v in new)
    assert ("read_only_cache", "launch_configuration") in new
    assert ("launch_configuration", "read_only_cache") in new


def test_only_a_job_set_to_explore_searches_beyond_the_graph(tmp_path: Path) -> None:
    snapshot = seed_snapshot(tmp_path / "g.msgpack")
    plain = Optimizer(JobSettings(model=None, snapshot=snapshot))
    assert plain.actions is plain.graph
    exploring = Optimizer(JobSettings(model=None, snapshot=snapshot, explore=True))
    assert isinstance(exploring.actions, ExploringGraph)
    assert set(plain.graph.successors(PARALLELIZATION)) < set(
        exploring.actions.successors(PARALLELIZATION)
    )
