"""What a finished job offers: measured claims only, compiled-only code only on request."""

from __future__ import annotations

import shutil
from pathlib import Path

from regrapht_server.outcomes import Offer, Refusal, judge, learn_from

from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.graph.paths import snapshot_path
from regrapht_core.graph.snapshot import load_snapshot

from .fakes import CANDIDATE, NOT_RUN, outcome, verified


def test_verified_faster_code_is_offered_with_its_speedup_and_device() -> None:
    offer = judge(outcome([verified(3.2), verified(8.1)], gpu=True), allow_unverified=False)
    assert isinstance(offer, Offer)
    assert offer.label == "ReGraphT: 8.1\N{MULTIPLICATION SIGN} faster (NVIDIA H100 80GB HBM3)"
    assert offer.summary == "8.10x faster, verified on NVIDIA H100 80GB HBM3"
    assert offer.entry == "smooth" and offer.code == CANDIDATE
    assert offer.header.startswith("// ReGraphT: 8.10x faster") and offer.header.endswith("\n")
    assert (
        "techniques: Parallelization (3.20x) -> Shared-memory tiling (8.10x)" in offer.description
    )


def test_without_a_gpu_compiled_code_needs_permission() -> None:
    result = outcome([NOT_RUN, NOT_RUN], gpu=False)
    refusal = judge(result, allow_unverified=False)
    assert isinstance(refusal, Refusal)
    assert "allowUnverified" in refusal.message and "2 candidates" in refusal.message
    assert refusal.diagnostic == (
        "ReGraphT: nothing verified (no GPU): 2 not_run; first problem: "
        "no GPU on this machine: compiled, not run"
    )
    offer = judge(result, allow_unverified=True)
    assert isinstance(offer, Offer)
    assert offer.label == "ReGraphT: compiled only — not run, not timed"
    assert offer.summary == "compiled only - not run, not timed"
    assert "faster" not in offer.header


def test_slower_or_failed_candidates_are_no_answer() -> None:
    failed = Evaluation(Status.WRONG_OUTPUT, "h", feedback="y[3]: want 1 got 2")
    refusal = judge(outcome([verified(0.7), failed], gpu=True), allow_unverified=True)
    assert isinstance(refusal, Refusal)
    assert "no verified faster version of smooth" in refusal.message
    assert refusal.diagnostic is not None and "1 verified, 1 wrong_output" in refusal.diagnostic


def test_a_cancel_before_anything_compiled_is_not_a_finding() -> None:
    refusal = judge(outcome([], gpu=True, cancelled=True), allow_unverified=True)
    assert refusal == Refusal("ReGraphT: cancelled smooth after 0 candidates.", None)


def test_a_cancelled_job_keeps_its_best_result() -> None:
    assert isinstance(
        judge(outcome([verified(2.0)], gpu=True, cancelled=True), allow_unverified=False), Offer
    )


def test_learning_merges_an_applied_verified_chain_into_the_snapshot(tmp_path: Path) -> None:
    snapshot = Path(shutil.copy(snapshot_path(), tmp_path / "g.msgpack"))
    before = load_snapshot(snapshot).graph.example_count
    message = learn_from(outcome([verified(2.0), verified(3.0)], gpu=True), snapshot)
    assert message == f"ReGraphT learned 2 verified step(s) into {snapshot}"
    after = load_snapshot(snapshot)
    assert after.graph.example_count == before + 2
    examples = after.graph.examples("sequential", "parallelization")
    assert any(e.task == "smooth" and e.speedup == 2.0 for e in examples)


def test_compile_only_results_are_never_learned(tmp_path: Path) -> None:
    snapshot = Path(shutil.copy(snapshot_path(), tmp_path / "g.msgpack"))
    message = learn_from(outcome([NOT_RUN], gpu=False), snapshot)
    assert "learned nothing" in message
    assert snapshot.read_bytes() == snapshot_path().read_bytes()
