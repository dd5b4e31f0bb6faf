"""What editors and tools call: one function per question, over plain values.

A document is parsed once per text into a :class:`Document` (``DocumentCache``; a new text
is parsed incrementally from the previous one), and
every call here takes that snapshot: which functions can be optimized, the one under the
cursor, its task, what a finished job offers, that offer merged into the document as text
changes, the record a hover shows. Positions are rows and code-point columns; an editor
converts them to its own units. Nothing here knows LSP.

Importing this module stays cheap (the language server imports it at start): the parts that
bring numpy or networkx load on the first call that needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import import_module
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from regrapht_core.contracts.task import LoopSelection, SourceLanguage, Task
from regrapht_core.cxx.document import (
    Document,
    DocumentCache,
    Function,
    FunctionKind,
    Position,
    Span,
    comment_block,
    line_starts,
)
from regrapht_core.cxx.entry import top_level_for_loops
from regrapht_core.cxx.functions import function_name, unqualified
from regrapht_core.cxx.merge import (
    FileChanges,
    Sidecar,
    Target,
    TextChange,
    Unit,
    merge_unit,
    pointer_target,
)
from regrapht_core.cxx.merge import sidecar_path as _sidecar_path
from regrapht_core.cxx.parse import language_for_path
from regrapht_core.errors import TaskError
from regrapht_core.files import read_source
from regrapht_core.optimize.record import ResultRecord, header_rows

if TYPE_CHECKING:
    from regrapht_core.checkup import check_setup, graph_summary
    from regrapht_core.contracts.proposal import Candidate, SearchProgress, SearchResult
    from regrapht_core.graph.taxonomy import display_name
    from regrapht_core.optimize.job import OptimizeOutcome
    from regrapht_core.optimize.session import JobSettings, Optimizer
    from regrapht_core.search.config import SearchConfig
    from regrapht_core.verify.config import VerifyConfig

__all__ = [
    "Candidate",
    "Document",
    "DocumentCache",
    "FileChanges",
    "Function",
    "FunctionKind",
    "JobSettings",
    "LoopSelection",
    "Offer",
    "OptimizeOutcome",
    "Optimizer",
    "Position",
    "ReadFile",
    "Refusal",
    "ResultRecord",
    "SearchConfig",
    "SearchProgress",
    "SearchResult",
    "Sidecar",
    "SourceLanguage",
    "Span",
    "Target",
    "Task",
    "TextChange",
    "VerifyConfig",
    "check_setup",
    "display_name",
    "document_language",
    "eligible_functions",
    "extract",
    "function_at",
    "graph_summary",
    "hover_record",
    "judge",
    "learn",
    "line_starts",
    "locate",
    "loop_row",
    "merge_result",
    "read_source_text",
    "release_children",
    "relocate",
    "sidecar_path",
    "stop_on_signals",
]

_LANGUAGE_IDS = {
    "c": SourceLanguage.CPP,
    "cpp": SourceLanguage.CPP,
    "cuda-cpp": SourceLanguage.CUDA,
    "cuda": SourceLanguage.CUDA,
}

_LAZY = {
    "JobSettings": "regrapht_core.optimize.session",
    "OptimizeOutcome": "regrapht_core.optimize.job",
    "Optimizer": "regrapht_core.optimize.session",
    "Candidate": "regrapht_core.contracts.proposal",
    "SearchConfig": "regrapht_core.search.config",
    "SearchProgress": "regrapht_core.contracts.proposal",
    "SearchResult": "regrapht_core.contracts.proposal",
    "VerifyConfig": "regrapht_core.verify.config",
    "check_setup": "regrapht_core.checkup",
    "display_name": "regrapht_core.graph.taxonomy",
    "graph_summary": "regrapht_core.checkup",
}
"""Re-exported on first use: running a job brings numpy, networkx and the verifier, which an
editor's start (code actions, hover) never needs."""

ReadFile = Callable[[str], str | None]
"""Text of a file named relative to the document; ``None`` if there is none there, and a
:class:`TaskError` saying why when it cannot be read as source text."""


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_LAZY[name]), name)


# -- documents and functions ---------------------------------------------------------------


def read_source_text(path: Path, limit: int) -> str:
    """The text of a C, C++ or CUDA file of at most ``limit`` bytes, in any encoding a
    source file comes in; a :class:`TaskError` names the file when it is no source text (a
    FIFO, a device, too large, binary), an ``OSError`` when it cannot be read at all."""
    return read_source(path, limit).text


def document_language(path: str, language_id: str | None) -> SourceLanguage | None:
    """The editor's language id decides; the file suffix is the fallback for other clients.
    ``None``: not C, C++ or CUDA."""
    if language_id is not None:
        return _LANGUAGE_IDS.get(language_id)
    try:
        return language_for_path(PurePath(path))
    except TaskError:
        return None


def eligible_functions(document: Document) -> list[Function]:
    """Functions with loops and ``__global__`` kernels, in source order."""
    return document.eligible()


def function_at(
    document: Document, start: Position, end: Position | None = None
) -> Function | None:
    """The innermost function under the cursor (or spanning the selection) that can be
    optimized."""
    return document.eligible_at(start, end)


def locate(document: Document, name: str, row: int | None = None) -> Function | None:
    """The function ``name`` starting on ``row``, else the only one of that name."""
    return document.locate(name, row)


def extract(
    document: Document,
    function: Function,
    *,
    loop: int | None = None,
    origin: str = "<source>",
    validate: bool | None = None,
) -> Task:
    """The task for ``function``; a :class:`TaskError` says why there is none. ``loop``: a
    row of the function inside one of its top-level loops, the only one to optimize (a row
    elsewhere, or ``None``: the whole function). ``validate`` as for
    ``tasks.extract.extract_task`` (``None``: inferred specs run under ASan)."""
    from regrapht_core.tasks.extract import extract_task  # numpy: loaded on first use

    inside = loop is not None and function.span.start.row <= loop <= function.span.end.row
    return extract_task(
        document.text,
        document.language,
        line=loop if inside else function.span.start.row,
        origin=origin,
        validate=validate,
    )


def loop_row(document: Document, function: Function, loop: LoopSelection) -> int | None:
    """The first row of the ``loop`` of ``function`` (to ask for it again, as ``extract``'s
    ``loop``); ``None`` when the function no longer has the loops it was counted among."""
    loops = top_level_for_loops(document.definition(function))
    if len(loops) != loop.count:
        return None
    return loops[loop.index].start_point.row


def relocate(document: Document, function: Function, task: Task) -> Function | None:
    """``function`` in the document as it is now, if a result for ``task`` still fits it:
    same text (lines above may have moved), and the same task (a constant or helper it
    uses may have changed above it). The same text has the same loops, so the loop the
    task selects is still the same. The spec is compared, not validated again: ``task``
    passed its validation when the job started."""
    found = document.find(function.name, function.text)
    if found is None:
        return None
    try:
        now = extract(document, found, validate=False)
    except TaskError:
        return None
    return found if replace(now, loop=task.loop) == task else None


# -- a finished job -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Offer:
    """A result to offer the user, with the record that goes above it."""

    entry: str
    code: str
    """The candidate translation unit, without the header."""
    record: ResultRecord

    @property
    def header(self) -> str:
        """The record's header comment, ending with a newline: it goes directly above
        ``entry``."""
        return self.record.render()

    @property
    def label(self) -> str:
        return self.record.label

    @property
    def description(self) -> str:
        return self.record.description


@dataclass(frozen=True, slots=True)
class Refusal:
    message: str
    diagnostic: str | None
    """Shown on the function; ``None`` when there is nothing to learn from (a cancel)."""


def judge(outcome: OptimizeOutcome, *, allow_unverified: bool) -> Offer | Refusal:
    """Only verified, faster code is offered as faster; compiled-only code (no GPU) only
    when the user asked for it, and then labelled so nobody mistakes it for a measurement."""
    entry = outcome.task.entry
    tried = len(outcome.search.candidates)
    answer = outcome.answer
    if answer is None:
        if outcome.search.cancelled:
            return Refusal(f"ReGraphT: cancelled {entry} after {tried} candidates.", None)
        return Refusal(
            f"ReGraphT found no verified faster version of {entry} "
            f"({tried} candidates, stopped by {outcome.search.stop_reason}).",
            f"ReGraphT: no faster version found: {outcome.failure_summary()}",
        )
    if outcome.faster is None and not allow_unverified:
        return Refusal(
            f"ReGraphT: no GPU on this machine, so none of the {tried} candidates for {entry} "
            "could be run or timed and nothing is offered. Set regrapht.allowUnverified to "
            "true to get compiled-only code.",
            f"ReGraphT: nothing verified (no GPU): {outcome.failure_summary()}",
        )
    record = outcome.record()
    assert record is not None  # there is an answer
    return Offer(entry, answer.code, record)


def sidecar_path(path: PurePath, language: SourceLanguage) -> PurePath | None:
    """Where the CUDA version of a C/C++ file goes; ``None`` for CUDA, changed in place."""
    return None if language is SourceLanguage.CUDA else _sidecar_path(path)


def merge_result(
    document: Document, function: Function, offer: Offer, sidecar: Sidecar | None = None
) -> tuple[FileChanges, ...]:
    """The offer merged into the document (``sidecar`` ``None``), or into its sidecar with a
    pointer comment above ``function``; changes in the order to apply them."""
    unit = Unit(offer.entry, offer.code, offer.header, header_rows, offer.record.brief)
    return merge_unit(document, function, unit, sidecar)


def learn(outcome: OptimizeOutcome, snapshot: Path | None) -> str:
    """Merge an applied, verified and faster result into the snapshot (off by default: the
    user's code becomes examples only when they ask). The message says what happened; an
    unusable snapshot is a :class:`GraphError` for the caller."""
    from regrapht_core.graph.paths import learning_snapshot
    from regrapht_core.optimize.learning import learn_outcome

    learned = learn_outcome(outcome, learning_snapshot(snapshot))
    if learned is None:
        return "ReGraphT learned nothing: only a verified, faster result becomes an example"
    return f"ReGraphT learned {learned.steps} verified step(s) into {learned.snapshot}"


# -- the process --------------------------------------------------------------------------


def stop_on_signals(before: Callable[[], None]) -> None:
    """On SIGTERM or SIGHUP: ``before`` (cancel the jobs), then kill the engine's child
    process groups (nvcc, candidates, references) and remove its scratch directories, which
    hold the user's code, and end the process by that signal. Once, from the main thread."""
    from regrapht_core.lifetime import exit_on_signals

    exit_on_signals(before=before)


def release_children() -> None:
    """Kill the engine's live child process groups and remove its scratch directories now:
    for an exit that does not run ``atexit`` (``os._exit``)."""
    from regrapht_core.lifetime import release

    release()


# -- hover ----------------------------------------------------------------------------------


def hover_record(document: Document, position: Position, read_file: ReadFile) -> str | None:
    """Markdown for the record at ``position``: a header directly above a function (CUDA
    documents and sidecars), or the pointer comment above a C/C++ function, whose record
    lives in the file it names. ``None`` where there is no record."""
    lines = document.lines
    row = min(position.row, len(lines) - 1)
    if lines[row].lstrip().startswith("//"):
        block = comment_block(lines, row, above=False)
        target = pointer_target(lines[row])
        if target is not None:
            return _elsewhere(document, block.stop, target, read_file)
    else:
        fn = document.definition_at(position)
        if fn is None:
            return None
        block = comment_block(lines, fn.start_point.row, above=True)
        target = next((t for r in block if (t := pointer_target(lines[r])) is not None), None)
        if target is not None:
            return _elsewhere(document, fn.start_point.row, target, read_file)
    return _markdown(lines, block)


def _markdown(lines: list[str], block: range, where: str | None = None) -> str | None:
    rows = header_rows(lines, block)
    if rows is None:
        return None
    record = ResultRecord.parse([lines[r] for r in rows])
    if record is None:
        return (
            "**ReGraphT**: this result was written by an older ReGraphT (or its record line "
            "was edited), so its details cannot be shown; optimize the function again for them."
        )
    return record.markdown(where)


def _elsewhere(document: Document, row: int, target: str, read_file: ReadFile) -> str | None:
    """The record of the function starting at ``row``, from the CUDA file ``target``."""
    line = document.lines[row] if row < len(document.lines) else ""
    fn = document.definition_at(Position(row, len(line) - len(line.lstrip())))
    written = function_name(fn) if fn is not None else None
    name = unqualified(written) if written is not None else None
    try:
        text = read_file(target)
    except TaskError as err:
        return f"**ReGraphT**: the CUDA version is in `{target}`, which cannot be read: {err}"
    if name is None or text is None:
        return f"**ReGraphT**: the CUDA version is in `{target}`, which cannot be read now."
    cuda = Document(text, SourceLanguage.CUDA)
    same = cuda.definitions(name)
    if len(same) != 1:
        return f"**ReGraphT**: `{target}` has no single definition of `{name}`."
    block = comment_block(cuda.lines, same[0].start_point.row, above=True)
    return _markdown(cuda.lines, block, where=target)
