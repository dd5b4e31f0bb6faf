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

A cheat only compute-sanitizer can catch says ``// stage: sanitizer`` and ``expect:
sanitizer_error``: its runs may verify, the sanitizer on the final answer must object. A
cheat that is in fact correct and tries to gain time some other way (slowing the machine
between calls) may list ``verified`` only with ``// bounded_by: <honest file>`` naming an
honest candidate of the same task: when it verifies, its speedup must stay within 1.25x of
that one's.
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
    """Where the cheat is caught: ``source`` (the gate or the run), ``object`` (the object
    check) or ``sanitizer`` (compute-sanitizer on the final answer)."""
    bounded_by: Path | None = None
    """The honest candidate a cheat that verifies must not beat by more than 1.25x."""

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
        bounded_by=_bound(path, _header(source, "bounded_by")),
    )
    if candidate.stage not in ("source", "object", "sanitizer"):
        raise ValueError(f"{path}: `stage:` is `object`, `sanitizer` or absent")
    if candidate.stage == "sanitizer" and candidate.expect != {Status.SANITIZER_ERROR}:
        raise ValueError(f"{path}: a `stage: sanitizer` cheat expects sanitizer_error alone")
    if not candidate.honest and (Status.VERIFIED in candidate.expect) != bool(candidate.bounded_by):
        raise ValueError(f"{path}: a cheat may expect `verified` only with `bounded_by:`")
    if candidate.object_rejected and candidate.expect != {Status.GATE_REJECTED}:
        raise ValueError(f"{path}: a `stage: object` candidate expects gate_rejected alone")
    if candidate.gate_rejected != bool(candidate.gate_marks):
        raise ValueError(f"{path}: gate_rejected candidates, and only they, carry gate marks")
    return candidate


def _bound(path: Path, name: str | None) -> Path | None:
    if name is None:
        return None
    control = path.parent / f"{name}.cu"
    if not control.name.startswith("honest_") or not control.exists():
        raise ValueError(f"{path}: `bounded_by:` names no honest candidate of its task")
    return control


def load_corpus() -> tuple[Candidate, ...]:
    return tuple(_load(path) for path in sorted(CORPUS_DIR.glob("*/*.cu")))
