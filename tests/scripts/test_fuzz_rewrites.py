"""scripts/fuzz_rewrites.py: the fuzz runs the rewrites over damaged copies of a file, writes
its counts, and reports a rewrite that raises or changes the number of lines."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType

from tree_sitter import Node

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "data" / "sources" / "matvec.cpp"


def _script() -> ModuleType:
    return load_script("fuzz_rewrites")


def test_a_small_file_gives_runs_and_the_json_fields(tmp_path: Path) -> None:
    out = tmp_path / "fuzz.json"
    code = _script().main(["--files", str(SMALL), "--trials", "2", "--json", str(out)])
    document = json.loads(out.read_text())
    assert code == (1 if document["bad"] else 0)
    for field in ("benchmark", "device", "commit", "command"):
        assert isinstance(document[field], str) and document[field]
    assert "CPU" in document["device"]
    assert isinstance(document["uncommitted"], list)  # run inside the checkout
    assert document["seed"] == 0 and document["files"] == 1
    assert document["runs"] > 0 and document["bad"] == len(document["failures"])
    assert all(set(f) == {"file", "rewrite", "kind", "message"} for f in document["failures"])


def _raises(source: str, function: Node) -> str:
    raise ValueError("a broken rewrite")


def _adds_a_line(source: str, function: Node) -> str:
    return source + "\n"


def _keeps(source: str, function: Node) -> str:
    return source


def test_a_rewrite_that_raises_or_adds_a_line_is_reported() -> None:
    rewrites = (_raises, _adds_a_line, _keeps)
    runs, failures = _script().fuzz([SMALL], rewrites, random.Random(0), 3)
    assert runs > 0 and runs % len(rewrites) == 0
    assert len(failures) == 2 * runs // len(rewrites)
    kinds = {(f["rewrite"], f["kind"]) for f in failures}
    assert kinds == {("_raises", "ERR"), ("_adds_a_line", "LINES")}
    assert all(f["file"] == "tests/data/sources/matvec.cpp" for f in failures)
    assert any("ValueError: a broken rewrite" in f["message"] for f in failures)


def test_the_same_seed_damages_the_same_way() -> None:
    source = SMALL.read_text()
    mutate = _script().mutate
    assert mutate(source, random.Random(7)) == mutate(source, random.Random(7))
