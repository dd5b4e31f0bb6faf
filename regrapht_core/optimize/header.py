"""The comment block on top of optimized code: what was measured, where, and how.

It is the durable record of a result (the editor's hover reads it back after a restart),
so it states the speedup only when it was measured, always with the device, the sizes and
the timing mode, and says "compiled only" plainly otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

from regrapht_core.contracts.proposal import Candidate, StepRecord
from regrapht_core.contracts.task import SizeBinding, Task
from regrapht_core.graph.taxonomy import display_name

__all__ = ["HEADER_MARK", "render_header"]

HEADER_MARK = "// ReGraphT:"


def _sizes(binding: SizeBinding) -> str:
    return ", ".join(f"{name}={value}" for name, value in binding.items())


def _step(step: StepRecord) -> str:
    """A technique, with the speedup measured after it when there is one."""
    name = display_name(step.technique)
    return name if step.speedup is None else f"{name} ({step.speedup:.2f}x)"


def render_header(
    task: Task,
    answer: Candidate,
    path: Sequence[StepRecord],
    *,
    model: str,
    candidates_tried: int,
) -> str:
    result = answer.result
    lines: list[str] = []
    if result.verified and result.timing is not None:
        timing = result.timing
        device = result.device.name if result.device else "unknown GPU"
        lines.append(
            f"{HEADER_MARK} {timing.speedup:.2f}x faster than the sequential {task.entry} "
            f"(verified on {device})"
        )
        lines.append(
            f"//   timing: {timing.mode}, median of {timing.runs} runs: "
            f"{timing.reference_ms:.4g} ms -> {timing.candidate_ms:.4g} ms"
        )
        if result.device:
            lines.append(f"//   driver {result.device.driver}, nvcc {result.device.nvcc}")
        lines.append(
            f"//   checked: {len(result.sizes)} sizes x {result.seeds} seeds; "
            f"timed at {_sizes(task.timing_size)}"
        )
    else:
        lines.append(f"{HEADER_MARK} compiled only - not run, not timed (no GPU was available)")
        lines.append("//   it passed the static checks and compiled; its results are unchecked")
    steps = " -> ".join(_step(step) for step in path) or "none"
    lines.append(f"//   techniques: {steps}")
    lines.append(f"//   model: {model}; candidates tried: {candidates_tried}")
    return "\n".join(lines) + "\n"
