"""Snapshot files: the built ReGraph in msgpack, validated on every load (docs/snapshot-format.md).

Never pickle: a snapshot may come from anywhere, and loading one must not run code. Every
defect a file can have (cut short, foreign, newer schema, edited, mistyped, inconsistent)
surfaces as ``GraphFormatError`` naming the file and the defect; nothing else escapes.

Code strings are stored once in a table and referenced by index, since a step's ``after``
is the next step's ``before``: that halves the file and the time to hash and read it.
Examples are msgpack arrays, not maps, so loading does no per-field key lookups.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, overload

import msgpack

from regrapht_core.datatypes import EdgeExample, Trajectory
from regrapht_core.errors import GraphError, GraphFormatError
from regrapht_core.files import atomic_write, file_kind
from regrapht_core.graph.model import NODE_ID, ReGraph
from regrapht_core.graph.taxonomy import SEQUENTIAL

__all__ = [
    "MAGIC",
    "SCHEMA_VERSION",
    "SIZE_LIMIT",
    "BuildInfo",
    "Snapshot",
    "decode_snapshot",
    "encode_snapshot",
    "load_snapshot",
    "save_snapshot",
    "source_digest",
]

_log = logging.getLogger(__name__)

MAGIC = b"ReGraphT"
SCHEMA_VERSION = 1
_HEADER_LIMIT = 1 << 20
SIZE_LIMIT = 512 << 20
"""Largest snapshot file read (the bundled one is 150 kB; a learned graph grows slowly)."""
_EXAMPLE_FIELDS = 7
_UNPACK_ERRORS = (ValueError, TypeError, msgpack.UnpackException)
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class BuildInfo:
    """How a snapshot was made; deliberately without timestamps, so rebuilds are identical."""

    builder: str
    trajectories: int
    source_digest: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    graph: ReGraph
    build: BuildInfo


def source_digest(trajectories: Iterable[Trajectory]) -> str:
    """sha256 of the trajectories' content in task order: reformatting a JSON file keeps it."""
    ordered = sorted(trajectories, key=lambda t: t.task)
    content = [
        [
            t.task,
            t.source,
            t.verified_on,
            [[s.think, s.method, s.detail, s.code, s.speedup] for s in t.steps],
        ]
        for t in ordered
    ]
    return hashlib.sha256(msgpack.packb(content)).hexdigest()


def encode_snapshot(graph: ReGraph, build: BuildInfo) -> bytes:
    """The file's bytes; canonical order throughout, so equal graphs give equal bytes."""
    nodes, edges = graph.canonical()
    codes = sorted(
        {code for _, _, examples in edges for e in examples for code in (e.before, e.after)}
    )
    code_index = {code: i for i, code in enumerate(codes)}
    payload = msgpack.packb(
        {
            "nodes": list(nodes),
            "codes": codes,
            "edges": [
                [
                    u,
                    v,
                    [
                        [
                            e.task,
                            e.think,
                            e.detail,
                            code_index[e.before],
                            code_index[e.after],
                            e.speedup,
                            e.verified_on,
                        ]
                        for e in examples
                    ],
                ]
                for u, v, examples in edges
            ],
        }
    )
    header = msgpack.packb(
        {
            "schema": SCHEMA_VERSION,
            "payload_size": len(payload),
            "payload_sha256": hashlib.sha256(payload).hexdigest(),
            "build": {
                "builder": build.builder,
                "trajectories": build.trajectories,
                "source_digest": build.source_digest,
            },
        }
    )
    return MAGIC + header + payload


def save_snapshot(graph: ReGraph, build: BuildInfo, path: Path) -> None:
    """Write atomically: a crash leaves the old file or the new one, never half of one."""
    data = encode_snapshot(graph, build)
    try:
        atomic_write(path, data)
    except OSError as err:
        raise GraphError(f"cannot write the snapshot {path}: {err.strerror or err}") from err
    _log.info("wrote %s (%d bytes, %r)", path, len(data), graph)


def load_snapshot(path: Path) -> Snapshot:
    if not path.exists():
        raise GraphError(
            f"No ReGraph snapshot at {path}. Build it with `regrapht graph build`, or point "
            "--snapshot / REGRAPHT_SNAPSHOT at an existing snapshot."
        )
    try:
        data = _read(path)
    except OSError as err:
        raise GraphFormatError(path, f"cannot be read ({err.strerror or err})") from err
    except _Bad as bad:
        raise GraphFormatError(path, str(bad)) from None
    return decode_snapshot(data, path)


def _read(path: Path) -> bytes:
    """The file's bytes, once it is known to be a snapshot of a sane size.

    A setting can name anything: a device (``/dev/zero`` never ends), a FIFO (reading
    blocks until a writer comes), a directory, a file of gigabytes. So the file is opened
    without blocking, must be a regular file (after symlinks) under :data:`SIZE_LIMIT`, and
    its signature and header are checked before the payload is read.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Bad(f"cannot be read: it is {file_kind(info.st_mode)}, not a regular file")
        if info.st_size > SIZE_LIMIT:
            raise _Bad(
                f"too large ({info.st_size} bytes; a snapshot is at most {SIZE_LIMIT >> 20} MiB)"
            )
        with open(fd, "rb", closefd=False) as file:
            head = file.read(len(MAGIC) + _HEADER_LIMIT)
            if len(head) < info.st_size:
                _check_header(*_split(_body(head)), partial=True)
            return head + file.read(max(info.st_size - len(head), 0))
    finally:
        os.close(fd)


class _Bad(Exception):
    """Internal: what is wrong with the file, raised as ``GraphFormatError`` with the path."""


def decode_snapshot(data: bytes, path: Path | str = "<bytes>") -> Snapshot:
    """Validate and decode a snapshot's bytes; ``path`` only names the file in errors."""
    try:
        with _gc_paused():
            return _decode(data)
    except _Bad as bad:
        raise GraphFormatError(path, str(bad)) from None


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Decoding allocates ~10^5 containers, none cyclic; collections meanwhile are pure cost."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _decode(data: bytes) -> Snapshot:
    header, payload = _split(_body(data))
    build = _check_header(header, payload)
    try:
        document = msgpack.unpackb(payload)
    except _UNPACK_ERRORS as err:
        raise _Bad(f"malformed payload ({err})") from None
    return Snapshot(_graph(document), build)


def _body(data: bytes) -> memoryview:
    """What follows the file signature, once the signature is checked."""
    if len(data) < len(MAGIC):
        if MAGIC.startswith(data):
            raise _Bad(f"truncated: {len(data)} bytes, shorter than the file signature")
        raise _Bad("not a ReGraphT snapshot (wrong file signature)")
    if data[: len(MAGIC)] != MAGIC:
        raise _Bad("not a ReGraphT snapshot (wrong file signature)")
    return memoryview(data)[len(MAGIC) :]


def _split(body: memoryview) -> tuple[Any, memoryview]:
    unpacker = msgpack.Unpacker(max_buffer_size=_HEADER_LIMIT)
    unpacker.feed(body[:_HEADER_LIMIT])
    try:
        header = unpacker.unpack()
    except msgpack.OutOfData:
        if len(body) < _HEADER_LIMIT:
            raise _Bad("truncated: the file ends inside the header") from None
        raise _Bad("malformed header (larger than 1 MiB)") from None
    except _UNPACK_ERRORS as err:
        raise _Bad(f"malformed header ({err})") from None
    return header, body[unpacker.tell() :]


def _check_header(header: Any, payload: memoryview, *, partial: bool = False) -> BuildInfo:
    """The build info of a valid header; ``partial``: ``payload`` is only the start of it
    (the file is being read), so only the header's own fields are checked."""
    if not isinstance(header, dict):
        raise _Bad("malformed header (not a map)")
    schema = header.get("schema")
    if type(schema) is not int:
        raise _Bad("wrong field type: header 'schema' must be an integer")
    if schema > SCHEMA_VERSION:
        raise _Bad(
            f"written by a newer ReGraphT (snapshot schema {schema}; this version reads "
            f"schema {SCHEMA_VERSION}): upgrade ReGraphT"
        )
    if schema != SCHEMA_VERSION:
        raise _Bad(f"snapshot schema {schema} is not supported (this version reads 1)")
    size = _typed(header, "payload_size", int, "header")
    digest = _typed(header, "payload_sha256", str, "header")
    build = _typed(header, "build", dict, "header")
    if len(header) != 4:
        raise _Bad("malformed header (unexpected fields)")
    if partial:
        return _build_info(build)
    if len(payload) < size:
        raise _Bad(f"truncated: the payload has {len(payload)} of {size} bytes")
    if len(payload) > size:
        raise _Bad(f"{len(payload) - size} unexpected bytes after the payload")
    if hashlib.sha256(payload).hexdigest() != digest:
        raise _Bad("content hash mismatch: the payload is corrupted or was edited")
    return _build_info(build)


def _build_info(build: dict[str, Any]) -> BuildInfo:
    info = BuildInfo(
        builder=_typed(build, "builder", str, "build"),
        trajectories=_typed(build, "trajectories", int, "build"),
        source_digest=_typed(build, "source_digest", str, "build"),
    )
    if len(build) != 3:
        raise _Bad("malformed header (unexpected build fields)")
    return info


def _typed(fields: dict[str, Any], key: str, kind: type[_T], where: str) -> _T:
    if key not in fields:
        raise _Bad(f"malformed {where}: missing field {key!r}")
    value = fields[key]
    if type(value) is not kind:
        raise _Bad(f"wrong field type: {where} {key!r} must be {kind.__name__}")
    return value


def _graph(document: Any) -> ReGraph:
    if not isinstance(document, dict) or set(document) != {"nodes", "codes", "edges"}:
        raise _Bad("malformed payload (expected a map of nodes, codes and edges)")
    nodes = _nodes(_typed(document, "nodes", list, "payload"))
    codes = _typed(document, "codes", list, "payload")
    edges = _typed(document, "edges", list, "payload")
    if not all(type(code) is str for code in codes):
        raise _Bad("wrong field type: every code entry must be a string")
    graph = ReGraph()
    for node in nodes:
        graph.add_node(node)
    node_set = set(nodes)
    seen: set[tuple[str, str]] = set()
    checked = []
    for i, edge in enumerate(edges):
        u, v, raw = _edge(edge, i, node_set)
        if (u, v) in seen:
            raise _Bad(f"malformed payload (edge {u!r} -> {v!r} is listed twice)")
        seen.add((u, v))
        checked.append((u, v, _examples(raw, codes, i)))
    graph.add_edges(checked)
    return graph


def _nodes(nodes: list[Any]) -> list[str]:
    """Distinct snake_case ids, the initial node among them."""
    if not all(type(node) is str for node in nodes):
        raise _Bad("wrong field type: every node must be a string")
    if not all(NODE_ID.fullmatch(node) for node in nodes):
        raise _Bad("malformed payload (a node id is not a snake_case slug)")
    if len(set(nodes)) != len(nodes):
        raise _Bad("malformed payload (a node is listed twice)")
    if SEQUENTIAL not in nodes:
        raise _Bad(f"malformed payload (the initial node {SEQUENTIAL!r} is missing)")
    return nodes


def _edge(edge: Any, i: int, nodes: set[str]) -> tuple[str, str, list[Any]]:
    """``edges[i]`` as ``(from, to, example rows)`` between listed nodes."""
    if type(edge) is not list or len(edge) != 3:
        raise _Bad(f"wrong field type: edges[{i}] must be [from, to, examples]")
    u, v, raw = edge
    if type(u) is not str or type(v) is not str or type(raw) is not list or not raw:
        raise _Bad(f"wrong field type: edges[{i}] must be [str, str, non-empty list]")
    if u not in nodes or v not in nodes:
        raise _Bad(f"dangling edge: edges[{i}] {u!r} -> {v!r} ends at a node not listed")
    return u, v, raw


class _Examples(Sequence[EdgeExample]):
    """One edge's validated example rows, made into ``EdgeExample`` values on first access.

    Building 20,000 frozen dataclasses is most of a load's time, yet a search reads only the
    edges it walks. Two threads racing to build the same edge make equal lists; either wins.
    """

    __slots__ = ("_built", "_codes", "_rows")

    def __init__(self, rows: list[list[Any]], codes: list[str]) -> None:
        self._rows = rows
        self._codes = codes
        self._built: list[EdgeExample] | None = None

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> EdgeExample: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[EdgeExample]: ...
    def __getitem__(self, index: int | slice) -> EdgeExample | Sequence[EdgeExample]:
        return self._examples()[index]

    def __iter__(self) -> Iterator[EdgeExample]:
        return iter(self._examples())

    def _examples(self) -> list[EdgeExample]:
        if self._built is None:
            codes = self._codes
            self._built = [
                EdgeExample(task, think, detail, codes[before], codes[after], speedup, verified)
                for task, think, detail, before, after, speedup, verified in self._rows
            ]
        return self._built


def _examples(raw: list[Any], codes: list[str], edge: int) -> _Examples:
    table = len(codes)
    for j, fields in enumerate(raw):
        if type(fields) is not list or len(fields) != _EXAMPLE_FIELDS:
            raise _Bad(f"wrong field type: edges[{edge}] example {j} must be a 7-field array")
        task, think, detail, before, after, speedup, verified_on = fields
        if (
            type(task) is not str
            or type(think) is not str
            or type(detail) is not str
            or type(before) is not int
            or type(after) is not int
            or (speedup is not None and type(speedup) is not float)
            or (verified_on is not None and type(verified_on) is not str)
        ):
            raise _Bad(f"wrong field type: edges[{edge}] example {j} has a mistyped field")
        if not (0 <= before < table and 0 <= after < table):
            raise _Bad(
                f"malformed payload (edges[{edge}] example {j} refers to code outside the "
                f"{table}-entry code table)"
            )
    return _Examples(raw, codes)
