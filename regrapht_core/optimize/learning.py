"""Turning a search's verified answer into graph knowledge, when the user opted in.

The search returns candidates linked by parent index; the graph learns trajectories. This
module converts one into the other (only a fully verified, faster chain qualifies) and
hands it to :func:`regrapht_core.graph.learn.learn`, so the graph never sees search types.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from regrapht_core.contracts.proposal import Candidate
from regrapht_core.datatypes import Trajectory, TrajectoryStep
from regrapht_core.graph.learn import Learned, learn
from regrapht_core.optimize.job import OptimizeOutcome

__all__ = ["learn_outcome", "verified_trajectory"]


def verified_trajectory(
    task: str, source: str, best: Candidate, candidates: Sequence[Candidate]
) -> Trajectory | None:
    """The steps from the sequential ``source`` to ``best``, each verified and timed.

    ``None`` unless every step on the path passed on a GPU with a speedup and the last one
    is faster than the reference: a compiled-only or slower answer teaches nothing.
    """
    by_index = {c.index: c for c in candidates}
    path: list[Candidate] = []
    node: Candidate | None = best
    while node is not None:
        path.append(node)
        node = None if node.parent is None else by_index.get(node.parent)
    path.reverse()
    if path[0].parent is not None:  # the chain is broken: an ancestor is missing
        return None
    if not all(c.result.verified for c in path):
        return None
    if (best.result.speedup or 0.0) <= 1.0:
        return None
    device = best.result.device.name if best.result.device else None
    steps = tuple(
        TrajectoryStep(
            think=c.think,
            method=c.technique,
            detail=f"produced by {c.producer}",
            code=c.code,
            speedup=c.result.speedup,
        )
        for c in path
    )
    return Trajectory(task=task, source=source, steps=steps, verified_on=device)


def learn_outcome(outcome: OptimizeOutcome, snapshot: Path) -> Learned | None:
    """Merge the faster answer's verified path into ``snapshot``, for callers the user opted
    in through (``--learn``, the server's ``learn``); ``None`` when nothing verified and
    faster exists to learn. An unusable snapshot raises :class:`GraphError`."""
    faster = outcome.faster
    if faster is None:
        return None
    trajectory = verified_trajectory(
        outcome.task.name, outcome.task.source, faster, outcome.search.candidates
    )
    return None if trajectory is None else learn(snapshot, trajectory)
