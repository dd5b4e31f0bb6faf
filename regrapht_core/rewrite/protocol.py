"""What a deterministic technique applier promises the search.

The shipped small models cannot write compilable CUDA alone, so for the techniques whose
application is mechanical a rewriter does it instead. A rewriter either says exactly why
it will not touch the code (so the search can record the refusal and move on) or returns
complete candidate sources; it never returns code it could not justify from the syntax
tree, because a wrong candidate costs a verifier run and teaches the search nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.refusal import Refusal

__all__ = [
    "Applicability",
    "RefusingRewriter",
    "RewriteCandidate",
    "RewriteContext",
    "RewriteParams",
    "Rewriter",
]

RewriteParams = Mapping[str, int | float | str | bool]
"""Knobs a rewriter documents for itself (e.g. ``block_size``); unknown keys are ignored."""


@dataclass(frozen=True, slots=True)
class Applicability:
    ok: bool
    reason: str = ""
    """Why not, in one line the user (and the trace) can act on; empty when ``ok``."""

    def __bool__(self) -> bool:
        return self.ok

    @classmethod
    def yes(cls) -> Applicability:
        return cls(True)

    @classmethod
    def no(cls, reason: str) -> Applicability:
        return cls(False, reason)


@dataclass(frozen=True, slots=True)
class RewriteCandidate:
    code: str
    """The full translation unit, ready for the verifier."""
    description: str
    """One line saying what was done, recorded as the step's reasoning."""


@dataclass(frozen=True, slots=True)
class RewriteContext:
    """What a rewriter may know beyond the code: the task's contract with the caller."""

    task: Task


@runtime_checkable
class Rewriter(Protocol):
    technique: str
    """The taxonomy id this rewriter applies (``regrapht_core.graph.taxonomy``)."""

    def applies(self, code: str, context: RewriteContext) -> Applicability: ...

    def apply(
        self, code: str, context: RewriteContext, params: RewriteParams | None = None
    ) -> list[RewriteCandidate]:
        """Candidates, best guess first; empty exactly when :meth:`applies` says no."""
        ...


class RefusingRewriter(ABC):
    """A rewriter written as one :meth:`build` that raises :class:`Refusal` at the first
    reason the rewrite would be unsafe.

    ``applies`` and ``apply`` are the same analysis: asking whether it applies runs the build
    and reports the refusal, so the two can never disagree.
    """

    technique: str

    def applies(self, code: str, context: RewriteContext) -> Applicability:
        try:
            self.build(code, context, {})
        except Refusal as refusal:
            return Applicability.no(refusal.reason)
        return Applicability.yes()

    def apply(
        self, code: str, context: RewriteContext, params: RewriteParams | None = None
    ) -> list[RewriteCandidate]:
        try:
            return self.build(code, context, params or {})
        except Refusal:
            return []

    @abstractmethod
    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        """The candidates, or a :class:`Refusal` naming the first reason there are none."""
