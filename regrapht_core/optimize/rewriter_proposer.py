"""Rewriters as a proposer: the search asks for one technique, a rewriter answers.

The adapter speaks the search's :data:`~regrapht_core.contracts.proposal.ProposeFn` contract, so
rewriter and model proposals share one budget and one trace. A rewriter may offer several
candidates for one step (launch configurations to time, a 2-D and a 1-D mapping); the
adapter hands them out one per request for the same code and technique -- a retry after a
failed candidate gets the next one -- and says so when they are used up, in the order the
graph's measured examples predict best on similar code (``search.variants``) where it is
given one, else in the rewriters' own. Refusals come back as proposals without code whose
message is the rewriter's reason.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from regrapht_core.contracts.proposal import Proposal, ProposeFn, ProposeRequest
from regrapht_core.rewrite.protocol import RewriteCandidate, RewriteContext, RewriteParams
from regrapht_core.rewrite.registry import Registry, default_registry
from regrapht_core.search.variants import VariantPrior

__all__ = ["NO_REWRITER", "RewriterProposer", "rewriter_propose_fn"]

NO_REWRITER = "no rewriter for this technique"
"""The refusal for a technique no rewriter implements: says nothing about the code."""


class RewriterProposer:
    """Stateful on purpose: it remembers which candidates each step has already received."""

    def __init__(
        self,
        registry: Registry | None = None,
        params: Mapping[str, RewriteParams] | None = None,
        *,
        variants: VariantPrior | None = None,
    ) -> None:
        self._registry = default_registry() if registry is None else registry
        self._params = params or {}
        self._variants = variants
        self._offered: dict[tuple[str, str], tuple[list[tuple[str, RewriteCandidate]], str]] = {}
        self._cursor: dict[tuple[str, str], int] = {}

    def _candidates(
        self, request: ProposeRequest
    ) -> tuple[list[tuple[str, RewriteCandidate]], str]:
        key = (hashlib.sha256(request.code.encode("utf-8")).hexdigest(), request.technique)
        if key not in self._offered:
            context = RewriteContext(request.task)
            found: list[tuple[str, RewriteCandidate]] = []
            reasons = []
            for rewriter in self._registry.get(request.technique, ()):
                made = rewriter.apply(request.code, context, self._params.get(request.technique))
                if made:
                    found += [(rewriter.technique, c) for c in made]
                else:
                    reasons.append(rewriter.applies(request.code, context).reason)
            if self._variants is not None and len(found) > 1:
                order = self._variants.order(
                    request.from_technique,
                    request.technique,
                    request.code,
                    [candidate.description for _, candidate in found],
                )
                found = [found[i] for i in order]
            self._offered[key] = (found, "; ".join(dict.fromkeys(r for r in reasons if r)))
        return self._offered[key]

    def answers(self, request: ProposeRequest) -> bool:
        """Whether a rewriter has a candidate for this step, without handing one out."""
        return bool(self._registry.get(request.technique)) and bool(self._candidates(request)[0])

    def __call__(self, request: ProposeRequest) -> Proposal:
        producer = f"rewriter:{request.technique}"
        rewriters = self._registry.get(request.technique, ())
        if not rewriters:
            return Proposal(None, producer=producer, message=NO_REWRITER, retryable=False)
        if request.cancel is not None and request.cancel.is_set():
            return Proposal(None, producer=producer, message="cancelled")
        found, reasons = self._candidates(request)
        if not found:
            message = reasons or "nothing to rewrite"
            return Proposal(None, producer=producer, message=message, retryable=False)
        key = (hashlib.sha256(request.code.encode("utf-8")).hexdigest(), request.technique)
        index = self._cursor.get(key, 0)
        if index >= len(found):
            return Proposal(
                None,
                producer=producer,
                message=f"all {len(found)} rewriter candidates for this step were proposed",
                retryable=False,
            )
        self._cursor[key] = index + 1
        technique, candidate = found[index]
        return Proposal(
            candidate.code, think=candidate.description, producer=f"rewriter:{technique}"
        )


def rewriter_propose_fn(
    registry: Registry | None = None,
    params: Mapping[str, RewriteParams] | None = None,
) -> ProposeFn:
    """The proposer the search calls; ``params`` holds per-technique knobs."""
    return RewriterProposer(registry, params)
