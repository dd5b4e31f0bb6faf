"""What a finished job means for the user: an edit to offer, or the reason there is none.

Kept apart from the LSP plumbing so the rules are plain to test: only verified, faster
code is offered as faster; compiled-only code (no GPU) is offered only when the user
asked for it, and is then labelled so that nobody mistakes it for a measured result.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from regrapht_core.optimize.header import HEADER_MARK

if TYPE_CHECKING:
    from regrapht_core.optimize.job import OptimizeOutcome

__all__ = ["COMPILED_ONLY", "Offer", "Refusal", "judge", "learn_from"]

COMPILED_ONLY = "compiled only — not run, not timed"


@dataclass(frozen=True, slots=True)
class Offer:
    entry: str
    code: str
    """The candidate translation unit, without the header."""
    header: str
    """The core's header comment, ending with a newline: it goes directly above ``entry``."""
    label: str
    """The change annotation's label: the one line the user sees before applying."""
    description: str
    summary: str
    """Short form of ``label`` for the comment that points at a separate CUDA file."""


@dataclass(frozen=True, slots=True)
class Refusal:
    message: str
    diagnostic: str | None
    """Shown on the function; ``None`` when there is nothing to learn from (a cancel)."""


def judge(outcome: OptimizeOutcome, *, allow_unverified: bool) -> Offer | Refusal:
    entry = outcome.task.entry
    tried = len(outcome.search.candidates)
    answer, annotated = outcome.answer, outcome.annotated_code()
    if answer is None or annotated is None:
        if outcome.search.cancelled:
            return Refusal(f"ReGraphT: cancelled {entry} after {tried} candidates.", None)
        return Refusal(
            f"ReGraphT found no verified faster version of {entry} "
            f"({tried} candidates, stopped by {outcome.search.stop_reason}).",
            f"ReGraphT: no faster version found: {outcome.failure_summary()}",
        )
    faster = outcome.faster
    if faster is None and not allow_unverified:
        return Refusal(
            f"ReGraphT: no GPU on this machine, so none of the {tried} candidates for {entry} "
            "could be run or timed and nothing is offered. Set regrapht.allowUnverified to "
            "true to get compiled-only code.",
            f"ReGraphT: nothing verified (no GPU): {outcome.failure_summary()}",
        )
    header = annotated.removesuffix(answer.code)
    if faster is not None and faster.result.speedup is not None:
        device = faster.result.device.name if faster.result.device else "unknown GPU"
        label = f"ReGraphT: {faster.result.speedup:.1f}\N{MULTIPLICATION SIGN} faster ({device})"
        summary = f"{faster.result.speedup:.2f}x faster, verified on {device}"
    else:
        # The comment stays ASCII, in the header's own words.
        label, summary = f"ReGraphT: {COMPILED_ONLY}", "compiled only - not run, not timed"
    description = "; ".join(
        line.removeprefix(HEADER_MARK).removeprefix("//").strip() for line in header.splitlines()
    )
    return Offer(entry, answer.code, header, label, description, summary)


def learn_from(outcome: OptimizeOutcome, snapshot: Path | None) -> str:
    """Merge an applied, verified and faster result into the snapshot (setting ``learn``,
    off by default: the user's code becomes examples only when they ask). The message
    says what happened; an unusable snapshot is a :class:`GraphError` for the caller."""
    from regrapht_core.graph.paths import snapshot_path
    from regrapht_core.optimize.learning import learn_outcome

    learned = learn_outcome(outcome, snapshot_path(snapshot))
    if learned is None:
        return "ReGraphT learned nothing: only a verified, faster result becomes an example"
    return f"ReGraphT learned {learned.steps} verified step(s) into {learned.snapshot}"
