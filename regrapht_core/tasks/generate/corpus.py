"""The generated corpus: every family's tasks, a train/test split, the files on disk.

Mining learns from the train split and the comparison of graphs runs on the test split, so
the split must not leak and must not drift: it is stratified by family (every family has
tasks on both sides, so a technique is never only ever tested) and decided by a string-seeded
shuffle of the sorted names, which gives the same answer on every machine and Python
version. The manifest is the suite's format (``name``, ``file``, ``function``, ``family``)
plus ``split``, so ``regrapht bench run`` takes it as it is.

Every task is validated before anything is written (the reference under AddressSanitizer
and UBSan, :func:`~regrapht_core.tasks.validate.validate_task`), and ``validation.json``
records each validated source's SHA-256 with the compiler that ran it, so a check can tell
a committed file from one that was edited after validation without recompiling hundreds.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import subprocess
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.errors import TaskError
from regrapht_core.files import atomic_write
from regrapht_core.tasks.extract import extract_task
from regrapht_core.tasks.generate.base import Family, Generated
from regrapht_core.tasks.generate.registry import FAMILIES
from regrapht_core.tasks.validate import HOST_COMPILER, validate_task

__all__ = [
    "MANIFEST",
    "VALIDATION",
    "Corpus",
    "digest",
    "generate",
    "validate",
    "write_corpus",
]

MANIFEST = "manifest.toml"
VALIDATION = "validation.json"


@dataclass(frozen=True, slots=True)
class Corpus:
    """The tasks in generation order and each one's side of the split."""

    tasks: tuple[Generated, ...]
    split: dict[str, str]
    """Task name -> ``"train"`` or ``"test"``."""
    seed: int
    test_fraction: float

    def families(self) -> Counter[str]:
        return Counter(t.family for t in self.tasks)


def _split(tasks: Sequence[Generated], seed: int, test_fraction: float) -> dict[str, str]:
    by_family: dict[str, list[str]] = defaultdict(list)
    for task in tasks:
        by_family[task.family].append(task.name)
    sides: dict[str, str] = {}
    for family, names in by_family.items():
        order = sorted(names)
        random.Random(f"{seed}:{family}").shuffle(order)
        tested = min(len(order) - 1, max(1, math.ceil(test_fraction * len(order))))
        sides.update({name: "test" if k < tested else "train" for k, name in enumerate(order)})
    return sides


def generate(
    families: Iterable[Family] = FAMILIES, *, seed: int = 0, test_fraction: float = 0.2
) -> Corpus:
    """Every family's tasks and their split. Raises TaskError on a repeated name."""
    if not 0 < test_fraction < 1:
        raise TaskError(f"the test fraction {test_fraction} is not between 0 and 1")
    tasks = tuple(task for family in families for task in family.variants())
    repeated = [name for name, count in Counter(t.name for t in tasks).items() if count > 1]
    if repeated:
        raise TaskError(f"generated task names repeat: {', '.join(sorted(repeated)[:5])}")
    return Corpus(tasks, _split(tasks, seed, test_fraction), seed, test_fraction)


def digest(source: str) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _check(task: Generated) -> str | None:
    """None when the task extracts and its reference runs clean; else the one-line reason."""
    try:
        spec = extract_task(
            task.source,
            SourceLanguage.CPP,
            function=task.function,
            origin=f"{task.name}.cpp",
            validate=False,
        )
        validate_task(spec)
    except TaskError as err:
        return str(err).splitlines()[0] if str(err) else type(err).__name__
    return None


def validate(
    tasks: Sequence[Generated],
    *,
    jobs: int = 2,
    advance: Callable[[Generated], None] = lambda _task: None,
) -> dict[str, str]:
    """The tasks that fail validation, each with its reason (empty: all pass). ``advance``
    is called as each task finishes (a progress bar)."""

    def one(task: Generated) -> tuple[str, str | None]:
        reason = _check(task)
        advance(task)
        return task.name, reason

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return {name: why for name, why in pool.map(one, tasks) if why is not None}


def _compiler() -> str:
    try:
        run = subprocess.run(
            [HOST_COMPILER, "--version"], capture_output=True, text=True, check=False
        )
    except OSError as err:
        return f"{HOST_COMPILER}: {err}"
    return run.stdout.splitlines()[0] if run.stdout else HOST_COMPILER


def _manifest(corpus: Corpus) -> str:
    lines = [
        f"# Written by `regrapht tasks generate --seed {corpus.seed} --test-fraction "
        f"{corpus.test_fraction}`; regenerate rather than edit.",
    ]
    for task in corpus.tasks:
        lines += [
            "",
            "[[task]]",
            f'name = "{task.name}"',
            f'file = "{task.family}/{task.name}.cpp"',
            f'function = "{task.function}"',
            f'family = "{task.family}"',
            f'split = "{corpus.split[task.name]}"',
        ]
    return "\n".join(lines) + "\n"


def write_corpus(corpus: Corpus, out: Path) -> None:
    """The task files under ``out/<family>/``, the manifest and the validation record.
    Files of tasks the generator no longer makes are removed, so the directory is exactly
    the corpus."""
    wanted = {out / t.family / f"{t.name}.cpp" for t in corpus.tasks}
    if out.exists():
        for stale in out.glob("*/*.cpp"):
            if stale not in wanted:
                stale.unlink()
    for task in corpus.tasks:
        path = out / task.family / f"{task.name}.cpp"
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, task.source.encode("utf-8"))
    record = {
        "compiler": _compiler(),
        "seed": corpus.seed,
        "test_fraction": corpus.test_fraction,
        "tasks": {t.name: digest(t.source) for t in corpus.tasks},
    }
    atomic_write(out / VALIDATION, (json.dumps(record, indent=1) + "\n").encode("utf-8"))
    atomic_write(out / MANIFEST, _manifest(corpus).encode("utf-8"))
