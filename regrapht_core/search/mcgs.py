"""MCGS: selection by P-UCB, expansion of all successors on first visit, an ε-greedy
rollout to a depth cap that stops at the first failing step, the maximum reward along the
rollout backed up the selection path. Every evaluated candidate can be the answer.

Every state a step reaches, in an expansion or a rollout, is stored in the tree under the
(state, technique) edge that reached it, and is never proposed for again: a proposer may
hand out each candidate for a step once (the rewriter proposer does), so asking twice got a
refusal, scored as a failure, and orphaned the state the rollout had verified.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable

from regrapht_core.contracts.deadline import Deadline
from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.proposal import (
    Candidate,
    EvaluateFn,
    ProposeFn,
    ProposeRequest,
    SearchProgress,
    SearchResult,
    StopReason,
)
from regrapht_core.contracts.task import Task
from regrapht_core.search.answer import answer_of, lineage
from regrapht_core.search.config import GraphView, SearchConfig, root_technique
from regrapht_core.search.rollout import rollout_action
from regrapht_core.search.selection import select_action
from regrapht_core.search.tree import Node, SearchGraph, code_hash

__all__ = ["run_search"]

_REFUSED = "refused"
"""The state key's second half for a step a proposer refused outright (not a code hash)."""


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
) -> SearchResult:
    """Search for the fastest verified rewrite of ``task.source``.

    Deterministic given ``rng``, the proposals and the verifier results, so a recorded
    trace replays exactly. ``cancel`` and the ``deadline`` (the job's; by default one of
    ``config.time_limit_s`` from now) are honoured between candidates, and the deadline
    goes with every request to the proposer; the best verified result so far is still
    returned.
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
    ) -> None:
        self.task, self.graph, self.config, self.rng = task, graph, config, rng
        self.propose_fn, self.evaluate_fn = propose_fn, evaluate_fn
        self.progress_fn, self.cancel = progress_fn, cancel
        self.trace: list[Candidate] = []
        self.results: dict[str, Evaluation] = {}
        start = root_technique(task)
        root = Node(start, task.source, candidate=None, reward=0.0)
        self.tree = SearchGraph(root=(start, code_hash(task.source)))
        self.tree.nodes[self.tree.root] = root
        self.closed: set[tuple[str, str]] = set()
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
        """Descend by P-UCB to an unapplied action, apply it, roll out, back up.

        A state with nothing left to try (failed, a leaf, at the depth cap, or only
        leading back into the current path) is closed and the iteration ends without a
        backup: only evaluations teach the search, and each closing shrinks what is left.
        """
        path = [self.tree.root]
        while True:
            key = path[-1]
            node = self.tree.nodes[key]
            if node.children is None and not node.terminal and len(path) <= self.config.depth_cap:
                node.children = dict.fromkeys(self.graph.successors(node.technique))
            open_actions = {
                action: child
                for action, child in (node.children or {}).items()
                if child is None or (child not in self.closed and child not in path)
            }
            if node.terminal or len(path) > self.config.depth_cap or not open_actions:
                self.closed.add(key)
                return
            view = dataclasses.replace(node, children=open_actions)
            action = select_action(self.tree, view, self.config.exploration, self.rng)
            child_key = open_actions[action]
            if child_key is not None:
                path.append(child_key)
                continue
            expanded = self.step(key, action, "expand")
            if expanded is None:
                return
            child_key, value = expanded
            path.append(child_key)
            value = max(value, self.rollout(child_key, depth=len(path) - 1))
            break
        for visited in path:
            n = self.tree.nodes[visited]
            n.visits += 1
            n.value_sum += value

    def step(
        self, key: tuple[str, str], action: str, phase: str
    ) -> tuple[tuple[str, str], float] | None:
        """Apply ``action`` to the tree state ``key`` and store the state it reaches; ``None``
        when nothing was evaluated (stopped, or a deterministic refusal, which closes the
        step without a reward)."""
        parent = self.tree.nodes[key]
        candidate = self.apply(parent.technique, parent.code, parent.candidate, action, phase)
        if candidate is None:
            return None
        if parent.children is None:
            parent.children = dict.fromkeys(self.graph.successors(parent.technique))
        if candidate.index in self.refusals:
            refused = (action, _REFUSED)
            self.tree.nodes.setdefault(refused, Node(action, "", None, 0.0, terminal=True))
            self.closed.add(refused)
            parent.children[action] = refused
            return None
        value = self.value(candidate)
        self.tree.edge(parent.technique, action).add(value)
        child_key = (action, code_hash(candidate.code))
        if child_key not in self.tree.nodes:
            self.tree.nodes[child_key] = Node(
                action,
                candidate.code,
                candidate=candidate.index,
                reward=value,
                terminal=candidate.result.status.failed,
            )
        parent.children[action] = child_key
        return child_key, value

    def take(self, key: tuple[str, str], action: str) -> tuple[tuple[str, str], float] | None:
        """A rollout's step from ``key``: the stored one if it was taken before, else new."""
        known = (self.tree.nodes[key].children or {}).get(action)
        if known is not None:
            return None if known[1] == _REFUSED else (known, self.tree.nodes[known].reward)
        return self.step(key, action, "rollout")

    def rollout(self, key: tuple[str, str], depth: int) -> float:
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
            )
            stepped = self.take(key, action)
            if stepped is None:
                break
            key, step_value = stepped
            value = max(value, step_value)
            depth += 1
        return value

    # -- one step: propose, verify, maybe retry with feedback ------------------------------

    def apply(
        self, technique: str, code: str, parent: int | None, action: str, phase: str
    ) -> Candidate | None:
        request = ProposeRequest(
            self.task, technique, action, code, cancel=self.cancel, deadline=self.deadline
        )
        attempted = self.attempt(request, parent, phase)
        if attempted is None:
            return None
        candidate, retryable = attempted
        if candidate.result.status.failed and retryable and self.config.retry_with_feedback:
            retry = dataclasses.replace(request, feedback=candidate.result.feedback)
            again = self.attempt(retry, parent, "retry")
            if again is not None:
                candidate = again[0]
        return candidate

    def attempt(
        self, request: ProposeRequest, parent: int | None, phase: str
    ) -> tuple[Candidate, bool] | None:
        """The evaluated proposal, and whether a retry of this step could differ."""
        if self.stop_reason() is not None:
            return None
        proposal = self.propose_fn(request)
        if proposal.code is not None and _same_code(proposal.code, request.code):
            proposal = dataclasses.replace(
                proposal, code=None, message="the answer repeats the current code unchanged"
            )
        if proposal.code is None:
            code = ""
            result = Evaluation(Status.NO_CODE, code_hash(""), feedback=proposal.message)
        else:
            code = proposal.code
            digest = code_hash(code)
            if digest not in self.results:
                self.results[digest] = self.evaluate_fn(code)
            result = self.results[digest]
        candidate = Candidate(
            index=len(self.trace),
            parent=parent,
            technique=request.technique,
            phase=phase,
            producer=proposal.producer,
            code=code,
            think=proposal.think,
            result=result,
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
        return candidate, proposal.code is not None or proposal.retryable

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
