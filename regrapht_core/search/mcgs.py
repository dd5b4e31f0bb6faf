"""MCGS: selection by P-UCB, expansion of all successors on first visit, an ε-greedy
rollout to a depth cap that stops at the first failing step, the maximum reward along the
rollout backed up the selection path. Every evaluated candidate can be the answer.

Every state a step reaches, in an expansion, a widening or a rollout, is stored in the tree
under the (state, technique) edge that reached it, and a rollout follows a stored step
rather than asking again: asking twice for a step the proposer had answered got a refusal,
scored as a failure, which orphaned the state the rollout had verified (issue 16).

A state's first visit proposes one candidate for every action at once and verifies them as
one batch (``evaluate_many_fn``), so their compiles overlap the GPU runs. Later visits may
ask a step for another variant (progressive widening, ``selection.widening_allows``): the
search otherwise saw one variant per step and stopped at a handful of programs per task.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.proposal import (
    Candidate,
    EvaluateFn,
    EvaluateManyFn,
    Proposal,
    ProposeFn,
    ProposeRequest,
    SearchProgress,
    SearchResult,
    StopReason,
)
from regrapht_core.contracts.task import Task
from regrapht_core.search.answer import answer_of, lineage
from regrapht_core.search.config import GraphView, SearchConfig, root_technique
from regrapht_core.search.prior import EdgePrior, Priors
from regrapht_core.search.rollout import rollout_action
from regrapht_core.search.selection import Move, select_move, widening_allows
from regrapht_core.search.tree import Key, Node, SearchGraph, code_hash

__all__ = ["run_search"]


def run_search(
    task: Task,
    graph: GraphView,
    *,
    propose_fn: ProposeFn,
    evaluate_fn: EvaluateFn,
    config: SearchConfig,
    rng: random.Random,
    progress_fn: Callable[[SearchProgress], None] | None = None,
    cancel: threading.Event | None = None,
    deadline: Deadline | None = None,
    evaluate_many_fn: EvaluateManyFn | None = None,
) -> SearchResult:
    """Search for the fastest verified rewrite of ``task.source``.

    Deterministic given ``rng``, the proposals and the verifier results, so a recorded
    trace replays exactly. ``cancel`` and the ``deadline`` (the job's; by default one of
    ``config.time_limit_s`` from now) are honoured between candidates (and by
    ``evaluate_many_fn`` inside a batch), and the deadline goes with every request to the
    proposer; the best verified result so far is still returned. Without
    ``evaluate_many_fn`` a batch is verified one candidate after another.
    """
    search = _Search(
        task,
        graph,
        propose_fn=propose_fn,
        evaluate_fn=evaluate_fn,
        config=config,
        rng=rng,
        progress_fn=progress_fn,
        cancel=cancel,
        deadline=deadline,
        evaluate_many_fn=evaluate_many_fn,
    )
    return search.run()


class _Search:
    def __init__(
        self,
        task: Task,
        graph: GraphView,
        *,
        propose_fn: ProposeFn,
        evaluate_fn: EvaluateFn,
        config: SearchConfig,
        rng: random.Random,
        progress_fn: Callable[[SearchProgress], None] | None,
        cancel: threading.Event | None,
        deadline: Deadline | None,
        evaluate_many_fn: EvaluateManyFn | None = None,
    ) -> None:
        self.task, self.graph, self.config, self.rng = task, graph, config, rng
        self.propose_fn, self.evaluate_fn = propose_fn, evaluate_fn
        self.evaluate_many_fn = evaluate_many_fn or self.one_by_one
        self.progress_fn, self.cancel = progress_fn, cancel
        self.trace: list[Candidate] = []
        self.results: dict[str, Evaluation] = {}
        start = root_technique(task)
        root = Node(start, task.source, candidate=None, reward=0.0)
        self.tree = SearchGraph(root=(start, code_hash(task.source)))
        self.tree.add(self.tree.root, root)
        self.closed: set[Key] = set()
        self.priors = Priors(graph, cap=config.prior_weight, neighbours=config.prior_neighbours)
        self.prior_at: dict[tuple[Key, str], EdgePrior] = {}
        self.refusals: set[int] = set()
        """Trace indices of deterministic refusals: not in ``budget``, not in Q."""
        self.best_speedup: float | None = None
        self.deadline = deadline or Deadline.after(config.time_limit_s)

    def run(self) -> SearchResult:
        iterations = 0
        while (reason := self.stop_reason()) is None:
            if self.config.max_iterations is not None and iterations >= self.config.max_iterations:
                reason = StopReason.ITERATIONS
                break
            if self.tree.root in self.closed:
                reason = StopReason.EXHAUSTED
                break
            self.iterate()
            iterations += 1
        return self.result(reason)

    def stop_reason(self) -> StopReason | None:
        if self.cancel is not None and self.cancel.is_set():
            return StopReason.CANCELLED
        if self.spent >= self.config.budget or len(self.refusals) >= self.config.refusal_cap:
            return StopReason.BUDGET
        if self.deadline.expired:
            return StopReason.TIME_LIMIT
        return None

    @property
    def spent(self) -> int:
        return len(self.trace) - len(self.refusals)

    # -- one iteration -------------------------------------------------------------------

    def iterate(self) -> None:
        """Descend by P-UCB to a state not visited before, roll out from it, back up.

        The first visit to a state proposes every action at once (one batch) and goes on to
        the best state that batch reached. A state with nothing left to try (failed, a
        leaf, at the depth cap, every step exhausted and its states closed or on the
        current path) is closed and the iteration ends without a backup: only evaluations
        teach the search, and each closing shrinks what is left.
        """
        path = [self.tree.root]
        while True:
            key = path[-1]
            node = self.tree.nodes[key]
            if node.terminal or len(path) > self.config.depth_cap:
                self.closed.add(key)
                return
            if not node.expanded:
                reached = self.expand(key)
                if reached is None:
                    return
                if reached:
                    child = self.best_of(reached)
                    break
            moves = self.moves(key, path)
            if not moves:
                self.closed.add(key)
                return
            action, known = select_move(
                self.tree,
                moves,
                node.visits,
                self.config.exploration,
                self.rng,
                rank=functools.partial(self.rank, key),
            )
            if known is None:
                known = self.step(key, action, "widen")
                if known is None:
                    if self.stop_reason() is not None:
                        return
                    continue
            elif self.tree.nodes[known].visits:
                path.append(known)
                continue
            child = known
            break
        path.append(child)
        value = max(self.tree.nodes[child].reward, self.rollout(child, depth=len(path) - 1))
        for visited in path:
            n = self.tree.nodes[visited]
            n.visits += 1
            n.value_sum += value

    def moves(self, key: Key, path: Sequence[Key]) -> list[Move]:
        """Into each open state a step from ``key`` reached, and each step's next variant
        where widening allows it (``selection.widening_allows``)."""
        self.tree.share(key)
        node = self.tree.nodes[key]
        moves: list[Move] = []
        for action in self.graph.successors(node.technique):
            reached = node.children.get(action, [])
            open_ = [k for k in reached if k not in self.closed and k not in path]
            moves += [(action, k) for k in open_]
            if action in node.exhausted:
                continue
            if widening_allows(self.tree, reached, open_, self.config.widening):
                moves.append((action, None))
        return moves

    def expand(self, key: Key) -> list[Key] | None:
        """The first visit's batch: one proposal for every action not yet taken from
        ``key`` that the graph's prior calls promising (``search.prior``; the best-ranked
        one where none is), best first (a budget or deadline that cuts the batch short cuts
        the least promising), verified together. The others stay untried moves of the
        state. The states reached (``None`` if the search stopped before any was
        evaluated)."""
        self.tree.share(key)
        node = self.tree.nodes[key]
        node.expanded = True
        ranked = [a for a in self.ranked(key) if a not in node.children and a not in node.exhausted]
        actions = [a for a in ranked if self.prior(key, a).promising] or ranked[:1]
        if not actions:
            return []
        taken = self.apply(key, actions, "expand")
        if not taken and self.stop_reason() is not None:
            return None
        reached = [self.attach(key, action, candidate) for action, candidate in taken]
        return [k for k in reached if k is not None]

    def step(self, key: Key, action: str, phase: str) -> Key | None:
        """Apply ``action`` to the state ``key`` once and store the state it reaches;
        ``None`` when nothing was evaluated (stopped), or for a refusal or a repeat, which
        exhaust the step instead."""
        taken = self.apply(key, [action], phase)
        return self.attach(key, action, taken[0][1]) if taken else None

    def attach(self, key: Key, action: str, candidate: Candidate) -> Key | None:
        parent = self.tree.nodes[key]
        if candidate.index in self.refusals:
            parent.exhausted.add(action)
            return None
        value = self.value(candidate)
        self.tree.edge(parent.technique, action).add(value)
        child_key = (action, code_hash(candidate.code))
        reached = parent.children.setdefault(action, [])
        if child_key in reached:
            parent.exhausted.add(action)
            return None
        reached.append(child_key)
        if child_key not in self.tree.nodes:
            self.tree.add(
                child_key,
                Node(
                    action,
                    candidate.code,
                    candidate=candidate.index,
                    reward=value,
                    terminal=candidate.result.status.failed,
                ),
            )
        return child_key

    def take(self, key: Key, action: str) -> Key | None:
        """A rollout's step from ``key`` (or a twin: ``SearchGraph.share``): the best state
        it reached before, else new."""
        self.tree.share(key)
        node = self.tree.nodes[key]
        reached = node.children.get(action)
        if reached:
            return self.best_of(reached)
        if action in node.exhausted:
            return None
        return self.step(key, action, "rollout")

    def best_of(self, keys: Sequence[Key]) -> Key:
        """The state with the highest reward (the first among equals)."""
        return max(keys, key=lambda k: self.tree.nodes[k].reward)

    def rollout(self, key: Key, depth: int) -> float:
        """The best reward on an ε-greedy walk from ``key`` to the depth cap; a step taken
        before from the same state is followed, not proposed again."""
        value = self.tree.nodes[key].reward
        while depth < self.config.depth_cap and self.stop_reason() is None:
            node = self.tree.nodes[key]
            actions = self.graph.successors(node.technique)
            if node.terminal or not actions:
                break
            action = rollout_action(
                self.tree,
                node.technique,
                actions,
                lam=self.config.rollout_lambda,
                epsilon=self.config.rollout_epsilon,
                rng=self.rng,
                prior=functools.partial(self.prior, key),
            )
            stepped = self.take(key, action)
            if stepped is None:
                break
            key = stepped
            value = max(value, self.tree.nodes[key].reward)
            depth += 1
        return value

    # -- the graph as prior ----------------------------------------------------------------

    def prior(self, key: Key, action: str) -> EdgePrior:
        """What the graph says about ``action`` from the state ``key``, read once."""
        if (key, action) not in self.prior_at:
            node = self.tree.nodes[key]
            speedup = None
            if node.candidate is not None:
                speedup = self.trace[node.candidate].result.speedup
            self.prior_at[key, action] = self.priors.of(
                node.code, speedup or 1.0, node.technique, action
            )
        return self.prior_at[key, action]

    def rank(self, key: Key, action: str) -> tuple[float, ...]:
        return self.prior(key, action).rank()

    def ranked(self, key: Key) -> list[str]:
        """The steps from the state ``key``, best prior first (graph order among equals)."""
        steps = self.graph.successors(self.tree.nodes[key].technique)
        return sorted(steps, key=functools.partial(self.rank, key), reverse=True)

    # -- steps: propose, verify as a batch, retry the failures with feedback ---------------

    def apply(self, key: Key, actions: Sequence[str], phase: str) -> list[tuple[str, Candidate]]:
        """Each action applied to the state ``key``: its candidate, or its retry's where the
        first failed and a retry could differ. Fewer when the search stops on the way."""
        node = self.tree.nodes[key]
        requests = [
            ProposeRequest(
                self.task, node.technique, a, node.code, cancel=self.cancel, deadline=self.deadline
            )
            for a in actions
        ]
        first = self.attempt(requests, node.candidate, phase)
        retries = [
            dataclasses.replace(request, feedback=candidate.result.feedback)
            for request, candidate, retryable in first
            if candidate.result.status.failed and retryable and self.config.retry_with_feedback
        ]
        again = {r.technique: c for r, c, _ in self.attempt(retries, node.candidate, "retry")}
        return [(r.technique, again.get(r.technique, c)) for r, c, _ in first]

    def attempt(
        self, requests: Sequence[ProposeRequest], parent: int | None, phase: str
    ) -> list[tuple[ProposeRequest, Candidate, bool]]:
        """Propose for every request while the budget lasts, the new code going to the
        verifier as one batch as it comes (identical programs once), and record the
        candidates in request order, each with whether a retry of its step could differ."""
        if not requests:
            return []
        proposed: list[tuple[ProposeRequest, Proposal]] = []
        batch: list[str] = []
        queued: set[str] = set()

        def fresh() -> Iterator[str]:
            pending = refused = 0
            for request in requests:
                if (
                    self.stop_reason() is not None
                    or self.spent + pending >= self.config.budget
                    or len(self.refusals) + refused >= self.config.refusal_cap
                ):
                    return
                proposal = self.propose(request)
                proposed.append((request, proposal))
                spends = proposal.code is not None or proposal.retryable
                pending, refused = pending + spends, refused + (not spends)
                code = proposal.code
                if code is None or (digest := code_hash(code)) in self.results:
                    continue
                if digest not in queued:
                    queued.add(digest)
                    batch.append(code)
                    yield code

        results = self.evaluate_many_fn(fresh())
        for code, result in zip(batch, results, strict=False):
            self.results[code_hash(code)] = result
        recorded = []
        for request, proposal in proposed:
            if proposal.code is not None and code_hash(proposal.code) not in self.results:
                break  # the batch was cut short by a cancel
            candidate = self.record(request, proposal, parent, phase)
            recorded.append((request, candidate, proposal.code is not None or proposal.retryable))
        return recorded

    def propose(self, request: ProposeRequest) -> Proposal:
        proposal = self.propose_fn(request)
        if proposal.code is not None and _same_code(proposal.code, request.code):
            return dataclasses.replace(
                proposal, code=None, message="the answer repeats the current code unchanged"
            )
        return proposal

    def one_by_one(self, codes: Iterable[str]) -> list[Evaluation]:
        """The batch verifier without ``evaluate_many_fn``: each code as it is proposed,
        stopping when the search is cancelled."""
        results: list[Evaluation] = []
        for code in codes:
            if self.cancel is not None and self.cancel.is_set():
                break
            results.append(self.evaluate_fn(code))
        return results

    def record(
        self, request: ProposeRequest, proposal: Proposal, parent: int | None, phase: str
    ) -> Candidate:
        if proposal.code is None:
            result = Evaluation(Status.NO_CODE, code_hash(""), feedback=proposal.message)
        else:
            result = self.results[code_hash(proposal.code)]
        applied = proposal.technique or request.technique
        candidate = Candidate(
            index=len(self.trace),
            parent=parent,
            technique=applied,
            phase=phase,
            producer=proposal.producer,
            code=proposal.code or "",
            think=proposal.think,
            result=result,
            asked="" if applied == request.technique else request.technique,
        )
        self.trace.append(candidate)
        if proposal.code is None and not proposal.retryable:
            self.refusals.add(candidate.index)
        speedup = result.speedup
        if speedup is not None and (self.best_speedup is None or speedup > self.best_speedup):
            self.best_speedup = speedup
        if self.progress_fn is not None:
            self.progress_fn(
                SearchProgress(self.spent, self.config.budget, request.technique, self.best_speedup)
            )
        return candidate

    def value(self, candidate: Candidate) -> float:
        reward = candidate.result.reward
        return self.config.unmeasured_reward if reward is None else reward

    # -- the answer ----------------------------------------------------------------------

    def result(self, reason: StopReason) -> SearchResult:
        return answer_of(self.trace, reason)

    def lineage(self, candidate: Candidate) -> list[Candidate]:
        return lineage(self.trace, candidate)


def _same_code(a: str, b: str) -> bool:
    """Equal but for white space: an echo of the input is not a step, whatever its layout."""
    return a.split() == b.split()
