"""What a session keeps per task: the timing-size inputs, their variants' answers, the baseline.

Drawing the timing-size inputs, running the sequential reference on them and timing it
cost seconds per task (a 512^3 matrix product, 2^24-element maps); they used to be paid
for every candidate. A :class:`TimingSet` is built once per task and session: the base
inputs from a secret seed, a pool of variants (:mod:`regrapht_core.verify.variants`) with
the reference's outputs for each, and the reference's own time on the base inputs, all
computed in a reference process the candidates never run in. The reference's timed calls
run holding the GPU lock, as every candidate's do: timed while another process's candidate
or model answer kept the cores busy, the reference came out slow, and unchanged host code
"beat" it by up to 1.29x on the H200 (docs/verification-design.md). Candidates then get the base
inputs and, call by call, variants: pool ones (whose answers are known, so the call can be
checked) mixed with fresh ones the verifier draws on the spot, in an order they cannot
see.
"""

from __future__ import annotations

import os
import secrets
import shutil
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from regrapht_core.contracts.task import Task
from regrapht_core.verify.cases import Array, Case, stage_case
from regrapht_core.verify.compare import Expected, first_mismatch
from regrapht_core.verify.driver import Harness
from regrapht_core.verify.timing import Adaptive
from regrapht_core.verify.variants import Variant, draw_variant

__all__ = [
    "BASE_FOLDER",
    "TimingSet",
    "build_timing_set",
    "link_base",
    "stage_base",
    "time_reference",
]

BASE_FOLDER = "base"
POOL_SIZE = 12
"""Variants per task with known answers; each candidate's checked calls are drawn from them
(``checked_calls`` among the first calls, the rest later at the same rate)."""


@dataclass(frozen=True, slots=True)
class TimingSet:
    case: Case
    """The base inputs (one array per argument) at the timing size."""
    folder: Path
    """Their files, read-only, linked into each candidate's run directory."""
    pool: tuple[Variant, ...]
    expected: tuple[Expected, ...]
    """The reference's outputs for each pool variant (and the exact-sum reference's)."""
    telling: tuple[int, ...]
    """Pool variants whose answers differ from the base inputs' answer: checking one of
    those catches a candidate that returns an earlier call's result."""
    reference_ms: tuple[float, ...]
    """The reference's times on the base inputs, caches flushed before each call."""

    def fresh(self, task: Task, rng: np.random.Generator) -> Variant:
        return draw_variant(task, self.case.arrays, rng)


def stage_base(folder: Path, case: Case) -> None:
    """The base inputs' files in ``folder``, before a reference harness starts there."""
    stage_case(folder, BASE_FOLDER, case.arrays)


def build_timing_set(
    task: Task,
    case: Case,
    folder: Path,
    harness: Harness,
    *,
    adaptive: Adaptive,
    turn: AbstractContextManager[bool],
    exact: Harness | None = None,
) -> TimingSet | None:
    """Ask the reference ``harness`` (running in ``folder``, where :func:`stage_base` put
    ``case``) for the answers, then, inside ``turn`` (the GPU lock, held while it yields
    ``True``), for its time; ``None`` if the turn was not granted (the deadline passed).
    ``exact``: the exact-sum reference (:mod:`regrapht_core.verify.exact`) running in the
    same folder, asked for its answers too, then quit. Raises ``HarnessStopped``."""
    rng = np.random.default_rng(secrets.randbits(64))
    pool = tuple(draw_variant(task, case.arrays, rng) for _ in range(POOL_SIZE))
    answers = _answers(harness, pool)
    exact_answers = _answers(exact, pool)[1:] if exact is not None else None
    if exact is not None:
        exact.quit()
    times = time_reference(harness, adaptive=adaptive, turn=turn)
    harness.quit()
    if times is None:
        return None
    base, written = answers[0], answers[1:]
    expected = tuple(
        Expected(w, exact_answers[k] if exact_answers is not None else None)
        for k, w in enumerate(written)
    )
    telling = tuple(
        k
        for k, outputs in enumerate(written)
        if any(
            first_mismatch(name, base[name], outputs[name], task.tolerance.at(case.binding))
            is not None
            for name in base
        )
    )
    _read_only(folder / BASE_FOLDER)
    return TimingSet(case, folder / BASE_FOLDER, pool, expected, telling, times)


def _answers(harness: Harness, pool: tuple[Variant, ...]) -> list[dict[str, Array]]:
    """The outputs for the base inputs, then for each variant of ``pool``."""
    harness.load(BASE_FOLDER)
    answers = []
    for variant in ((), *pool):
        harness.use(variant)
        harness.call(flush=False)
        answers.append(harness.dump().outputs)
    return answers


def time_reference(
    harness: Harness, *, adaptive: Adaptive, turn: AbstractContextManager[bool]
) -> tuple[float, ...] | None:
    """The reference ``harness``'s times on the base inputs (loaded), caches flushed before
    each call, inside ``turn``; ``None`` if the turn was not granted. The caller quits."""
    harness.use(())
    times: list[float] = []
    with turn as held:
        if not held:
            return None
        while not adaptive.enough(times):
            times.append(harness.call(flush=True).host_ms)
            harness.skip()
    return tuple(times)


def _read_only(folder: Path) -> None:
    """Owned by this process and read-only for everyone: candidates read them, never write."""
    for path in folder.iterdir():
        if os.geteuid() == 0:
            os.chown(path, 0, 0)
        path.chmod(0o444)
    if os.geteuid() == 0:
        os.chown(folder, 0, 0)
    folder.chmod(0o755)


def link_base(timing: TimingSet, root: Path) -> None:
    """The base inputs in ``root``'s ``base`` folder: hard links where possible, else copies."""
    target = root / BASE_FOLDER
    target.mkdir()
    for path in timing.folder.iterdir():
        try:
            os.link(path, target / path.name)
        except OSError:
            shutil.copyfile(path, target / path.name)
    target.chmod(0o755)
