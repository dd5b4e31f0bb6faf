"""Proposers turn "apply technique T to this code" into a candidate.

The model proposer is the paper's step: it shows the model the verified examples of the
edge it is walking (the ones whose ``before`` code is most like the current code), the
technique's description and the contract, and parses the answer. ``RewritersFirst``
lets deterministic rewriters answer wherever they act and keeps the model for the states
they cannot move from; both kinds of candidates share one budget and the trace records
who made each.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from regrapht_core.contracts.proposal import Proposal, ProposeFn, ProposeRequest
from regrapht_core.contracts.task import TaskMode
from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.datatypes import EdgeExample
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.retrieval import rank_all_examples, rank_step_examples
from regrapht_core.graph.taxonomy import display_name, technique
from regrapht_core.model.borrow import borrow_definitions, device_callable
from regrapht_core.model.evidence import missing, shows
from regrapht_core.model.prompts import (
    NoCode,
    StepPrompt,
    build_hole_prompt,
    build_step_prompt,
    parse_response,
    parse_statements,
)
from regrapht_core.model.protocol import CodeModel, Completion, FinishReason, Sampling
from regrapht_core.optimize.rewriter_proposer import NO_REWRITER, RewriterProposer
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.scaffold import fill, launch_kernels, parallel_scaffold
from regrapht_core.search.config import GraphView
from regrapht_core.search.variants import VariantPrior

__all__ = [
    "ONE_SHOT_STYLES",
    "HoleProposer",
    "ModelProposer",
    "OneShotProposer",
    "RewritersFirst",
    "first_of",
    "step_proposer",
]

_log = logging.getLogger(__name__)


class ModelProposer:
    """Asks a ``CodeModel`` for one step; every failure is a ``Proposal`` without code."""

    def __init__(
        self,
        model: CodeModel,
        graph: ReGraph,
        *,
        max_tokens: int = 1536,
        temperature: float = 0.3,
        examples: int = 2,
        seed: int = 0,
    ) -> None:
        self.model, self.graph = model, graph
        self.max_tokens, self.temperature, self.examples = max_tokens, temperature, examples
        self._seeds = itertools.count(seed)
        self.producer = f"model:{model.name}"

    def __call__(self, request: ProposeRequest) -> Proposal:
        name, description = self._describe(request)
        examples = self._examples(request)
        prompt = build_step_prompt(
            code=request.code,
            entry_signature=request.task.signature,
            technique=name,
            description=description,
            examples=examples,
            feedback=request.feedback or None,
            loop=None if request.task.loop is None else request.task.loop.describe(),
            budget_tokens=self.model.context_tokens - self.max_tokens,
            count_tokens=self.model.count_tokens,
        )
        answer = self._generate(prompt, request)
        if isinstance(answer, Proposal):
            return answer
        parsed = parse_response(
            answer.text,
            entry_name=request.task.entry,
            truncated=answer.finish_reason is FinishReason.LENGTH,
            host_entry=request.task.mode is TaskMode.SEQUENTIAL_TO_CUDA,
        )
        fixes: tuple[str, ...] = ()
        if isinstance(parsed, NoCode):
            code = _launched(request, parsed)
            if code is None:
                return self._none(parsed.reason)
            if isinstance(code, Refusal):  # both reasons: the bench counts them together
                return self._none(f"{parsed.reason}; its kernels cannot be launched: {code.reason}")
            fixes = ("the entry function written around the answer's kernel",)
        else:
            code, fixes = parsed.code, parsed.fixes
        own = device_callable(request.code, entry=request.task.entry)
        borrowed = borrow_definitions(code, [own, *(e.after for e in examples)])
        think = f"{name} ({prompt.examples_used} examples shown)"
        if fixes:
            think += "; repaired: " + "; ".join(fixes)
        if borrowed.names:
            think += "; the examples' definitions of " + ", ".join(borrowed.names) + " added"
        applied = None
        if shows(request.technique, request.code, borrowed.code) is False:
            lacks = missing(request.technique)
            if request.from_technique != SEQUENTIAL:
                return self._none(f"the answer does not apply {name}: {lacks}")
            # A kernel of the loop without the technique asked for is its parallelization.
            applied = PARALLELIZATION
            think += f"; {lacks}: recorded as {display_name(PARALLELIZATION)}"
        return Proposal(borrowed.code, think=think, producer=self.producer, technique=applied)

    def _generate(self, prompt: StepPrompt, request: ProposeRequest) -> Completion | Proposal:
        """The model's answer, or a proposal without code saying why there is none.

        Generation ends when the job's deadline passes (the request carries it), so a
        model step never outlives the job's time limit."""
        if not prompt.fits:
            return self._none("the code is too long for the model's context window")
        completion = self.model.generate(
            prompt.messages,
            Sampling(self.max_tokens, self.temperature, seed=next(self._seeds)),
            cancel=request.cancel,
            deadline=request.deadline,
        )
        if completion.finish_reason in (FinishReason.CANCELLED, FinishReason.TIMEOUT):
            return self._none(f"generation {completion.finish_reason}")
        return completion

    def _describe(self, request: ProposeRequest) -> tuple[str, str]:
        """The technique's display name and description for the prompt."""
        known = technique(request.technique)
        description = known.description if known else request.technique
        return display_name(request.technique), description

    def _examples(self, request: ProposeRequest) -> Sequence[EdgeExample]:
        """The step's examples: the edge's, else the technique's from other edges, else the
        graph's nearest (``rank_step_examples``), so the model always sees one to copy."""
        return rank_step_examples(
            self.graph,
            request.from_technique,
            request.technique,
            request.code,
            limit=self.examples,
        )

    def _none(self, reason: str) -> Proposal:
        _log.info("model proposed nothing: %s", reason)
        return Proposal(None, producer=self.producer, message=reason)


def _launched(request: ProposeRequest, parsed: NoCode) -> str | Refusal | None:
    """The answer's kernels launched from the entry (:func:`launch_kernels`) when only the
    answer's host side is wrong (no entry, a kernel in its place, an entry that launches
    nothing) and the current code is the sequential loop; the :class:`Refusal` that says
    why they cannot be; ``None`` where launching is not tried."""
    if not parsed.code or request.from_technique != SEQUENTIAL:
        return None
    try:
        return launch_kernels(request.code, RewriteContext(request.task), parsed.code)
    except Refusal as refusal:
        return refusal


class HoleProposer(ModelProposer):
    """Parallelization the rewriter cannot prove safe: it writes the scaffold (kernel,
    indexing, guard, host wrapper), the model only the loop body for one thread
    (:mod:`regrapht_core.rewrite.scaffold`). Answers are short, so ``max_tokens`` is too."""

    def __init__(self, model: CodeModel, graph: ReGraph, **kwargs: Any) -> None:
        kwargs.setdefault("max_tokens", 384)
        super().__init__(model, graph, **kwargs)
        self.producer = f"scaffold:parallelization+model:{model.name}"

    def __call__(self, request: ProposeRequest) -> Proposal:
        if request.technique != PARALLELIZATION:
            return self._refuse("scaffolds exist for parallelization only")
        try:
            scaffold = parallel_scaffold(request.code, RewriteContext(request.task))
        except Refusal as refusal:
            return self._refuse(f"no scaffold: {refusal.reason}")
        prompt = build_hole_prompt(
            loop=scaffold.loop,
            var=scaffold.var,
            feedback=request.feedback or None,
            budget_tokens=self.model.context_tokens - self.max_tokens,
            count_tokens=self.model.count_tokens,
        )
        answer = self._generate(prompt, request)
        if isinstance(answer, Proposal):
            return answer
        statements = parse_statements(answer.text)
        if isinstance(statements, NoCode):
            return self._none(statements.reason)
        try:
            code = fill(scaffold, statements)
        except Refusal as refusal:
            return self._none(refusal.reason)
        think = f"scaffolded one thread per `{scaffold.var}`; the model rewrote the loop body"
        return Proposal(code, think=think, producer=self.producer)

    def _refuse(self, reason: str) -> Proposal:
        return Proposal(None, producer=self.producer, message=reason, retryable=False)


ONE_SHOT_STYLES = ("plain", "cot", "rag")

_PORT = (
    "Port the sequential code to CUDA and make it as fast as you can on an NVIDIA GPU: "
    "run the loop's iterations in parallel threads and use any optimization that helps."
)
_THINK = " Think step by step first: say which optimizations apply and why, then write the code."


class OneShotProposer(ModelProposer):
    """The model-only baselines: ``plain`` prompting, ``cot`` (reason first), ``rag``
    (the most similar examples from the whole graph, edges ignored)."""

    def __init__(self, model: CodeModel, graph: ReGraph, *, style: str, **kwargs: Any) -> None:
        if style not in ONE_SHOT_STYLES:
            raise ValueError(f"style must be one of {ONE_SHOT_STYLES}, not {style!r}")
        super().__init__(model, graph, **kwargs)
        self.style = style
        self.producer = f"model:{model.name}:{style}"

    def _describe(self, request: ProposeRequest) -> tuple[str, str]:
        return "CUDA port", _PORT + (_THINK if self.style == "cot" else "")

    def _examples(self, request: ProposeRequest) -> Sequence[EdgeExample]:
        if self.style != "rag":
            return ()
        return rank_all_examples(self.graph, request.code, limit=self.examples)


def first_of(*proposers: ProposeFn) -> ProposeFn:
    """The first proposer that returns code wins; otherwise the last one's refusal, its
    message carrying every proposer's reason in order.

    Put deterministic rewriters before the model: they are exact and instant where they
    apply and refuse with a reason where they do not. That reason is what a user can act
    on (``the loop writes y[i+1]``), so a model that then fails too must not replace it.
    """

    def propose(request: ProposeRequest) -> Proposal:
        refusals: list[Proposal] = []
        for proposer in proposers:
            proposal = proposer(request)
            if proposal.code is not None:
                return proposal
            refusals.append(proposal)
        if not refusals:
            return Proposal(None, message="no proposer")
        said = [p for p in refusals if p.message and p.message != NO_REWRITER]
        if not said:
            return refusals[-1]
        if len(said) == 1:
            return dataclasses.replace(refusals[-1], message=said[0].message)
        message = "; ".join(f"{p.producer or 'proposer'}: {p.message}" for p in said)
        return dataclasses.replace(refusals[-1], message=message)

    return propose


class RewritersFirst:
    """Rewriters wherever one acts; ``fallback`` (the model) only at a state where no
    rewriter acts on any step the graph offers from it.

    A rewriter's answer is instant and usually verifies; the model's takes tens of seconds
    on a CPU and mostly fails. Asked beside the rewriters, the model's failed steps spent
    the budget the rewriters would have used for a second technique (issue 19, H100,
    budget 3: 14 of 20 tasks with the model or without it, and a lower geomean with it).
    So at a state a rewriter can move from, the other steps are the rewriters' free
    refusals, and the model works where nothing else can: the sequential loop no rewriter
    can prove parallel, a state no rewriter has a technique for. A refusal keeps the
    rewriter's reason (``first_of``). One instance per job: it remembers, per state, whether
    a rewriter acts there.
    """

    def __init__(
        self,
        rewriters: RewriterProposer,
        fallback: ProposeFn,
        successors: Callable[[str], Sequence[str]],
    ) -> None:
        self.rewriters, self.fallback, self.successors = rewriters, fallback, successors
        self._acts: dict[tuple[str, str], bool] = {}

    def __call__(self, request: ProposeRequest) -> Proposal:
        proposal = self.rewriters(request)
        if proposal.code is not None or self.rewriter_acts(request):
            return proposal
        return first_of(lambda _: proposal, self.fallback)(request)

    def rewriter_acts(self, request: ProposeRequest) -> bool:
        """Whether a rewriter has a candidate for some step from the request's state."""
        key = (request.from_technique, request.code)
        if key not in self._acts:
            steps = {request.technique, *self.successors(request.from_technique)}
            self._acts[key] = any(
                self.rewriters.answers(dataclasses.replace(request, technique=step))
                for step in sorted(steps)
            )
        return self._acts[key]


def step_proposer(
    model: CodeModel,
    graph: ReGraph,
    actions: GraphView | None = None,
    *,
    seed: int = 0,
    rewriters: bool = True,
    variants: VariantPrior | None = None,
) -> ProposeFn:
    """The proposer every job uses: rewriters (their variants in the order ``variants``
    predicts), and where no rewriter acts (:class:`RewritersFirst`) from a state on any
    step ``actions`` allows (by default the graph's edges), a scaffold whose loop body the
    model writes, then the model alone.

    ``rewriters=False`` is the model-only ablation the benchmarks compare against.
    """
    by_model = ModelProposer(model, graph, seed=seed)
    if not rewriters:
        return by_model

    def successors(technique: str) -> Sequence[str]:
        if actions is not None:
            return actions.successors(technique)
        return graph.successors(technique) if graph.has_node(technique) else ()

    fallback = first_of(HoleProposer(model, graph, seed=seed), by_model)
    return RewritersFirst(RewriterProposer(variants=variants), fallback, successors)
