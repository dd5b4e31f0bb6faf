"""The one exception hierarchy of the core.

Errors here are the ones a user must act on (a missing model, a corrupt snapshot, a bad
setting, code the tool cannot understand). Each message names the file or setting and the
fix. Outcomes of checking a candidate (compile error, wrong output, timeout, no GPU) are
*not* exceptions: they are statuses of a ``Evaluation``. Boundaries (CLI, language
server) translate ``ReGraphTError`` once into an exit code or an LSP message.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "ConfigError",
    "GraphError",
    "GraphFormatError",
    "ModelError",
    "ReGraphTError",
    "ReferenceCompileError",
    "TaskError",
    "TrajectoryError",
    "UnknownTechniqueError",
]


class ReGraphTError(Exception):
    """Base of every error a user must act on."""


class ConfigError(ReGraphTError):
    """A setting or flag has a value the tool cannot use."""


class GraphError(ReGraphTError):
    """The ReGraph cannot be built or queried as asked."""


class UnknownTechniqueError(GraphError):
    """A free-form method name matches no technique of the taxonomy."""

    def __init__(self, method: str, suggestion: str | None = None) -> None:
        hint = f" Closest known technique: {suggestion!r}." if suggestion else ""
        super().__init__(
            f"{method!r} is not a known CUDA optimization technique.{hint} "
            "Add it as a synonym in regrapht_core/graph/taxonomy.py, or build with "
            "--allow-new to add it as a new technique."
        )
        self.method = method
        self.suggestion = suggestion


class GraphFormatError(GraphError):
    """A snapshot file is unreadable: truncated, foreign, from the future, or tampered."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(
            f"{path}: {problem}. Rebuild the snapshot with `regrapht graph build` "
            "or point the setting at another file."
        )
        self.path = Path(path)
        self.problem = problem


class TrajectoryError(GraphError):
    """A trajectory source file is malformed."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


class TaskError(ReGraphTError):
    """Source code cannot be turned into a checkable task (or a task file is malformed)."""


class ReferenceCompileError(TaskError):
    """The user's own code does not compile as it stands (a missing include, a typo): no
    annotation can fix that, the code must change."""


class ModelError(ReGraphTError):
    """A language model cannot be loaded or reached."""
