"""verify_many's order of work, with a stand-in verifier (the GPU tests run the real one):
builds start as candidates arrive, runs wait for the whole batch, a cancel cuts it short."""

from __future__ import annotations

import threading
from collections.abc import Iterator

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.task import Task
from regrapht_core.verify.pipeline import Built
from regrapht_core.verify.pool import verify_many
from tests.core.search.test_mcgs import TASK


class Recording:
    def __init__(self) -> None:
        self.events: list[str] = []
        self.lock = threading.Lock()

    def build(self, task: Task, source: str, *, deadline: Deadline = NO_DEADLINE) -> Evaluation:
        with self.lock:
            self.events.append(f"build {source}")
        # A build that fails needs no run; a stand-in Built would need real programs.
        return Evaluation(Status.COMPILE_ERROR, source, feedback=source)

    def run(self, built: Built, *, deadline: Deadline = NO_DEADLINE) -> Evaluation:
        raise AssertionError("a failed build is never run")


def test_results_come_back_in_order_for_a_lazy_batch() -> None:
    verifier = Recording()
    arrived: list[str] = []

    def proposals() -> Iterator[tuple[Task, str]]:
        for name in ("a", "b", "c"):
            arrived.append(name)
            yield TASK, name

    results = verify_many(verifier, proposals(), workers=2)
    assert [r.feedback for r in results] == ["a", "b", "c"]
    assert arrived == ["a", "b", "c"]


def test_a_cancel_while_proposing_runs_nothing() -> None:
    cancel = threading.Event()
    verifier = Recording()

    def proposals() -> Iterator[tuple[Task, str]]:
        yield TASK, "a"
        cancel.set()  # the user cancels while the next candidate is being proposed
        yield TASK, "b"

    assert verify_many(verifier, proposals(), cancel=cancel) == []
    assert "build b" not in verifier.events
