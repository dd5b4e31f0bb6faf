"""The JSONL trace of a search: one line per candidate, enough to replay the search.

A search is deterministic given its RNG seed, the proposals and the verifier results, so
replaying a trace feeds the recorded proposals back in order and answers each evaluation
from the recorded result of that code: the replayed search must make the same choices.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from regrapht_core.contracts.evaluation import DeviceInfo, Evaluation, Status, Timing
from regrapht_core.contracts.proposal import (
    Candidate,
    EvaluateFn,
    Proposal,
    ProposeFn,
    ProposeRequest,
)
from regrapht_core.contracts.task import TimingMode
from regrapht_core.errors import ReGraphTError
from regrapht_core.search.tree import code_hash

__all__ = ["TraceError", "read_trace", "replay_fns", "write_trace"]


class TraceError(ReGraphTError):
    """A trace file cannot be read back."""


def write_trace(candidates: Iterable[Candidate], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for candidate in candidates:
            record = dataclasses.asdict(candidate)
            record["code_hash"] = code_hash(candidate.code)
            out.write(json.dumps(record, sort_keys=True) + "\n")


def read_trace(path: Path) -> list[Candidate]:
    candidates = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
                record.pop("code_hash", None)
                record["result"] = _result(record["result"])
                candidates.append(Candidate(**record))
            except (ValueError, KeyError, TypeError) as exc:
                raise TraceError(f"{path}:{number}: not a trace record ({exc})") from exc
    return candidates


def _timing(record: dict[str, Any]) -> Timing:
    return Timing(**{**record, "mode": TimingMode(record["mode"])})


def _result(record: dict[str, Any]) -> Evaluation:
    timing = record.get("timing")
    device = record.get("device")
    return Evaluation(
        **{
            **record,
            "status": Status(record["status"]),
            "timing": _timing(timing) if timing else None,
            "timings": tuple(_timing(t) for t in record.get("timings", ())),
            "device": DeviceInfo(**device) if device else None,
            "sizes": tuple(record.get("sizes", ())),
            "flags": tuple(record.get("flags", ())),
        }
    )


def replay_fns(candidates: list[Candidate]) -> tuple[ProposeFn, EvaluateFn]:
    """A proposer and verifier that answer exactly as recorded, in the recorded order."""
    proposals: Iterator[Candidate] = iter(candidates)
    results = {c.code: c.result for c in candidates if c.code}

    def propose(request: ProposeRequest) -> Proposal:
        recorded = next(proposals, None)
        if recorded is None or recorded.step != request.technique:
            raise TraceError(f"replay diverged at technique {request.technique!r}")
        code = recorded.code or None
        message = recorded.result.feedback if code is None else ""
        applied = recorded.technique if recorded.asked else None
        return Proposal(
            code,
            think=recorded.think,
            producer=recorded.producer,
            message=message,
            technique=applied,
        )

    def evaluate(code: str) -> Evaluation:
        if code not in results:
            raise TraceError("replay diverged: the search asked to verify code never recorded")
        return results[code]

    return propose, evaluate
