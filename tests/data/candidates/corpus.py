"""Reading the corpus: each candidate states in its header what the verifier must conclude.

Header lines (``//`` comments at the top of the file)::

    // cheat: <what it tries>        or   // honest: <technique>
    // expect: <status>[ | <status> ...]

A candidate the static gate must refuse says ``expect: gate_rejected`` and marks every
line the gate must flag with a trailing ``// gate: <rule>[, <rule>]``, so a test can hold
the gate to exactly those lines and rules (``/* gate: <rule> */`` where a line cannot
end in a comment, as before a line splice). Several statuses separated by ``|`` are listed
only where the outcome is honestly either (a race may corrupt the first run or only the
second).

A cheat that passes the source gate but that the object check (``verify/objects.py``, run
on the compiled object) must refuse says ``expect: gate_rejected`` (the pipeline reports
both stages so) and, on a line of its own, ``// stage: object``; it carries no gate marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from regrapht_core.contracts.evaluation import Status
from regrapht_core.contracts.task import Task
from regrapht_core.verify.gate import Rule
from tests.data.candidates.tasks import TASKS

__all__ = ["CORPUS_DIR", "Candidate", "gate_marks", "load_corpus"]

CORPUS_DIR = Path(__file__).parent
_MARKS = (("// gate:", ""), ("/* gate:", "*/"))


@dataclass(frozen=True, slots=True)
class Candidate:
    path: Path
    task: Task
    source: str
    honest: bool
    summary: str
    expect: frozenset[Status]
    gate_marks: frozenset[tuple[int, Rule]]
    """(line, rule) pairs the gate must report, and no others."""
    stage: str = "source"
    """Where a ``gate_rejected`` candidate is refused: ``source`` (the gate) or ``object``."""

    @property
    def id(self) -> str:
        return f"{self.task.name}/{self.path.stem}"

    @property
    def gate_rejected(self) -> bool:
        """The source gate refuses it."""
        return Status.GATE_REJECTED in self.expect and self.stage == "source"

    @property
    def object_rejected(self) -> bool:
        """It passes the source gate; the object check refuses its compiled object."""
        return self.stage == "object"


def _header(source: str, key: str) -> str | None:
    for line in source.splitlines():
        if not line.startswith("//"):
            break
        name, _, value = line[2:].strip().partition(":")
        if name.strip() == key:
            return value.strip()
    return None


def gate_marks(source: str) -> frozenset[tuple[int, Rule]]:
    marks: set[tuple[int, Rule]] = set()
    for number, line in enumerate(source.splitlines(), start=1):
        for opener, closer in _MARKS:
            _, found, rest = line.partition(opener)
            if found:
                rules = rest.partition(closer)[0] if closer else rest
                marks.update((number, Rule(rule.strip())) for rule in rules.split(","))
    return frozenset(marks)


def _load(path: Path) -> Candidate:
    source = path.read_text()
    honest = _header(source, "honest")
    cheat = _header(source, "cheat")
    expect = _header(source, "expect")
    if (honest is None) == (cheat is None) or expect is None:
        raise ValueError(f"{path}: header needs one of `honest:`/`cheat:` and `expect:`")
    candidate = Candidate(
        path=path,
        task=TASKS[path.parent.name],
        source=source,
        honest=honest is not None,
        summary=honest or cheat or "",
        expect=frozenset(Status(s.strip()) for s in expect.split("|")),
        gate_marks=gate_marks(source),
        stage=_header(source, "stage") or "source",
    )
    if candidate.stage not in ("source", "object"):
        raise ValueError(f"{path}: `stage:` is `object` or absent")
    if candidate.object_rejected and candidate.expect != {Status.GATE_REJECTED}:
        raise ValueError(f"{path}: a `stage: object` candidate expects gate_rejected alone")
    if candidate.gate_rejected != bool(candidate.gate_marks):
        raise ValueError(f"{path}: gate_rejected candidates, and only they, carry gate marks")
    return candidate


def load_corpus() -> tuple[Candidate, ...]:
    return tuple(_load(path) for path in sorted(CORPUS_DIR.glob("*/*.cu")))
