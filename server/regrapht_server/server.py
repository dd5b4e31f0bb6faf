"""The whole LSP surface of ReGraphT; the work is done by the modules next to it.

A search takes minutes, so it is not a code action resolve (no progress, no cancel there):
the code action carries a ``regrapht.optimize`` command, whose handler reports work-done
progress, runs the job off the event loop, and offers the result as an annotated
``workspace/applyEdit`` the user previews. Everything a job does to the user's files goes
through that edit; the server itself never writes a file.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from regrapht_core import api
from regrapht_core.api import SourceLanguage, Task
from regrapht_core.errors import GraphError, ModelError, ReGraphTError, TaskError
from regrapht_server import edits, wire
from regrapht_server.documents import MAX_PARSED, EditorText, Parses, read_beside, read_file
from regrapht_server.jobs import Engine, Job, JobCancelled
from regrapht_server.positions import to_core, to_range
from regrapht_server.progress import JobProgress, JobState, Reporter, job_id_problem
from regrapht_server.protocol import ReGraphTProtocol
from regrapht_server.results import JOB_RESULT, job_result
from regrapht_server.settings import SECTION, job_settings, parse_settings

if TYPE_CHECKING:
    from regrapht_core.api import OptimizeOutcome

__all__ = [
    "CANCEL",
    "CHECK",
    "GRAPH",
    "OPTIMIZE",
    "OptimizeTarget",
    "ReGraphTServer",
    "Status",
    "server",
]

log = logging.getLogger(__name__)

OPTIMIZE = "regrapht.optimize"
CANCEL = "regrapht.cancel"
CHECK = "regrapht.check"
GRAPH = "regrapht.graph"
ACTION_TITLE = "Optimize to CUDA (ReGraphT)"
RERUN = "Re-run"
_SOURCE = "ReGraphT"
_EDIT_TRIES = 3
"""Edits built for a document that changed meanwhile are built again, this many times."""
_SETTING_FOR = {GraphError: "snapshotPath", ModelError: "model"}
"""Core errors name CLI flags and environment variables; in the editor, the setting is the fix."""


class Status(StrEnum):
    """What ``regrapht.optimize`` returns, for the extension and for scripts."""

    APPLIED = "applied"
    NOT_APPLIED = "not-applied"
    """The client refused or the user discarded the edit."""
    NO_RESULT = "no-result"
    STALE = "stale"
    """The function changed while the job ran; a re-run was offered."""
    BUSY = "busy"
    CANCELLED = "cancelled"
    """Cancelled (command, progress or ``$/cancelRequest``): no edit is sent after a cancel."""
    NOT_A_TASK = "not-a-task"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class OptimizeTarget:
    """The argument of ``regrapht.optimize``, as the code action writes it."""

    uri: str
    function: str
    line: int | None = None
    """Zero-based first line of the function: tells overloads apart."""
    loop: int | None = None
    """Zero-based line inside one of the function's top-level loops, the only one to optimize
    (the rest stays on the host); ``None``, or a line outside them: the whole function. The
    code action writes the cursor's line."""
    job: str | None = None
    """The client's id for the job, also its progress token; the server makes one
    (``regrapht-job-N``) without it. The code action leaves it null: a client fills it in."""


@dataclass(frozen=True, slots=True)
class _Origin:
    """What the job optimized: the result belongs to this function text and this task."""

    uri: str
    function: api.Function
    task: Task


def _version() -> str:
    try:
        return version("regrapht")
    except PackageNotFoundError:  # a checkout run without installing
        return "0+unknown"


class ReGraphTServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("regrapht", _version(), protocol_cls=ReGraphTProtocol)
        protocol = self.protocol
        assert isinstance(protocol, ReGraphTProtocol)
        self.endpoint: wire.Endpoint = protocol
        """The JSON-RPC side, for :mod:`regrapht_server.wire` to drive."""
        self.engine = Engine()
        self.parses = Parses()
        self._unparsed: set[str] = set()
        """Documents too large to parse, each logged once."""
        self.findings: dict[str, dict[str, types.Diagnostic]] = {}
        """Per document, per function: why the last job there gave nothing."""
        self._problems: list[str] = []
        self._background: set[asyncio.Task[Status]] = set()
        self.reporters: dict[str, Reporter] = {}
        """The progress of each job until its search is over, by job id."""

    # -- documents ------------------------------------------------------------------------

    def _open(self, uri: str) -> TextDocument | None:
        document: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        return document

    def adopt(self, uri: str) -> None:
        """Keep a just-opened document as an :class:`EditorText` (LSP rows), and parse it."""
        key = unquote(uri)
        documents = self.workspace.text_documents
        documents[key] = EditorText.adopt(documents[key])
        self.parse_soon(uri)

    def parse_soon(self, uri: str) -> None:
        document = self._open(uri)
        language = self._language(document) if document is not None else None
        if document is not None and language is not None:
            self.parses.schedule(document.uri, document.source, language)

    def forget(self, uri: str) -> None:
        self.parses.drop(uri)
        self._unparsed.discard(uri)

    def _language(self, document: TextDocument) -> SourceLanguage | None:
        """The language to parse ``document`` in; ``None`` for other languages, and for a
        document too large to parse (logged once)."""
        language = api.document_language(document.path, document.language_id)
        if language is None or len(document.source) <= MAX_PARSED:
            return language
        if document.uri not in self._unparsed:
            self._unparsed.add(document.uri)
            log.warning(
                "%s is not parsed (over %d characters): no ReGraphT actions there",
                document.uri,
                MAX_PARSED,
            )
        return None

    def _document(self, uri: str) -> tuple[TextDocument, SourceLanguage] | None:
        document = self._open(uri)
        if document is None:
            raise JsonRpcInvalidParams(f"{uri} is not an open document")
        language = self._language(document)
        return (document, language) if language is not None else None

    async def parsed(self, uri: str) -> api.Document | None:
        """The parse of the open document as it is now, awaited from the worker; ``None``
        for languages other than C/C++/CUDA and documents too large to parse, and when the
        document changed while it waited."""
        found = self._document(uri)
        if found is None:
            return None
        document, language = found
        return await self.parses.get(document.uri, document.source, language)

    async def snapshot(self, uri: str) -> tuple[TextDocument, api.Document] | None:
        """The open document and a parse of its text as it is *now*, when the request came,
        even if an edit arrives while it parses (a job belongs to the text it was asked
        for; a later edit makes its result stale, it does not change what is optimized)."""
        found = self._document(uri)
        if found is None:
            return None
        document, language = found
        text = document.source
        parsed = await self.parses.get(document.uri, text, language)
        if parsed is None:  # superseded in the worker's queue: parse this text here
            loop = asyncio.get_running_loop()
            parsed = await loop.run_in_executor(None, api.Document, text, language)
        return document, parsed

    async def current(self, uri: str) -> edits.Snapshot | None:
        """The document as it is now: the editor's copy if open, else the file on disk, read
        as a sidecar is (a small regular file, not through a link out of its folder); read
        and parsed off the event loop."""
        document = self._open(uri)
        if document is not None:
            parsed = await self.parsed(uri)
            return edits.Snapshot(uri, document.version, parsed) if parsed else None
        path = to_fs_path(uri)
        language = api.document_language(path, None) if path else None
        if language is None or not path:
            return None

        def read() -> api.Document | None:
            text = read_beside(Path(path).parent, Path(path).name, read_file)
            return None if text is None else api.Document(text, language)

        on_disk = await asyncio.get_running_loop().run_in_executor(None, read)
        return None if on_disk is None else edits.Snapshot(uri, None, on_disk)

    def read_text(self, path: Path) -> str | None:
        """The editor's copy if open, else the file: a regular file, not too large."""
        document = self._open(from_fs_path(str(path)) or str(path))
        if document is None:
            return read_file(path)
        return document.source if len(document.source) <= MAX_PARSED else None

    # -- messages and findings ----------------------------------------------------------------

    def show(self, kind: types.MessageType, message: str) -> None:
        self.window_show_message(types.ShowMessageParams(kind, message))

    def add_finding(
        self,
        uri: str,
        document: api.Document,
        function: api.Function,
        message: str,
        severity: types.DiagnosticSeverity = types.DiagnosticSeverity.Information,
    ) -> None:
        """A diagnostic on the function's declarator (not its whole body: no wall of squiggles)."""
        where = to_range(document, self.workspace.position_codec, function.declarator)
        diagnostic = types.Diagnostic(where, message, severity, source=_SOURCE)
        self.findings.setdefault(uri, {})[function.name] = diagnostic
        self.publish(uri)

    def clear_finding(self, uri: str, function: str) -> None:
        if self.findings.get(uri, {}).pop(function, None) is not None:
            self.publish(uri)

    def publish(self, uri: str) -> None:
        diagnostics = list(self.findings.get(uri, {}).values())
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, diagnostics))

    # -- settings --------------------------------------------------------------------------

    def apply_settings(self, raw: object) -> None:
        settings, problems = parse_settings(raw)
        self.engine.settings = settings
        for problem in problems:
            if problem not in self._problems:
                self.show(types.MessageType.Warning, f"ReGraphT settings: {problem}")
        self._problems = problems

    async def pull_settings(self) -> None:
        workspace = self.client_capabilities.workspace
        if workspace is None or not workspace.configuration:
            return
        item = types.ConfigurationItem(section=SECTION)
        try:
            values = await self.workspace_configuration_async(types.ConfigurationParams([item]))
        except JsonRpcException as err:
            log.warning("the client did not send the %s settings: %s", SECTION, err)
            return
        if values and values[0] is not None:
            self.apply_settings(values[0])

    # -- jobs ------------------------------------------------------------------------------

    async def optimize(
        self, target: OptimizeTarget, request: Future[Any] | None = None
    ) -> tuple[Status, Job | None]:
        """``request``: the ``workspace/executeCommand`` request that asked for the job;
        when the client cancels it (``$/cancelRequest``), the job is cancelled too."""
        found = await self.snapshot(target.uri)
        region = api.locate(found[1], target.function, target.line) if found else None
        if found is None or region is None:
            self.show(types.MessageType.Error, f"ReGraphT: no function {target.function!r} here")
            return Status.NOT_A_TASK, None
        document, parsed = found
        self.clear_finding(target.uri, region.name)
        extract = partial(api.extract, parsed, region, loop=target.loop, origin=document.path)
        try:  # off the event loop: an inferred spec is run under AddressSanitizer
            task = await asyncio.get_running_loop().run_in_executor(None, extract)
        except TaskError as err:
            self.show(types.MessageType.Error, f"ReGraphT: {err}")
            warning = types.DiagnosticSeverity.Warning
            self.add_finding(target.uri, parsed, region, str(err), warning)
            return Status.NOT_A_TASK, None
        job = self.engine.start(target.uri, region.name, target.job)
        if job is None:
            self.show(
                types.MessageType.Warning,
                f"ReGraphT is already optimizing {region.name}: wait for it or cancel it.",
            )
            return Status.BUSY, None
        if request is not None:
            request.add_done_callback(partial(self._request_done, job))
        origin = _Origin(target.uri, region, task)
        try:
            outcome = await self.run_job(job, task)
            cancelled = job.cancel.is_set()  # deliver checks again just before the edit
            status = Status.CANCELLED if cancelled else await self.deliver(job, origin, outcome)
        except JobCancelled:
            status = Status.CANCELLED
        except ReGraphTError as err:
            setting = next((s for e, s in _SETTING_FOR.items() if isinstance(err, e)), None)
            fix = f" (setting {SECTION}.{setting})" if setting else ""
            self.show(types.MessageType.Error, f"ReGraphT: {err}{fix}")
            status = Status.FAILED
        except Exception:
            log.exception("job %s on %s failed", job.id, region.name)
            self.show(
                types.MessageType.Error,
                f"ReGraphT: optimizing {region.name} failed unexpectedly; see the server log.",
            )
            status = Status.FAILED
        finally:
            self.engine.finish(job)
        return status, job

    def _request_done(self, job: Job, request: Future[Any]) -> None:
        if request.cancelled() and not job.cancel.is_set():
            self.cancel_jobs([job.id])

    async def run_job(self, job: Job, task: Task) -> OptimizeOutcome:
        state = JobState.QUEUED if self.engine.busy else JobState.RUNNING
        budget = self.engine.settings.budget
        reporter = Reporter(self, JobProgress(job.id, job.uri, job.function, state, budget=budget))
        self.reporters[job.id] = reporter  # before any await: a cancel may come at once
        try:
            await reporter.open(f"ReGraphT: {task.entry}")
            outcome = await self.engine.run(
                job,
                task,
                started=lambda gpu: reporter.update(reporter.value.started(gpu=gpu)),
                report=lambda update: reporter.update(reporter.value.searched(update)),
            )
            reporter.update(reporter.value.ended(outcome.search))
        except JobCancelled:
            reporter.update(reporter.value.cancelled())
            raise
        except BaseException:
            reporter.update(reporter.value.failed())
            raise
        finally:
            del self.reporters[job.id]
        result = job_result(job.id, job.uri, job.function, outcome)
        self.protocol.notify(JOB_RESULT, result.as_json())
        search = outcome.search
        log.info(
            "%s on %s: %d candidates, %s, %s",
            job.id,
            task.entry,
            len(search.candidates),
            search.stop_reason,
            outcome.wall.as_dict(),
        )
        return outcome

    async def relocated(self, origin: _Origin) -> tuple[edits.Snapshot | None, api.Function | None]:
        """The document as it is now, and the job's function in it if the result still fits
        (same text, same task: re-extracting the task runs off the event loop)."""
        current = await self.current(origin.uri)
        if current is None:
            return None, None
        relocate = partial(api.relocate, current.document, origin.function, origin.task)
        return current, await asyncio.get_running_loop().run_in_executor(None, relocate)

    def _version(self, uri: str) -> int | None:
        """The open document's version now (``None`` when it is not open)."""
        document = self._open(uri)
        return None if document is None else document.version

    async def deliver(self, job: Job, origin: _Origin, outcome: OptimizeOutcome) -> Status:
        verdict = api.judge(outcome, allow_unverified=self.engine.settings.allow_unverified)
        if isinstance(verdict, api.Refusal):
            self.show(types.MessageType.Info, verdict.message)
            current, region = await self.relocated(origin)
            if verdict.diagnostic is not None and current is not None and region is not None:
                self.add_finding(origin.uri, current.document, region, verdict.diagnostic)
            return Status.NO_RESULT
        for _ in range(_EDIT_TRIES):
            current, region = await self.relocated(origin)
            if current is None or region is None:
                self.offer_rerun(origin)
                return Status.STALE
            edit = await self.build_edit(current, region, verdict)
            # Nothing is awaited from here to the edit being sent: a cancel, or a keystroke
            # that came while the edit was being built, is seen now.
            if job.cancel.is_set():
                return Status.CANCELLED
            if self._version(origin.uri) == current.version:
                break
        else:  # the user keeps typing: the edit would be refused as out of date
            self.offer_rerun(origin)
            return Status.STALE
        result = await self.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(
                edit,
                label=verdict.label,
                metadata=types.WorkspaceEditMetadata(is_refactoring=True),
            )
        )
        if not result.applied:
            why = f": {result.failure_reason}" if result.failure_reason else ""
            self.show(types.MessageType.Info, f"ReGraphT: the edit was not applied{why}")
            return Status.NOT_APPLIED
        if self.engine.settings.learn:
            await self.learn(outcome)
        return Status.APPLIED

    async def learn(self, outcome: OptimizeOutcome) -> None:
        """Setting ``learn``: an applied result grows the snapshot; the next job uses it."""
        path = self.engine.settings.snapshot_path
        snapshot = Path(path).expanduser() if path else None
        loop = asyncio.get_running_loop()
        try:
            message = await loop.run_in_executor(None, api.learn, outcome, snapshot)
        except ReGraphTError as err:
            self.show(
                types.MessageType.Warning,
                f"ReGraphT learned nothing: {err} (setting {SECTION}.snapshotPath)",
            )
            return
        self.engine.reload()
        self.show(types.MessageType.Info, message)

    async def build_edit(
        self, snapshot: edits.Snapshot, function: api.Function, offer: api.Offer
    ) -> types.WorkspaceEdit:
        """In place for CUDA; into the ``.regrapht.cu`` file beside a C/C++ file (open,
        on disk, or created by the edit), with a pointer comment above the function."""
        targets = {api.Target.DOCUMENT: snapshot}
        path = Path(to_fs_path(snapshot.uri) or snapshot.uri)
        cuda_path = api.sidecar_path(path, snapshot.document.language)
        sidecar = None
        if cuda_path is not None:
            uri = from_fs_path(str(cuda_path)) or str(cuda_path)
            existing = await self.current(uri)
            empty = api.Document("", SourceLanguage.CUDA)
            targets[api.Target.SIDECAR] = existing or edits.Snapshot(uri, None, empty)
            sidecar = api.Sidecar(cuda_path.name, existing.document if existing else None)
        files = api.merge_result(snapshot.document, function, offer, sidecar)
        return edits.workspace_edit(files, targets, offer, self.workspace.position_codec)

    def offer_rerun(self, origin: _Origin) -> None:
        task = asyncio.ensure_future(self._rerun(origin))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _rerun(self, origin: _Origin) -> Status:
        params = types.ShowMessageRequestParams(
            types.MessageType.Warning,
            f"ReGraphT: {origin.function.name} changed while it was being optimized, so the "
            "result was not applied.",
            actions=[types.MessageActionItem(RERUN)],
        )
        try:
            choice = await self.window_show_message_request_async(params)
        except JsonRpcException as err:
            log.warning("cannot offer a re-run of %s: %s", origin.function.name, err)
            return Status.STALE
        if choice is None or choice.title != RERUN:
            return Status.STALE
        try:
            line = await self.loop_line(origin)
            target = OptimizeTarget(origin.uri, origin.function.name, loop=line)
            status, _ = await self.optimize(target)
        except JsonRpcInvalidParams:
            self.show(types.MessageType.Warning, f"ReGraphT: open {origin.uri} to re-run.")
            return Status.STALE
        return status

    async def loop_line(self, origin: _Origin) -> int | None:
        """A line of the loop the job optimized, in its function as it is now: a re-run
        optimizes the same loop. ``None``: the whole function, or that loop is gone."""
        selected = origin.task.loop
        found = None if selected is None else await self.snapshot(origin.uri)
        region = api.locate(found[1], origin.function.name) if found else None
        if selected is None or found is None or region is None:
            return None
        return api.loop_row(found[1], region, selected)

    def cancel_jobs(self, ids: list[str] | None) -> list[str]:
        cancelled = self.engine.cancel(ids)
        for job_id in cancelled:
            reporter = self.reporters.get(job_id)
            if reporter is not None:
                reporter.update(reporter.value.cancelling())
        return cancelled


server = ReGraphTServer()


@server.feature(types.INITIALIZE)
def initialize(ls: ReGraphTServer, params: types.InitializeParams) -> None:
    """Options may be the section itself or wrap it as ``{"regrapht": {...}}``."""
    options = params.initialization_options
    if isinstance(options, dict) and isinstance(options.get(SECTION), dict):
        options = options[SECTION]
    ls.apply_settings(options)


@server.feature(types.INITIALIZED)
async def initialized(ls: ReGraphTServer, params: types.InitializedParams) -> None:
    await ls.pull_settings()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def configuration_changed(
    ls: ReGraphTServer, params: types.DidChangeConfigurationParams
) -> None:
    """Pushed settings (VS Code's ``synchronize.configurationSection``) or a hint to pull."""
    pushed = params.settings
    if isinstance(pushed, dict) and SECTION in pushed:
        ls.apply_settings(pushed[SECTION])
    else:
        await ls.pull_settings()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def document_opened(ls: ReGraphTServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.adopt(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def document_changed(ls: ReGraphTServer, params: types.DidChangeTextDocumentParams) -> None:
    """Findings describe text that just changed: drop them rather than show them misplaced.
    The new text is parsed at once, in the worker, for the code actions that follow."""
    uri = params.text_document.uri
    ls.parse_soon(uri)
    if ls.findings.pop(uri, None):
        ls.publish(uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def document_closed(ls: ReGraphTServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.forget(uri)
    if ls.findings.pop(uri, None):
        ls.publish(uri)


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.RefactorRewrite]),
)
async def code_actions(
    ls: ReGraphTServer, params: types.CodeActionParams
) -> list[types.CodeAction]:
    kind = types.CodeActionKind.RefactorRewrite
    only = params.context.only
    if only and not any(kind == k or kind.startswith(f"{k}.") for k in only):
        return []
    document = await ls.parsed(params.text_document.uri)
    if document is None:
        return []
    codec = ls.workspace.position_codec
    start, end = (to_core(document, codec, p) for p in (params.range.start, params.range.end))
    region = api.function_at(document, start, end)
    if region is None:
        return []
    uri = params.text_document.uri
    loop = None if region.kind is api.FunctionKind.KERNEL else start.row
    target = OptimizeTarget(uri, region.name, region.span.start.row, loop)
    busy = ls.engine.has_job(uri, region.name)
    return [
        types.CodeAction(
            ACTION_TITLE,
            kind=kind,
            command=types.Command(title=ACTION_TITLE, command=OPTIMIZE, arguments=[asdict(target)]),
            tags=[types.CodeActionTag.LlmGenerated],
            disabled=types.CodeActionDisabled(f"already optimizing {region.name}")
            if busy
            else None,
        )
    ]


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: ReGraphTServer, params: types.HoverParams) -> types.Hover | None:
    """The record is read and parsed off the event loop: a pointer comment names a file."""
    uri = params.text_document.uri
    parsed = await ls.parsed(uri)
    if parsed is None:
        return None
    folder = Path(to_fs_path(uri) or uri).parent
    position = to_core(parsed, ls.workspace.position_codec, params.position)
    text = await asyncio.get_running_loop().run_in_executor(
        None,
        api.hover_record,
        parsed,
        position,
        lambda name: read_beside(folder, name, ls.read_text),
    )
    if text is None:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text))


@server.command(OPTIMIZE)
async def optimize(ls: ReGraphTServer, target: OptimizeTarget) -> dict[str, str | None]:
    """Search, verify and offer the result; returns ``{"status", "job"}`` when done. A
    ``job`` id in the argument must be new (it names the job's progress)."""
    if target.job is not None:
        problem = job_id_problem(target.job)
        if problem is None and ls.engine.known(target.job):
            problem = f"job {target.job!r} is already running"
        if problem is not None:
            raise JsonRpcInvalidParams(f"{OPTIMIZE}: {problem}")
    # pygls answers a ``$/cancelRequest`` of this command at once, but leaves this coroutine
    # running: the request's future tells the job. No future: it was cancelled before
    # this coroutine started.
    msg_id = ls.protocol.msg_id
    request = None if msg_id is None else ls.protocol._request_futures.get(msg_id)
    if msg_id is not None and (request is None or request.cancelled()):
        return {"status": Status.CANCELLED, "job": None}
    status, job = await ls.optimize(target, request)
    return {"status": status, "job": job.id if job else None}


@server.command(CANCEL)
def cancel(ls: ReGraphTServer, *job_ids: Any) -> list[str]:
    """Cancel the jobs named (all without arguments); returns the ids cancelled."""
    if not all(isinstance(job_id, str) for job_id in job_ids):
        raise JsonRpcInvalidParams(f"{CANCEL} takes job ids (strings), got {list(job_ids)!r}")
    return ls.cancel_jobs(list(job_ids) or None)


@server.command(CHECK)
async def check(ls: ReGraphTServer, *options: Any) -> dict[str, Any]:
    """The model (a timed short answer), the GPU and nvcc, the snapshot, with the current
    settings; ``{"answer": false}`` skips loading the model. ``text`` is Markdown."""
    answer = not (options and isinstance(options[0], dict) and options[0].get("answer") is False)
    settings = ls.engine.settings

    def run() -> dict[str, Any]:
        job = job_settings(replace(settings, use_model=True))  # names the model even when off
        return api.check_setup(job, answer=answer, model_used=settings.use_model).as_json()

    return await asyncio.get_running_loop().run_in_executor(None, run)


@server.command(GRAPH)
async def graph(ls: ReGraphTServer, *_: Any) -> dict[str, Any]:
    """The snapshot's techniques and transitions (example counts, best speedup)."""
    settings = ls.engine.settings

    def run() -> dict[str, Any]:
        return api.graph_summary(job_settings(settings).snapshot)

    try:
        return await asyncio.get_running_loop().run_in_executor(None, run)
    except ReGraphTError as err:
        raise JsonRpcException(f"{err} (setting {SECTION}.snapshotPath)") from err


@server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def progress_cancelled(ls: ReGraphTServer, params: types.WorkDoneProgressCancelParams) -> None:
    ls.cancel_jobs([str(params.token)])


@server.feature(types.SHUTDOWN)
def shutdown(ls: ReGraphTServer, params: None) -> None:
    ls.engine.close()
    # pygls 2.1.1 then cancels in-flight requests while iterating the dict that their
    # callbacks shrink, and fails the shutdown (pygls#606); cancelling them first, over a
    # copy, leaves it nothing to trip on.
    protocol = ls.protocol
    for msg_id, future in list(protocol._request_futures.items()):
        if msg_id != protocol.msg_id:
            future.cancel()


@server.feature(types.EXIT)
def exit_(ls: ReGraphTServer, params: None) -> None:
    """``exit`` without ``shutdown`` (a client that crashed) must not leave a search running."""
    ls.engine.close()
