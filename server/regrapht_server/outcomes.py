"""What a running job shows the user.

What a finished job offers (``judge``) and learning from it are the core's
(``regrapht_core.api``); this module keeps the progress line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from regrapht_core.graph.taxonomy import display_name

if TYPE_CHECKING:
    from regrapht_core.contracts.proposal import SearchProgress

__all__ = ["progress_message"]


def progress_message(progress: SearchProgress, *, gpu: bool) -> str:
    if progress.best_speedup is not None:
        best = f"best {progress.best_speedup:.2f}x"
    else:
        best = "best -" if gpu else "not timed (no GPU)"
    technique = display_name(progress.technique)
    return f"{progress.evaluations}/{progress.budget} candidates, {best}, {technique}"
