"""Learning from the user's verified runs: only verified, faster paths, merged atomically."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.proposal import Candidate
from regrapht_core.errors import GraphError
from regrapht_core.graph.learn import LEARN_BUILDER, learn
from regrapht_core.graph.merge import build_graph
from regrapht_core.graph.snapshot import BuildInfo, load_snapshot, save_snapshot
from regrapht_core.graph.taxonomy import SEQUENTIAL
from regrapht_core.optimize.learning import verified_trajectory
from tests.core.graph.factories import trajectory
from tests.core.optimize.test_job import verified

NOT_RUN = Evaluation(Status.NOT_RUN, "h", feedback="no GPU on this machine")


def step(index: int, parent: int | None, technique: str, result: Evaluation) -> Candidate:
    producer = "rewriter:x" if index % 2 == 0 else "model:qwen2.5-coder-0.5b"
    return Candidate(index, parent, technique, "expand", producer, f"// code {index}", "", result)


PATH = [
    step(0, None, "parallelization", verified(3.0)),
    step(1, 0, "grid_stride_loop", verified(4.5)),
    step(2, None, "parallelization", verified(0.5)),  # a sibling, not on the path
]


def test_the_path_to_the_best_becomes_a_trajectory_with_each_steps_speedup() -> None:
    found = verified_trajectory("smooth", "void smooth();", PATH[1], PATH)
    assert found is not None
    assert [s.method for s in found.steps] == ["parallelization", "grid_stride_loop"]
    assert [s.speedup for s in found.steps] == [3.0, 4.5]
    assert [s.code for s in found.steps] == ["// code 0", "// code 1"]
    assert found.steps[1].detail == "produced by model:qwen2.5-coder-0.5b"
    assert found.verified_on == "NVIDIA H100 80GB HBM3" and found.source == "void smooth();"


@pytest.mark.parametrize(
    "candidates",
    [
        [step(0, None, "parallelization", NOT_RUN), step(1, 0, "grid_stride_loop", verified(4))],
        [step(0, None, "parallelization", verified(0.5))],  # verified, but slower
        [step(1, 0, "grid_stride_loop", verified(4.0))],  # its parent is missing
    ],
    ids=["compiled-only-ancestor", "slower", "broken-chain"],
)
def test_unverified_slower_or_broken_paths_teach_nothing(candidates: list[Candidate]) -> None:
    assert verified_trajectory("t", "src", candidates[-1], candidates) is None


def seed_snapshot(path: Path) -> Path:
    graph = build_graph([trajectory("seed", ["parallelization"])])
    save_snapshot(graph, BuildInfo("test", 1, "0" * 64), path)
    return path


def test_learning_adds_one_example_per_step_and_records_who_built_the_snapshot(
    tmp_path: Path,
) -> None:
    snapshot = seed_snapshot(tmp_path / "g.msgpack")
    found = verified_trajectory("smooth", "void smooth();", PATH[1], PATH)
    assert found is not None
    learned = learn(snapshot, found)
    assert learned.steps == 2
    after = load_snapshot(snapshot)
    examples = after.graph.examples(SEQUENTIAL, "parallelization")
    assert [e.task for e in examples] == ["seed", "smooth"]
    second = after.graph.examples("parallelization", "grid_stride_loop")
    assert [(e.before, e.after, e.speedup) for e in second] == [("// code 0", "// code 1", 4.5)]
    assert after.build.builder == LEARN_BUILDER and after.build.trajectories == 2
    assert after.build.source_digest != "0" * 64


def test_a_corrupt_snapshot_is_an_error_and_is_left_as_it_was(tmp_path: Path) -> None:
    snapshot = tmp_path / "g.msgpack"
    snapshot.write_bytes(b"ReGraphT\x00garbage")
    found = verified_trajectory("smooth", "void smooth();", PATH[1], PATH)
    assert found is not None
    with pytest.raises(GraphError):
        learn(snapshot, found)
    assert snapshot.read_bytes() == b"ReGraphT\x00garbage"
