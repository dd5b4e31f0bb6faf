"""Open documents as the editor has them, their parses, and the files read beside them.

pygls applies an incremental change over ``str.splitlines`` rows, which also break at a form
feed, U+0085, U+2028 and more; the LSP's rows break only at ``\\n``, ``\\r\\n`` and ``\\r``.
Below such a character every change landed on the wrong row and the server's copy drifted
from the editor's (finding 7 of #15): :class:`EditorText` applies changes over the LSP's rows.

Parsing a large document takes long (5.8 s for 20 MB), so :class:`Parses` parses in a worker
thread, incrementally from the last parse, while the event loop answers other requests
(finding 12); a request that needs the parse awaits it, and a change that came in since
makes a parse not yet started unnecessary. Documents over :data:`MAX_PARSED` are not parsed.

Files named by a document (the ``.regrapht.cu`` a pointer comment names) are read only as
plain files in the document's own folder, regular, and not too large (finding 8):
:func:`read_beside`; in any encoding a source file comes in, and a file that is no text is
one line saying so (:func:`read_file`).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

from lsprotocol import types
from pygls.workspace import TextDocument

from regrapht_core import api
from regrapht_core.api import SourceLanguage
from regrapht_core.errors import TaskError
from regrapht_server.positions import column_from_client

__all__ = ["MAX_PARSED", "MAX_READ", "EditorText", "Parses", "read_beside", "read_file"]

T = TypeVar("T")

MAX_PARSED = 8_000_000
"""Characters: a larger document is not parsed (nor offered actions)."""
MAX_READ = 8 << 20
"""Bytes: a larger file beside a document is not read."""


class EditorText(TextDocument):
    """pygls's ``TextDocument`` with the LSP's rows: changes land where the editor made them."""

    _starts_of: str | None = None
    _starts: list[int]

    @classmethod
    def adopt(cls, document: TextDocument) -> EditorText:
        """The same open document (the server advertises incremental sync, pygls's default)."""
        return cls(
            document.uri,
            document.source,
            document.version,
            document.language_id,
            sync_kind=types.TextDocumentSyncKind.Incremental,
            position_codec=document.position_codec,
        )

    def line_starts(self) -> list[int]:
        source = self.source
        if self._starts_of is not source:
            self._starts, self._starts_of = api.line_starts(source), source
        return self._starts

    @property
    def lines(self) -> Sequence[str]:
        """Rows with their line breaks, as pygls's own helpers read them."""
        source = self.source
        starts = self.line_starts()
        rows = [source[a:b] for a, b in zip(starts, [*starts[1:], len(source)], strict=True)]
        return tuple(rows[:-1] if rows[-1] == "" else rows)

    def offset(self, position: types.Position) -> int:
        """A client position as an index into the text; past the end, the end (as VS Code)."""
        source, starts = self.source, self.line_starts()
        if position.line >= len(starts):
            return len(source)
        begin = starts[position.line]
        end = starts[position.line + 1] if position.line + 1 < len(starts) else len(source)
        row = source[begin:end].rstrip("\r\n")
        return begin + column_from_client(row, position.character, self.position_codec)

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        source = self.source
        start, end = self.offset(change.range.start), self.offset(change.range.end)
        self._source = source[:start] + change.text + source[max(start, end) :]


class _Worker:
    """One daemon thread running parses in order: it never delays the process's exit, and
    a parse of one document never races another parse of the same one."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]]
        self._jobs = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def submit(self, work: Callable[[], T]) -> Future[T]:
        """Started on the first parse: importing the server starts no thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="regrapht-parse", daemon=True)
            self._thread.start()
        future: Future[T] = Future()
        self._jobs.put((work, future))  # type: ignore[arg-type]
        return future

    def _run(self) -> None:
        while True:
            work, future = self._jobs.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(work())
            except BaseException as error:  # the awaiting request reports it
                future.set_exception(error)


class Parses:
    """The parse of each open document, made in a worker thread, incremental from the last."""

    def __init__(self) -> None:
        self._cache = api.DocumentCache()
        self._worker = _Worker()
        self._wanted: dict[str, str] = {}
        """Per document, the newest text a parse was asked for: older ones not yet started
        are skipped."""
        self._pending: dict[str, tuple[str, Future[api.Document | None]]] = {}

    def schedule(self, key: str, text: str, language: SourceLanguage) -> None:
        """Start parsing this text (after an edit), so that the next request finds it done."""
        self._future(key, text, language)

    async def get(self, key: str, text: str, language: SourceLanguage) -> api.Document | None:
        """The parse of this text; ``None`` when a newer text superseded it before it began."""
        return self._cache.cached(key, text, language) or await asyncio.wrap_future(
            self._future(key, text, language)
        )

    def drop(self, key: str) -> None:
        """After the document closed; in the worker, so that no parse running now puts it back."""
        self._wanted.pop(key, None)
        self._pending.pop(key, None)
        self._worker.submit(lambda: self._cache.drop(key))

    def _future(self, key: str, text: str, language: SourceLanguage) -> Future[api.Document | None]:
        pending = self._pending.get(key)
        if pending is not None and pending[0] is text:
            return pending[1]
        self._wanted[key] = text

        def parse() -> api.Document | None:
            if self._wanted.get(key) is not text:
                return None
            return self._cache.get(key, text, language)

        future = self._worker.submit(parse)
        self._pending[key] = (text, future)
        future.add_done_callback(lambda _: self._forget(key, future))
        return future

    def _forget(self, key: str, future: Future[api.Document | None]) -> None:
        pending = self._pending.get(key)
        if pending is not None and pending[1] is future:
            del self._pending[key]


def read_file(path: Path, limit: int = MAX_READ) -> str | None:
    """The text of the source file at ``path``, at most ``limit`` bytes, whatever its
    encoding (UTF-8; UTF-16 or UTF-32 with a byte-order mark; else Windows-1252 or Latin-1);
    ``None`` when there is no file there.

    Anything else raises ``TaskError``, one line naming the file: a FIFO (opened without
    blocking: it would wait for a writer forever) or a device (checked on the open
    descriptor: ``/dev/zero`` never ends), a file too large, binary bytes, no permission."""
    try:
        return api.read_source_text(path, limit)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise TaskError(f"{path}: cannot be read ({err.strerror or err})") from None


def read_beside(folder: Path, name: str, read: Callable[[Path], str | None]) -> str | None:
    """``read`` the file ``name`` in ``folder``, if it is a plain file name there: no folder
    separators, no ``..``, and no link that leads out of the folder."""
    if name in {"", ".", ".."} or any(c in name for c in "/\\\0") or Path(name).name != name:
        return None
    try:
        inside = folder.resolve()
        path = (inside / name).resolve()
    except (OSError, RuntimeError):  # a loop of links
        return None
    return read(path) if path.parent == inside else None
