"""The record of one result: what was measured, where, and how; rendered and parsed here.

The comment header above optimized code is the durable record of a result (the editor's
hover reads it back after a restart), so it states the speedup only when it was measured,
always with the device, the sizes and the timing mode, and says "compiled only" plainly
otherwise. People read its prose lines; programs read its one ``record:`` line, the same
fields as JSON with a schema version, so that no reader ever parses the prose back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from regrapht_core.contracts.proposal import Candidate, StepRecord
from regrapht_core.contracts.task import Task
from regrapht_core.graph.taxonomy import display_name

__all__ = [
    "COMPILED_ONLY",
    "CONTINUATION",
    "HEADER_MARK",
    "Measurement",
    "ResultRecord",
    "Step",
    "header_rows",
]

HEADER_MARK = "// ReGraphT:"
CONTINUATION = "//   "
"""Starts every header line after the mark line."""
COMPILED_ONLY = "compiled only — not run, not timed"
_RECORD = f"{CONTINUATION}record: "
_SCHEMA = 1
"""Version of the ``record:`` line's JSON; a reader refuses versions it does not know."""
_UNCHECKED = "it passed the static checks and compiled; its results are unchecked"


@dataclass(frozen=True, slots=True)
class Step:
    technique: str
    """The technique's id in the ReGraph taxonomy."""
    speedup: float | None
    """Measured after this step, when it was timed."""

    @property
    def name(self) -> str:
        return display_name(self.technique)

    def text(self) -> str:
        return self.name if self.speedup is None else f"{self.name} ({self.speedup:.2f}x)"


@dataclass(frozen=True, slots=True)
class Measurement:
    """How a verified result was checked and timed: every speedup comes with these."""

    device: str
    driver: str | None
    """``None`` (with ``nvcc``) when the verifier could not name the device."""
    nvcc: str | None
    timing_mode: str
    runs: int
    reference_ms: float
    candidate_ms: float
    sizes_checked: int
    seeds: int
    timed_at: tuple[tuple[str, int | float], ...]

    @property
    def speedup(self) -> float:
        return self.reference_ms / self.candidate_ms


@dataclass(frozen=True, slots=True)
class ResultRecord:
    entry: str
    steps: tuple[Step, ...]
    model: str
    candidates_tried: int
    measured: Measurement | None
    """``None``: compiled only, never run or timed (no GPU)."""

    @classmethod
    def of(
        cls,
        task: Task,
        answer: Candidate,
        path: Sequence[StepRecord],
        *,
        model: str,
        candidates_tried: int,
    ) -> ResultRecord:
        result = answer.result
        measured = None
        if result.verified and result.timing is not None:
            timing, device = result.timing, result.device
            measured = Measurement(
                device=device.name if device else "unknown GPU",
                driver=device.driver if device else None,
                nvcc=device.nvcc if device else None,
                timing_mode=str(timing.mode),
                runs=timing.runs,
                reference_ms=timing.reference_ms,
                candidate_ms=timing.candidate_ms,
                sizes_checked=len(result.sizes),
                seeds=result.seeds,
                timed_at=tuple(task.timing_size.items()),
            )
        steps = tuple(Step(step.technique, step.speedup) for step in path)
        return cls(task.entry, steps, model, candidates_tried, measured)

    # -- the prose lines, shared by the header, the edit's description and the hover --------

    @property
    def headline(self) -> str:
        """The mark line's text."""
        if self.measured is None:
            return "compiled only - not run, not timed (no GPU was available)"
        m = self.measured
        return f"{m.speedup:.2f}x faster than the sequential {self.entry} (verified on {m.device})"

    @property
    def brief(self) -> str:
        """The headline in a few words: the pointer comment's tail. ASCII, like the header."""
        if self.measured is None:
            return "compiled only - not run, not timed"
        return f"{self.measured.speedup:.2f}x faster, verified on {self.measured.device}"

    @property
    def label(self) -> str:
        """The one line the user sees before applying the edit."""
        if self.measured is None:
            return f"ReGraphT: {COMPILED_ONLY}"
        speedup = f"{self.measured.speedup:.1f}\N{MULTIPLICATION SIGN}"
        return f"ReGraphT: {speedup} faster ({self.measured.device})"

    def _verification(self) -> list[str]:
        """How it was checked (timing, device, sizes), or that it was not."""
        m = self.measured
        if m is None:
            return [_UNCHECKED]
        timed_at = ", ".join(f"{name}={value}" for name, value in m.timed_at)
        return [
            f"timing: {m.timing_mode}, median of {m.runs} runs: "
            f"{m.reference_ms:.4g} ms -> {m.candidate_ms:.4g} ms",
            *([] if m.driver is None else [f"driver {m.driver}, nvcc {m.nvcc}"]),
            f"checked: {m.sizes_checked} sizes x {m.seeds} seeds; timed at {timed_at}",
        ]

    def _prose(self) -> list[str]:
        """Every header line after the mark line, in the header's order, without ``//``."""
        steps = " -> ".join(step.text() for step in self.steps) or "none"
        return [
            *self._verification(),
            f"techniques: {steps}",
            f"model: {self.model}; candidates tried: {self.candidates_tried}",
        ]

    @property
    def description(self) -> str:
        """The whole header on one line, for the edit's preview."""
        return "; ".join([self.headline, *self._prose()])

    # -- the header comment ---------------------------------------------------------------

    def render(self) -> str:
        """The header: prose for people, then the ``record:`` line; ends with a newline."""
        fields = {"schema": _SCHEMA, **asdict(self)}
        lines = [
            f"{HEADER_MARK} {self.headline}",
            *(f"{CONTINUATION}{line}" for line in self._prose()),
            _RECORD + json.dumps(fields, ensure_ascii=True, separators=(",", ":")),
        ]
        return "\n".join(lines) + "\n"

    @classmethod
    def parse(cls, lines: Sequence[str]) -> ResultRecord | None:
        """The record in a header's lines; ``None`` when it has none that this version can
        read (an older ReGraphT wrote it, or the line was edited)."""
        found = [line.strip() for line in lines if line.strip().startswith(_RECORD.strip())]
        if len(found) != 1:
            return None
        try:
            return _from_json(json.loads(found[0].removeprefix(_RECORD.strip())))
        except (ValueError, TypeError, KeyError):
            return None

    def markdown(self, where: str | None = None) -> str:
        """The hover: headline, techniques in order, how it was checked, the model."""
        lines = [f"**ReGraphT**: {self.headline}"]
        if where:
            lines.append(f"\nin `{where}`")
        if self.steps:
            lines.append("\n**Techniques, in order**\n")
            for number, step in enumerate(self.steps, start=1):
                timed = f" — {step.speedup:.2f}x" if step.speedup is not None else ""
                lines.append(f"{number}. {step.name}{timed}")
        lines.append("\n**Verification**\n")
        lines.extend(f"- {line}" for line in self._verification())
        lines.append(f"\n**Model**: {self.model}; candidates tried: {self.candidates_tried}")
        return "\n".join(lines)


def _typed(value: Any, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TypeError(f"expected {kind}, got {value!r}")
    return value


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(_typed(value, str))


def _from_json(data: Any) -> ResultRecord:
    """Strict: any missing or mistyped field makes the record unreadable, never half-read."""
    if _typed(data, dict).get("schema") != _SCHEMA:
        raise ValueError(f"unknown record schema {data.get('schema')!r}")
    steps = tuple(
        Step(_typed(s["technique"], str), None if s["speedup"] is None else _number(s["speedup"]))
        for s in _typed(data["steps"], list)
    )
    m = data["measured"]
    measured = None
    if m is not None:
        measured = Measurement(
            device=_typed(m["device"], str),
            driver=_optional_str(m["driver"]),
            nvcc=_optional_str(m["nvcc"]),
            timing_mode=_typed(m["timing_mode"], str),
            runs=_typed(m["runs"], int),
            reference_ms=_number(m["reference_ms"]),
            candidate_ms=_number(m["candidate_ms"]),
            sizes_checked=_typed(m["sizes_checked"], int),
            seeds=_typed(m["seeds"], int),
            timed_at=tuple(
                (_typed(name, str), _number(value)) for name, value in _typed(m["timed_at"], list)
            ),
        )
    return ResultRecord(
        entry=_typed(data["entry"], str),
        steps=steps,
        model=_typed(data["model"], str),
        candidates_tried=_typed(data["candidates_tried"], int),
        measured=measured,
    )


def _number(value: Any) -> int | float:
    number: int | float = _typed(value, (int, float))
    return number


def header_rows(lines: Sequence[str], block: range) -> range | None:
    """The rows of the header inside a comment block: its mark line and continuations."""
    start = next((row for row in block if lines[row].lstrip().startswith(HEADER_MARK)), None)
    if start is None:
        return None
    end = start + 1
    while end < block.stop and lines[end].lstrip().startswith(CONTINUATION):
        end += 1
    return range(start, end)
