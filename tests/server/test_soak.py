"""The soak of #15: a real server over stdio, an editor that never stops typing, real jobs.

50 documents (C++ and CUDA), about 1,000 messages at random (code actions, hovers, edits
above, inside and around functions, closes and reopens, a few requests on closed
documents) and 30 optimize jobs (the rewriters and real nvcc, no model, budget 1, compiled
only: no GPU here), cancelled at random moments in all three ways and with their functions
edited while they run. What must hold:

- every request is answered, never with an internal error;
- every ``workspace/applyEdit`` is for the version of the document the server last had,
  for a job not cancelled, and for the text the job was asked for (never stale);
- a job is called stale only when its function (or what it reads) did change;
- ``shutdown`` and ``exit`` end the process with 0 at once; no child process of the server
  outlives it, and no temp directory of it is left;
- memory is bounded (peak) and does not grow with the load (middle and end).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from .soak import (
    RADII,
    Doc,
    Proc,
    alive,
    apply_edits,
    block,
    descendants,
    fingerprint,
    make_docs,
    memory_kb,
    scratch_roots,
)
from .stdio import frame, notification, request

pytestmark = pytest.mark.slow

DOCUMENTS = 50
MESSAGES = 1000
JOBS = 30
SETTINGS = {"budget": 1, "useModel": False, "allowUnverified": True}
"""One candidate, from the rewriters, compiled by nvcc: under a second a job once each
distinct candidate has been compiled (the object cache is content-addressed)."""
PEAK_RSS_MB = 400
"""The server with the engine loaded (graph, numpy, tree-sitter, the verifier) and 50
documents open holds about 110 MB: this leaves room for other builds of its libraries,
not for a copy of every document version (1,000 edits) or of every job."""
GROWTH_MB = 30
"""From the middle of the load to its end (about 500 messages and 15 jobs apart): about
1 MB measured; a leak of 60 kB a message would show."""
EXIT_S = 2.0
TIMEOUT_S = 150
STATUSES = {"applied", "not-applied", "stale", "cancelled", "busy", "no-result"}
"""Of a job: "busy" when a job cancelled by ``$/cancelRequest`` still holds its function."""
CANCEL = "$/cancelRequest"
OVER = {"done", "failed", "cancelled"}
CANCEL_REQUEST = -32800
INVALID_PARAMS = -32602


@dataclass
class Job:
    id: str
    doc: Doc
    function: str
    fingerprint: str
    seq: int
    """Of its ``regrapht.optimize`` request."""
    running: asyncio.Event = field(default_factory=asyncio.Event)
    cancel: str | None = None
    """How the editor cancelled it (a method name), if it did."""
    cancel_seen: bool = False
    """The server has taken the cancel: no edit may come after this."""
    touched: bool = False
    """Its function, or what it reads, changed after the job was asked for."""
    edits: int = 0
    answer: dict[str, Any] | None = None

    @property
    def status(self) -> str:
        """What ``regrapht.optimize`` answered: a status, or "error"."""
        return str(((self.answer or {}).get("result") or {}).get("status", "error"))

    @property
    def request(self) -> str:
        """The id of its ``regrapht.optimize`` request (what ``$/cancelRequest`` names)."""
        return f"optimize-{self.id}"


@dataclass
class Sent:
    method: str
    seq: int
    done: asyncio.Future[dict[str, Any]]


@dataclass
class Editor:
    """A raw JSON-RPC client with the editor's side of every document, checking as it reads."""

    process: asyncio.subprocess.Process
    docs: dict[str, Doc]
    problems: list[str] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    running: dict[str, Job] = field(default_factory=dict)
    """By document: the editor runs one job per document at a time."""
    by_id: dict[str, Job] = field(default_factory=dict)
    pending: dict[str, Sent] = field(default_factory=dict)
    seq: int = 0
    """Of every message sent; a response to request ``seq`` proves all before it were read."""
    processed: int = 0
    events: dict[str, list[tuple[int, int | None]]] = field(default_factory=dict)
    """Per document: (seq, version) of each open and change, (seq, None) of each close."""
    progress: dict[str, list[str]] = field(default_factory=dict)
    ids: itertools.count[int] = field(default_factory=itertools.count)
    sent: int = 0
    """Requests and notifications sent by the scenario (answers to the server excepted)."""
    errors: dict[int, int] = field(default_factory=dict)

    # -- the wire --------------------------------------------------------------------------

    def write(self, message: dict[str, Any]) -> int:
        assert self.process.stdin is not None
        self.seq += 1
        self.process.stdin.write(frame(message))
        return self.seq

    def notify(self, method: str, params: Any) -> None:
        self.sent += 1
        seq = self.write(notification(method, params))
        document = params.get("textDocument", {}) if isinstance(params, dict) else {}
        if method == "textDocument/didClose":
            self.events.setdefault(document["uri"], []).append((seq, None))
        elif method in {"textDocument/didOpen", "textDocument/didChange"}:
            self.events.setdefault(document["uri"], []).append((seq, document["version"]))

    def ask(self, method: str, params: Any, ident: str | None = None) -> asyncio.Future[Any]:
        self.sent += 1
        ident = ident or f"r{next(self.ids)}"
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[ident] = Sent(method, self.seq + 1, done)
        self.write(request(ident, method, params))
        return done

    async def listen(self) -> None:
        assert self.process.stdout is not None
        stdout = self.process.stdout
        while True:
            length = None
            while (line := await stdout.readline()).strip():
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                return
            self.receive(json.loads(await stdout.readexactly(length)))

    def receive(self, message: dict[str, Any]) -> None:
        if "method" not in message:
            self.answered(message)
        elif "id" in message:
            result = self.serve(message["method"], message.get("params"))
            self.write({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif message["method"] == "regrapht/jobProgress":
            state, job = message["params"]["state"], self.by_id.get(message["params"]["job"])
            self.progress.setdefault(message["params"]["job"], []).append(state)
            if job is not None:
                job.cancel_seen |= state == "cancelling"
                if state == "running" or state in OVER:
                    job.running.set()

    def answered(self, message: dict[str, Any]) -> None:
        sent = self.pending.pop(str(message.get("id")), None)
        if sent is None:
            self.problems.append(f"an answer to no request: {message}")
            return
        self.processed = max(self.processed, sent.seq)
        if "error" in message:
            code = message["error"]["code"]
            self.errors[code] = self.errors.get(code, 0) + 1
            if code not in {CANCEL_REQUEST, INVALID_PARAMS}:
                self.problems.append(f"{sent.method}: {message['error']}")
        sent.done.set_result(message)

    def serve(self, method: str, params: Any) -> Any:
        """The server's requests, answered as VS Code would (the user dismisses a re-run)."""
        if method == "workspace/configuration":
            return [SETTINGS]
        if method == "workspace/applyEdit":
            return self.apply_edit(params["edit"])
        return None  # window/workDoneProgress/create, window/showMessageRequest

    async def initialize(self, folder: Path, docs: list[Doc]) -> None:
        initialize = {
            "processId": os.getpid(),
            "rootUri": folder.as_uri(),
            "capabilities": CAPABILITIES,
            "initializationOptions": {"regrapht": SETTINGS},
            "workspaceFolders": [{"uri": folder.as_uri(), "name": "work"}],
        }
        assert "result" in await self.ask("initialize", initialize)
        self.notify("initialized", {})
        for doc in docs:
            doc.open = True
            self.notify("textDocument/didOpen", doc.item())

    # -- the checks ------------------------------------------------------------------------

    def known(self, uri: str) -> list[int | None]:
        """The versions the server provably had read when it wrote what is read now, in
        order (``None``: a close)."""
        return [version for seq, version in self.events[uri] if seq <= self.processed]

    def apply_edit(self, edit: dict[str, Any]) -> dict[str, Any]:
        """Check the edit, then apply it as VS Code does: only to the current version."""
        updates: list[tuple[Doc, str]] = []
        fits = True
        for change in edit.get("documentChanges") or []:
            doc = self.docs.get(change.get("textDocument", {}).get("uri", ""))
            if doc is None:  # creating, or writing, the .regrapht.cu beside a C++ file
                continue
            version = change["textDocument"].get("version")
            self.check_edit(doc, version)
            if doc.open and version == doc.version:
                updates.append((doc, apply_edits(doc.text, change["edits"])))
            else:
                fits = False
        if not (fits and updates):
            return {"applied": False, "failureReason": "the document changed"}
        for doc, text in updates:
            self.changed(doc, doc.replace(text))
        return {"applied": True}

    def check_edit(self, doc: Doc, version: int | None) -> None:
        job = self.running.get(doc.uri)
        if job is None:
            self.problems.append(f"an edit of {doc.path.name} v{version}: no job runs there")
            return
        job.edits += 1
        self.processed = max(self.processed, job.seq)  # the server had read the command
        if job.cancel_seen:
            self.problems.append(f"{job.id}: an edit after its cancel ({job.cancel})")
        text = doc.disk if version is None else doc.history.get(version)
        if text is None:
            self.problems.append(f"{job.id}: an edit for v{version}, a version never sent")
        elif fingerprint(text, job.function) != job.fingerprint:
            self.problems.append(f"{job.id}: a stale edit: {job.function} changed by v{version}")
        seen = self.known(doc.uri)
        later = [v for _, v in self.events[doc.uri][len(seen) :]]
        if version is not None and version in later:
            # An edit for a version sent after what was proven read proves that the server
            # read it (a reopen after a close: the open's version is new).
            read = later.index(version) + 1
            seen, later = seen + later[:read], later[read:]
        known = seen[-1]
        # A close sent after what the server provably read may have been read too: an edit
        # for the file on disk is wrong only if no close followed the last known open.
        if version is None and known is not None and None not in later:
            self.problems.append(f"{job.id}: an edit for the file while open at v{known}")
        elif version is not None and (known is None or version < known):
            self.problems.append(f"{job.id}: an edit for v{version}, the server had v{known}")

    def changed(self, doc: Doc, params: dict[str, Any]) -> None:
        """Send a change; a job on the document is touched when its function changes."""
        self.notify("textDocument/didChange", params)
        self.touch(doc, doc.text)

    def touch(self, doc: Doc, text: str) -> None:
        job = self.running.get(doc.uri)
        if job is not None and fingerprint(text, job.function) != job.fingerprint:
            job.touched = True

    def finished(self, job: Job, answer: dict[str, Any]) -> None:
        if self.running.get(job.doc.uri) is job:
            del self.running[job.doc.uri]
        result = answer.get("result")
        job.answer = answer
        job.running.set()  # what waits for it to run goes ahead (it sees the job over)
        if result is None:
            if not (job.cancel == CANCEL and answer["error"]["code"] == CANCEL_REQUEST):
                self.problems.append(f"{job.id}: {answer}")
            return
        status = result["status"]
        if status not in STATUSES:
            self.problems.append(f"{job.id}: ended {status}")
        if status == "applied" and job.edits == 0:
            self.problems.append(f"{job.id}: applied, but no edit came")
        if status == "stale" and not job.touched:
            self.problems.append(f"{job.id}: stale, but {job.function} never changed")
        if status == "cancelled" and job.cancel is None:
            self.problems.append(f"{job.id}: cancelled, but nobody cancelled it")


@dataclass
class Watch:
    """The server's processes, memory and temp directories, sampled while it works."""

    pid: int
    children: set[Proc] = field(default_factory=set)
    peak_children: int = 0
    roots: set[Path] = field(default_factory=set)
    rss_kb: dict[str, int] = field(default_factory=dict)

    def sample(self) -> None:
        now = descendants(self.pid)
        self.children |= now
        self.peak_children = max(self.peak_children, len(now))
        self.roots.update(scratch_roots(self.pid))

    async def run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(0.1)

    def memory(self, when: str) -> None:
        values = memory_kb(self.pid)
        self.rss_kb[when] = values["VmRSS"]
        self.rss_kb[f"{when} peak"] = values["VmHWM"]


class Scenario:
    """What the user does; every choice comes from one seeded generator."""

    def __init__(self, editor: Editor, watch: Watch, rng: random.Random) -> None:
        self.editor = editor
        self.watch = watch
        self.rng = rng
        self.later: list[asyncio.Task[None]] = []
        self.notes = itertools.count()

    @property
    def open_docs(self) -> list[Doc]:
        return [doc for doc in self.editor.docs.values() if doc.open]

    async def run(self) -> None:
        rng = self.rng
        job_steps = {2, *rng.sample(range(10, int(MESSAGES * 0.85)), JOBS - 1)}
        actions: list[tuple[int, Callable[[Doc], None]]] = [
            (30, self.code_action),
            (25, self.hover),
            (33, self.edit),
            (4, self.close),
            (4, self.reopen),
            (2, self.on_closed),
        ]
        weights = [weight for weight, _ in actions]
        for step in range(MESSAGES):
            if step == MESSAGES // 2:
                self.watch.memory("middle")
            if not (step in job_steps and self.start_job()):
                (action,) = rng.choices([a for _, a in actions], weights)
                action(rng.choice(self.open_docs))
            assert self.editor.process.stdin is not None
            await self.editor.process.stdin.drain()
            await asyncio.sleep(rng.uniform(0, 0.03))
        await asyncio.gather(*self.later)

    # -- requests --------------------------------------------------------------------------

    def position(self, doc: Doc) -> dict[str, int]:
        lines = doc.lines
        row = self.rng.randrange(len(lines))
        return {"line": row, "character": self.rng.randint(0, len(lines[row]))}

    def code_action(self, doc: Doc) -> None:
        where = self.position(doc)
        self.editor.ask(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": doc.uri},
                "range": {"start": where, "end": where},
                "context": {"diagnostics": []},
            },
        )

    def hover(self, doc: Doc) -> None:
        params = {"textDocument": {"uri": doc.uri}, "position": self.position(doc)}
        self.editor.ask("textDocument/hover", params)

    def on_closed(self, _: Doc) -> None:
        """A request on a closed document: invalid params, nothing worse."""
        closed = [doc for doc in self.editor.docs.values() if not doc.open]
        if closed:
            self.hover(self.rng.choice(closed))

    # -- documents -------------------------------------------------------------------------

    def close(self, doc: Doc) -> None:
        if len(self.open_docs) > DOCUMENTS // 2:
            doc.open = False
            self.editor.notify("textDocument/didClose", {"textDocument": {"uri": doc.uri}})
            self.editor.touch(doc, doc.disk)

    def reopen(self, _: Doc) -> None:
        """From disk, as an editor does (the unsaved changes were discarded)."""
        closed = [doc for doc in self.editor.docs.values() if not doc.open]
        if closed:
            doc = self.rng.choice(closed)
            doc.open, doc.text = True, doc.disk
            doc.version += 1
            self.editor.notify("textDocument/didOpen", doc.item())

    def edit(self, doc: Doc) -> None:
        """Lines above a function, a note anywhere between functions, a line inside one,
        the constant, or the whole text."""
        kind = self.rng.choices(
            ["above", "between", "inside", "constant", "whole"], [4, 3, 2, 1, 1]
        )
        name = self.rng.choice(doc.functions)
        self.change(doc, kind[0], name)

    def change(self, doc: Doc, kind: str, name: str) -> None:
        found = block(doc.text, name)
        if kind == "whole":
            params = doc.replace(doc.text + f"// note {next(self.notes)}\n")
        elif kind == "constant":
            row = next(i for i, line in enumerate(doc.lines) if line.startswith("constexpr"))
            new = f"constexpr int RADIUS = {self.rng.choice(RADII)};"
            params = doc.change((row, 0), (row, len(doc.lines[row])), new)
        elif kind == "inside" and found is not None:
            row = found.head + 1
            params = doc.change((row, 0), (row, 0), f"    // edit {next(self.notes)}\n")
        else:
            row = found.start if found is not None else 0
            if kind == "between":
                row = self.outside(doc, self.rng.randrange(len(doc.lines)))
            text = (
                "\n" * self.rng.randint(1, 3)
                if kind == "above"
                else f"// note {next(self.notes)}\n\n"
            )
            params = doc.change((row, 0), (row, 0), text)
        self.editor.changed(doc, params)

    @staticmethod
    def outside(doc: Doc, row: int) -> int:
        """``row``, or the first line of the function block it falls inside."""
        for name in doc.functions:
            found = block(doc.text, name)
            if found is not None and found.start < row <= found.end:
                return found.start
        return row

    # -- jobs ------------------------------------------------------------------------------

    def start_job(self) -> bool:
        """A job on a function the rewriters can translate, in a document without one."""
        choices = [
            (doc, name, found)
            for doc in self.open_docs
            if doc.uri not in self.editor.running
            for name in doc.functions
            if (found := block(doc.text, name))
            and found.start < found.head
            and "<<<" not in "".join(doc.lines[found.head : found.end + 1])
        ]
        if not choices:
            return False
        doc, name, found = self.rng.choice(choices)
        number = len(self.editor.jobs) + 1
        job = Job(
            f"soak-{number}", doc, name, fingerprint(doc.text, name) or "", self.editor.seq + 1
        )
        self.editor.jobs.append(job)
        self.editor.by_id[job.id] = job
        self.editor.running[doc.uri] = job
        target = {"uri": doc.uri, "function": name, "line": found.head, "job": job.id}
        params = {"command": "regrapht.optimize", "arguments": [target]}
        answer = self.editor.ask("workspace/executeCommand", params, job.request)
        answer.add_done_callback(lambda done: self.editor.finished(job, done.result()))
        rng = self.rng
        fate = rng.random()
        if fate < 0.5:  # queued or running, or just as it ends
            how = rng.choice(["regrapht.cancel", "window/workDoneProgress/cancel", CANCEL])
            self.after(job, rng.random() < 0.6, rng.uniform(0, 0.8), partial(self.cancel, job, how))
        if 0.35 < fate < 0.75:
            kind = rng.choice(["inside", "constant"] if "RADIUS" in job.fingerprint else ["inside"])
            self.after(
                job, rng.random() < 0.5, rng.uniform(0, 1.0), partial(self.edit_job, job, kind)
            )
        return True

    def after(self, job: Job, running: bool, delay: float, action: Callable[[], None]) -> None:
        """``action`` ``delay`` seconds from now, or from when the job starts to run."""

        async def later() -> None:
            if running:
                await job.running.wait()
            await asyncio.sleep(delay)
            action()

        self.later.append(asyncio.ensure_future(later()))

    def cancel(self, job: Job, how: str) -> None:
        """In one of the three ways; a fence request after a notification proves the server
        has read it (it handles messages in order)."""
        job.cancel = how
        editor = self.editor
        if how == "regrapht.cancel":
            params = {"command": "regrapht.cancel", "arguments": [job.id]}
            answer = editor.ask("workspace/executeCommand", params)
            answer.add_done_callback(lambda done: self.took(job, done.result()))
            return
        if how == CANCEL:  # the answer to the request, "cancelled", is the proof
            editor.notify(how, {"id": job.request})
            return
        editor.notify(how, {"token": job.id})
        fence = {"command": "regrapht.cancel", "arguments": [f"fence-{job.id}"]}
        answer = editor.ask("workspace/executeCommand", fence)
        answer.add_done_callback(lambda _: self.took(job, {"result": [job.id]}))

    @staticmethod
    def took(job: Job, answer: dict[str, Any]) -> None:
        if job.id in (answer.get("result") or []):
            job.cancel_seen = True

    def edit_job(self, job: Job, kind: str) -> None:
        if job.doc.open:
            self.change(job.doc, kind, job.function)


async def start(folder: Path) -> asyncio.subprocess.Process:
    """The server with a home of its own: a cold object cache, so that nvcc runs (once for
    each distinct candidate) in every run of the test."""
    home = folder / "home"
    home.mkdir()
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "regrapht_server",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=os.environ | {"HOME": str(home)},
    )


@dataclass
class Outcome:
    editor: Editor
    watch: Watch
    code: int
    exit_s: float
    log: str


async def soak(folder: Path, seed: int = 15) -> Outcome:
    """The whole session, start to exit; what it recorded is checked by the test."""
    work = folder / "work"
    work.mkdir()
    docs = make_docs(work, DOCUMENTS)
    process = await start(folder)
    assert process.stderr is not None
    stderr = asyncio.ensure_future(process.stderr.read())
    editor = Editor(process, {doc.uri: doc for doc in docs})
    watch = Watch(process.pid)
    listening = asyncio.ensure_future(editor.listen())
    watching = asyncio.ensure_future(watch.run())
    try:
        async with asyncio.timeout(TIMEOUT_S):
            await editor.initialize(work, docs)
            await Scenario(editor, watch, random.Random(seed)).run()
            while editor.pending and not listening.done():
                await asyncio.sleep(0.1)
            assert not listening.done(), "the server closed its output"
            watch.sample()
            watch.memory("end")
            assert "error" not in await editor.ask("shutdown", None)
            editor.notify("exit", None)
            stopped = time.monotonic()
            code = await process.wait()
            exit_s = time.monotonic() - stopped
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        watching.cancel()
        listening.cancel()
    return Outcome(editor, watch, code, exit_s, (await stderr).decode())


async def test_a_soak_loses_nothing_sends_no_stale_edit_and_leaves_nothing(tmp_path: Path) -> None:
    """The soak of #15: findings 4, 5, 6, 10 and 12 under load, all at once."""
    run = await soak(tmp_path)
    editor, watch = run.editor, run.watch
    assert editor.problems == []
    assert run.code == 0 and run.exit_s < EXIT_S, (run.code, run.exit_s)
    assert "Traceback" not in run.log, run.log[-3000:]
    assert editor.sent >= MESSAGES and len(editor.jobs) == JOBS
    assert all(job.answer is not None for job in editor.jobs)
    assert {"applied", "stale", "cancelled"} <= {job.status for job in editor.jobs}
    assert watch.children and watch.roots  # real children and a scratch root were seen ...
    assert [proc for proc in watch.children if alive(proc)] == []  # ... and none is left
    assert scratch_roots(watch.pid) == []
    peak_mb = watch.rss_kb["end peak"] / 1024
    growth_mb = (watch.rss_kb["end"] - watch.rss_kb["middle"]) / 1024
    assert peak_mb < PEAK_RSS_MB and growth_mb < GROWTH_MB, watch.rss_kb


CAPABILITIES = {
    "workspace": {
        "applyEdit": True,
        "configuration": True,
        "workspaceEdit": {
            "documentChanges": True,
            "resourceOperations": ["create"],
            "changeAnnotationSupport": {"groupsOnLabel": True},
        },
    },
    "window": {"workDoneProgress": True},
    "textDocument": {
        "hover": {"contentFormat": ["markdown"]},
        "codeAction": {
            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["refactor.rewrite"]}}
        },
    },
}
