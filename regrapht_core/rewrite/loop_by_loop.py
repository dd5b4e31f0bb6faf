"""Several top-level loops: each mapped by the first parallelization rewriter that takes it.

Code people write often has more than one loop in a function: a histogram is zeroed, then
filled; a minimum is found, then its first position; a mean, then the spread around it.
Those loops need different rewriters (a map, then privatized atomics; a reduction, then a
first-match search), and a rewriter maps one loop as if it were alone. So each loop, in
order, is offered to the parallelization rewriters as the task's selected loop
(:class:`~regrapht_core.contracts.task.LoopSelection`), on the code with the loops before
it already mapped, and the first candidate of the first that answers is taken. Each
mapped loop is its own kernel launched after the host code before it has run, so a value
one loop computes reaches the next. A loop that none takes stays on the host, where it
was, and the description says why; none mapped is a refusal.

One candidate maps every loop by its first answer. The next ones change one loop's choice
to its next answer (the plain atomics after the privatized updates, the 1-D mapping after
the 2-D one), the loops after it mapped by their first answers again: the search's
further variants of the step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from regrapht_core.contracts.task import LoopSelection, Task
from regrapht_core.cxx.entry import entry_loops
from regrapht_core.cxx.functions import signature_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.syntax import parse
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import split_entry

__all__ = ["LoopByLoop"]

_CANDIDATES = 4
"""At most this many candidates: the first answers, then one loop's next answers."""


@dataclass(frozen=True, slots=True)
class _Answers:
    """What the rewriters answered for one loop: candidates in order, or why none."""

    candidates: tuple[RewriteCandidate, ...]
    refused: str


@dataclass(frozen=True, slots=True)
class _Mapped:
    code: str
    notes: tuple[str, ...]
    answers: tuple[int, ...]
    """Per loop, how many candidates the rewriters had for it (0: it stayed on the host)."""


class LoopByLoop(RefusingRewriter):
    technique = "parallelization"

    def __init__(self, rewriters: Sequence[RefusingRewriter], explains: RefusingRewriter) -> None:
        """``rewriters``: the single-loop parallelization rewriters, in the registry's order.
        ``explains``: the one whose refusal says why a loop stays on the host (the map
        rewriter's: the others mostly say the loop is not of their kind)."""
        self._rewriters = tuple(rewriters)
        self._explains = explains

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        split, task = split_entry(code, context.task)
        if task.loop is not None:
            raise Refusal(f"the task selects {task.loop.describe()}; it is mapped alone")
        total = len(entry_loops(parse(split).root_node, task))
        if total < 2:
            raise Refusal(f"`{task.entry}` has one top-level loop; it is mapped alone")
        memo: dict[tuple[str, int], _Answers] = {}
        first = self._mapped(split, task, params, total, memo=memo, picks={})
        if not any(first.answers):
            raise Refusal("; ".join(first.notes))
        found = [first]
        for number, count in enumerate(first.answers):
            for other in range(1, count):
                if len(found) < _CANDIDATES:
                    picks = {number: other}
                    found.append(self._mapped(split, task, params, total, memo=memo, picks=picks))
        return [
            RewriteCandidate(
                m.code, f"mapped {total} top-level loops one by one: {'; '.join(m.notes)}"
            )
            for m in found
        ]

    def _mapped(
        self,
        code: str,
        task: Task,
        params: RewriteParams,
        total: int,
        *,
        memo: dict[tuple[str, int], _Answers],
        picks: dict[int, int],
    ) -> _Mapped:
        """Each of the ``total`` loops mapped by its answer number ``picks[loop]`` (0 when
        not given)."""
        position, notes, answers = 0, [], []
        for number in range(total):
            key = (code, position)
            if key not in memo:
                memo[key] = self._answers(code, task, params, position)
            found = memo[key]
            answers.append(len(found.candidates))
            if not found.candidates:
                notes.append(f"loop {number + 1} stays on the host: {found.refused}")
                position += 1
                continue
            chosen = found.candidates[picks.get(number, 0)]
            code = chosen.code
            notes.append(f"loop {number + 1}: {chosen.description}")
        return _Mapped(code, tuple(notes), tuple(answers))

    def _answers(self, code: str, task: Task, params: RewriteParams, position: int) -> _Answers:
        """The candidates of every rewriter for top-level loop ``position`` alone."""
        loops = entry_loops(parse(code).root_node, task)
        selected = LoopSelection(position, len(loops), signature_text(loops[position]))
        context = RewriteContext(replace(task, loop=selected))
        candidates: list[RewriteCandidate] = []
        refused = ""
        for rewriter in self._rewriters:
            try:
                candidates += rewriter.build(code, context, params)
            except Refusal as refusal:
                if rewriter is self._explains:
                    refused = refusal.reason
        # The next loop is found by its position among the loops left, so an answer must
        # leave exactly one top-level loop fewer (host code of its own would shift it).
        kept = [
            c
            for c in candidates
            if len(entry_loops(parse(c.code).root_node, task)) == len(loops) - 1
        ]
        if candidates and not kept:
            refused = "its rewrites change the entry's other top-level loops"
        return _Answers(tuple(kept), refused)
