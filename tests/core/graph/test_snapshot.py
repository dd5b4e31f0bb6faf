from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from regrapht_core.errors import GraphError, GraphFormatError
from regrapht_core.graph.merge import build_graph
from regrapht_core.graph.model import ReGraph
from regrapht_core.graph.paths import SNAPSHOT_ENV, snapshot_path
from regrapht_core.graph.snapshot import (
    MAGIC,
    SCHEMA_VERSION,
    BuildInfo,
    decode_snapshot,
    encode_snapshot,
    load_snapshot,
    save_snapshot,
    source_digest,
)
from tests.core.graph.factories import trajectory

TRAJECTORIES = [
    trajectory("saxpy", ["parallelization", "grid stride", "float4"]),
    trajectory("sum", ["parallelization", "warp shuffle", "atomicAdd"], speedup=None),
    trajectory("stencil", ["parallelization", "smem tiling", "unroll", "unroll"]),
]
BUILD = BuildInfo("regrapht test", len(TRAJECTORIES), source_digest(TRAJECTORIES))


@pytest.fixture(scope="module")
def graph() -> ReGraph:
    return build_graph(TRAJECTORIES)


@pytest.fixture(scope="module")
def data(graph: ReGraph) -> bytes:
    return encode_snapshot(graph, BUILD)


def header(**changes: Any) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "payload_size": None,
        "payload_sha256": None,
        "build": {"builder": "b", "trajectories": 1, "source_digest": "d"},
    } | changes


def forge(payload: Any, **changes: Any) -> bytes:
    """A file with a correct hash over ``payload``, to reach the checks behind the hash."""
    body = msgpack.packb(payload)
    fields = header(payload_size=len(body), payload_sha256=hashlib.sha256(body).hexdigest())
    return MAGIC + msgpack.packb(fields | changes) + body


def valid_payload() -> dict[str, Any]:
    return {
        "nodes": ["atomics", "sequential"],
        "codes": ["after", "before"],
        "edges": [["sequential", "atomics", [["t", "think", "detail", 1, 0, 2.0, None]]]],
    }


def test_round_trip_keeps_graph_and_build_info(graph: ReGraph, tmp_path: Path) -> None:
    path = tmp_path / "g.msgpack"
    save_snapshot(graph, BUILD, path)
    loaded = load_snapshot(path)
    assert loaded.graph == graph
    assert loaded.build == BUILD
    assert loaded.graph.example_count == sum(len(t.steps) for t in TRAJECTORIES)


def test_same_content_gives_byte_identical_files(data: bytes) -> None:
    shuffled = build_graph(list(reversed(TRAJECTORIES)))
    digest = source_digest(list(reversed(TRAJECTORIES)))
    assert encode_snapshot(shuffled, BuildInfo("regrapht test", 3, digest)) == data
    assert data.startswith(MAGIC)


def test_a_forged_minimal_file_decodes() -> None:
    snapshot = decode_snapshot(forge(valid_payload()))
    (example,) = snapshot.graph.examples("sequential", "atomics")
    assert (example.before, example.after, example.speedup) == ("before", "after", 2.0)
    assert snapshot.build == BuildInfo("b", 1, "d")


def test_save_is_atomic_when_the_write_fails(
    graph: ReGraph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.msgpack"
    save_snapshot(ReGraph(), BUILD, path)
    old = path.read_bytes()

    def crash(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(GraphError, match=r"cannot write the snapshot .*g\.msgpack: disk full"):
        save_snapshot(graph, BUILD, path)
    assert path.read_bytes() == old
    assert [p.name for p in tmp_path.iterdir()] == ["g.msgpack"]


def test_unwritable_target_is_a_graph_error(graph: ReGraph, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(GraphError, match="cannot write the snapshot"):
        save_snapshot(graph, BUILD, blocker / "g.msgpack")


def test_missing_file_names_the_path_and_the_build_command(tmp_path: Path) -> None:
    path = tmp_path / "absent.msgpack"
    with pytest.raises(GraphError) as caught:
        load_snapshot(path)
    assert not isinstance(caught.value, GraphFormatError)
    assert str(path) in str(caught.value)
    assert "regrapht graph build" in str(caught.value)


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(GraphFormatError, match="cannot be read"):
        load_snapshot(tmp_path)


def _not_a_snapshot(kind: str, folder: Path) -> Path:
    path = folder / f"{kind}.msgpack"
    if kind == "device":
        return Path("/dev/zero")
    if kind == "symlink to a device":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:  # sparse: 2 GiB of size, no disk used
        with path.open("wb") as file:
            file.truncate(2 << 30)
    return path


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("device", "it is a device, not a regular file"),
        ("symlink to a device", "it is a device, not a regular file"),
        ("fifo", "it is a FIFO (named pipe), not a regular file"),
        ("directory", "it is a directory, not a regular file"),
        ("sparse", f"too large ({2 << 30} bytes; a snapshot is at most 512 MiB)"),
    ],
)
def test_what_is_not_a_snapshot_file_is_refused_before_it_is_read(
    kind: str, problem: str, tmp_path: Path
) -> None:
    """Finding 9 of #15: ``snapshotPath = /dev/zero`` was read whole (10 GB) before any
    check. Devices, FIFOs (which would block), directories and files over the size cap
    are refused at once, by type and size, with the path in the message."""
    path = _not_a_snapshot(kind, tmp_path)
    caught: list[BaseException] = []

    def load() -> None:
        try:
            load_snapshot(path)
        except BaseException as error:  # the test thread reports it
            caught.append(error)

    loader = threading.Thread(target=load, daemon=True)
    loader.start()
    loader.join(timeout=5)
    assert not loader.is_alive(), f"loading {kind} did not return"
    (error,) = caught
    assert isinstance(error, GraphFormatError), error
    assert problem in error.problem
    assert str(path) in str(error)


def test_a_large_file_is_checked_by_its_header_before_the_rest_is_read(
    data: bytes, tmp_path: Path
) -> None:
    """Finding 9 of #15: a file under the cap is still not read whole when its header is
    not a snapshot's; a valid one of more than a header's length still loads."""
    path = tmp_path / "newer.msgpack"
    newer = forge(valid_payload(), schema=2)
    with path.open("wb") as file:
        file.write(newer)
        file.truncate(400 << 20)  # sparse: 400 MiB after a newer header
    with pytest.raises(GraphFormatError, match="newer ReGraphT"):
        load_snapshot(path)
    big = tmp_path / "big.msgpack"
    bulk = valid_payload() | {"codes": ["after", "before" + "x" * (2 << 20)]}
    big.write_bytes(forge(bulk))
    assert load_snapshot(big).graph.example_count == 1


def corrupt_cases(data: bytes) -> list[tuple[bytes, str]]:
    payload = valid_payload()
    return [
        (b"", "truncated: 0 bytes, shorter than the file signature"),
        (MAGIC[:5], "truncated: 5 bytes, shorter than the file signature"),
        (data[:20], "truncated: the file ends inside the header"),
        (data[:-10], f"truncated: the payload has {len(data) - 10 - _payload_start(data)} of"),
        (b"PK\x03\x04", "not a ReGraphT snapshot (wrong file signature)"),
        (b"\x89PNG\r\n\x1a\n" + data[8:], "not a ReGraphT snapshot (wrong file signature)"),
        (data + b"xx", "2 unexpected bytes after the payload"),
        (_flip(data, len(data) - 5), "content hash mismatch"),
        (forge(payload, schema=2), "written by a newer ReGraphT (snapshot schema 2;"),
        (forge(payload, schema=0), "snapshot schema 0 is not supported"),
        (forge(payload, schema="1"), "wrong field type: header 'schema' must be an integer"),
        (MAGIC + msgpack.packb([1, 2]), "malformed header (not a map)"),
        (MAGIC + b"\xc1", "malformed header"),
        (forge(payload, payload_size="9"), "wrong field type: header 'payload_size' must be int"),
        (forge(payload, build=[]), "wrong field type: header 'build' must be dict"),
        (forge(payload, build={"builder": "b"}), "missing field 'trajectories'"),
        (forge(payload, extra=1), "malformed header (unexpected fields)"),
        (_bad_payload_bytes(), "malformed payload"),
        (forge([1]), "malformed payload (expected a map of nodes, codes and edges)"),
        (forge(payload | {"nodes": "atomics"}), "wrong field type: payload 'nodes' must be list"),
        (forge(payload | {"nodes": ["sequential", 3]}), "every node must be a string"),
        (forge(payload | {"codes": [b"x"]}), "every code entry must be a string"),
        (forge(payload | {"nodes": ["sequential", "Bad Id"]}), "node id is not a snake_case"),
        (forge(payload | {"nodes": ["atomics"]}), "the initial node 'sequential' is missing"),
        (forge(payload | {"nodes": ["sequential"] * 2}), "a node is listed twice"),
        (forge(payload | {"nodes": ["sequential"]}), "dangling edge: edges[0] 'sequential' -> "),
        (_with_edges(["sequential", "atomics"]), "edges[0] must be [from, to, examples]"),
        (_with_edges(["sequential", "atomics", []]), "must be [str, str, non-empty list]"),
        (_with_edges(["sequential", "atomics", [[1]]]), "example 0 must be a 7-field array"),
        (_with_example(speedup="fast"), "edges[0] example 0 has a mistyped field"),
        (_with_example(task=None), "edges[0] example 0 has a mistyped field"),
        (_with_example(before=2), "refers to code outside the 2-entry code table"),
        (_with_example(after=-1), "refers to code outside the 2-entry code table"),
        (_duplicate_edge(), "edge 'sequential' -> 'atomics' is listed twice"),
    ]


def _payload_start(data: bytes) -> int:
    unpacker = msgpack.Unpacker()
    unpacker.feed(data[len(MAGIC) :])
    unpacker.unpack()
    return len(MAGIC) + unpacker.tell()


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]


def _bad_payload_bytes() -> bytes:
    body = b"\xc1\x00"
    fields = header(payload_size=len(body), payload_sha256=hashlib.sha256(body).hexdigest())
    return MAGIC + msgpack.packb(fields) + body


def _with_edges(*edges: Any) -> bytes:
    return forge(valid_payload() | {"edges": list(edges)})


def _with_example(**changes: Any) -> bytes:
    names = ["task", "think", "detail", "before", "after", "speedup", "verified_on"]
    fields = dict(zip(names, ["t", "think", "detail", 1, 0, 2.0, None], strict=True)) | changes
    return _with_edges(["sequential", "atomics", [list(fields.values())]])


def _duplicate_edge() -> bytes:
    edge = valid_payload()["edges"][0]
    return _with_edges(edge, edge)


def test_every_corruption_has_its_own_message(data: bytes, tmp_path: Path) -> None:
    cases = corrupt_cases(data)
    assert len({problem for _, problem in cases}) >= 30
    for i, (corrupt, problem) in enumerate(cases):
        path = tmp_path / f"corrupt{i}.msgpack"
        path.write_bytes(corrupt)
        with pytest.raises(GraphFormatError) as caught:
            load_snapshot(path)
        assert problem in caught.value.problem, (i, caught.value.problem)
        assert caught.value.path == path
        assert str(path) in str(caught.value)
        assert "regrapht graph build" in str(caught.value)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fuzzed_files_load_or_raise_graph_format_error_only(
    data: bytes, fuzz: st.DataObject
) -> None:
    """Any mix of byte flips and a cut: the file loads, or GraphFormatError, nothing else."""
    size = len(data)
    corrupt = bytearray(data)
    for _ in range(fuzz.draw(st.integers(1, 4), label="flips")):
        at = fuzz.draw(st.integers(0, size - 1), label="at")
        corrupt[at] ^= fuzz.draw(st.integers(1, 255), label="mask")
    if fuzz.draw(st.booleans(), label="truncate"):
        del corrupt[fuzz.draw(st.integers(0, size - 1), label="cut") :]
    with contextlib.suppress(GraphFormatError):
        decode_snapshot(bytes(corrupt))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 200), st.integers(1, 255))
def test_flips_in_the_header_or_magic_are_caught(data: bytes, at: int, mask: int) -> None:
    """Only the builder and digest strings of the header may change without an error."""
    at = min(at, _payload_start(data) - 1)
    corrupt = _flip_mask(data, at, mask)
    try:
        snapshot = decode_snapshot(corrupt)
    except GraphFormatError:
        return
    assert snapshot.build != BUILD


def _flip_mask(data: bytes, at: int, mask: int) -> bytes:
    return data[:at] + bytes([data[at] ^ mask]) + data[at + 1 :]


def test_default_path_env_var_and_flag_precedence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(SNAPSHOT_ENV, raising=False)
    default = snapshot_path()
    assert default.parts[-2:] == ("graph_snapshots", "regraph.msgpack")
    assert (default.parents[1] / "regrapht_core" / "__init__.py").is_file()
    monkeypatch.setenv(SNAPSHOT_ENV, str(tmp_path / "env.msgpack"))
    assert snapshot_path() == tmp_path / "env.msgpack"
    assert snapshot_path(tmp_path / "flag.msgpack") == tmp_path / "flag.msgpack"


def test_loaded_edges_build_examples_on_access_and_accept_appends(data: bytes) -> None:
    graph = decode_snapshot(data).graph
    edge = ("sequential", "parallelization")
    before = graph.examples(*edge)
    assert [e.task for e in before] == ["saxpy", "stencil", "sum"]
    graph.add_example(*edge, before[0])
    assert graph.examples(*edge) == (*before, before[0])
    assert graph.example_count == sum(len(t.steps) for t in TRAJECTORIES) + 1
