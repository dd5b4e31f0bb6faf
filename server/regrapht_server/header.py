"""Reading back the header comment the core writes above optimized code.

The header is the only record of a result that survives a restart, so hover reads it from
the text rather than from server memory. It is parsed loosely (a summary line, then
``key: value`` lines, anything else kept as a note) so that wording changes in the core
degrade the hover instead of breaking it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from regrapht_core.optimize.header import HEADER_MARK

__all__ = [
    "POINTER_MARK",
    "HeaderRecord",
    "Step",
    "header_rows",
    "parse_header",
    "pointer_comment",
    "pointer_target",
]

POINTER_MARK = "// ReGraphT CUDA version:"
"""Starts the one-line comment left above a C/C++ function whose CUDA version went to a
separate file. Deliberately not ``HEADER_MARK``: it points at a record, it is not one."""

_CONTINUATION = "//   "
_FIELD = re.compile(r"^(?P<key>[a-z]+): (?P<value>.*)$")
_STEP = re.compile(r"^(?P<name>.*?)(?: \((?P<speedup>\d+(?:\.\d+)?x)\))?$")
_POINTER = re.compile(re.escape(POINTER_MARK) + r" (?P<file>\S+\.regrapht\.cu)\b")


@dataclass(frozen=True, slots=True)
class Step:
    technique: str
    speedup: str | None
    """As written in the header (``"3.10x"``), when the step was timed."""


@dataclass(frozen=True, slots=True)
class HeaderRecord:
    summary: str
    fields: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]

    def field(self, key: str) -> str | None:
        return dict(self.fields).get(key)

    @property
    def steps(self) -> tuple[Step, ...]:
        techniques = self.field("techniques")
        if not techniques or techniques == "none":
            return ()
        steps = []
        for part in techniques.split(" -> "):
            match = _STEP.match(part.strip())
            assert match is not None  # the pattern matches any text
            steps.append(Step(match["name"], match["speedup"]))
        return tuple(steps)

    def markdown(self, where: str | None = None) -> str:
        lines = [f"**ReGraphT**: {self.summary}"]
        if where:
            lines.append(f"\nin `{where}`")
        if self.steps:
            lines.append("\n**Techniques, in order**\n")
            for number, step in enumerate(self.steps, start=1):
                timed = f" — {step.speedup}" if step.speedup else ""
                lines.append(f"{number}. {step.technique}{timed}")
        checks = [f"{key}: {value}" for key, value in self.fields if key in ("timing", "checked")]
        lines.append("\n**Verification**\n")
        lines.extend(f"- {line}" for line in (*checks, *self.notes))
        model = self.field("model")
        if model:
            lines.append(f"\n**Model**: {model}")
        return "\n".join(lines)


def header_rows(lines: Sequence[str], block: range) -> range | None:
    """The rows of the header inside a comment block: its mark line and continuations."""
    start = next((row for row in block if lines[row].lstrip().startswith(HEADER_MARK)), None)
    if start is None:
        return None
    end = start + 1
    while end < block.stop and lines[end].lstrip().startswith(_CONTINUATION):
        end += 1
    return range(start, end)


def parse_header(lines: Sequence[str]) -> HeaderRecord:
    """``lines`` from ``header_rows``: the mark line first."""
    summary = lines[0].strip().removeprefix(HEADER_MARK).strip()
    fields: list[tuple[str, str]] = []
    notes: list[str] = []
    for line in lines[1:]:
        text = line.strip().removeprefix("//").strip()
        # "model: m; candidates tried: 3" is one field whose value keeps its second part.
        match = _FIELD.match(text)
        if match:
            fields.append((match["key"], match["value"]))
        elif text:
            notes.append(text)
    return HeaderRecord(summary, tuple(fields), tuple(notes))


def pointer_comment(file_name: str, summary: str) -> str:
    return f"{POINTER_MARK} {file_name} ({summary})"


def pointer_target(line: str) -> str | None:
    """The file a pointer comment names, or ``None`` when ``line`` is not one."""
    match = _POINTER.match(line.strip())
    return match["file"] if match else None
