"""scripts/first_steps.py: the digests of the rewriters' first steps are the same from one run
to the next, and a digest that changes is reported (the check a refactor relies on)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "benchmarks" / "corpus" / "manifest.toml"
TASKS = ("elementwise_arith_axpby_f32_ptr", "elementwise_arith_axpby_f32_vec")


def _script() -> ModuleType:
    return load_script("first_steps")


def _run(out: Path, *more: str) -> int:
    only = [arg for name in TASKS for arg in ("--only", name)]
    code: int = _script().main(["--manifest", str(MANIFEST), *only, "--json", str(out), *more])
    return code


def test_fields_and_the_same_digests_twice(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert _run(first) == 0 and _run(second) == 0
    document = json.loads(first.read_text())
    for field in ("benchmark", "device", "commit", "command", "manifest"):
        assert isinstance(document[field], str) and document[field]
    assert "CPU" in document["device"]
    assert isinstance(document["uncommitted"], list)  # run inside the checkout
    assert document["tasks"] == len(TASKS)
    assert list(document["per_task"]) == list(TASKS)
    assert document["steps"] == sum(r["steps"] for r in document["per_task"].values()) > 0
    assert all(len(r["sha256"]) == 64 for r in document["per_task"].values())
    assert json.loads(second.read_text())["per_task"] == document["per_task"]


def test_compare_reports_a_changed_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.json"
    assert _run(old) == 0
    assert _run(tmp_path / "same.json", "--compare", str(old)) == 0
    assert "0 tasks differ" in capsys.readouterr().out
    document = json.loads(old.read_text())
    document["per_task"][TASKS[1]]["sha256"] = "0" * 64
    document["per_task"]["gone"] = {"steps": 1, "sha256": "1" * 64}
    old.write_text(json.dumps(document))
    assert _run(tmp_path / "new.json", "--compare", str(old)) == 1
    out = capsys.readouterr().out
    assert f"differs  {TASKS[1]}" in out and TASKS[0] not in out.split("tasks, ")[-1]
    assert "gone" not in out  # with --only, the tasks left out are not missing


def test_compare_of_the_whole_corpus_names_missing_and_new_tasks() -> None:
    old = {"per_task": {"a": {"steps": 2, "sha256": "x"}, "b": {"steps": 1, "sha256": "y"}}}
    new = {"per_task": {"a": {"steps": 2, "sha256": "x"}, "c": {"steps": 3, "sha256": "z"}}}
    assert _script().compare(old, new, selected=False) == ["missing  b", "new      c (3 steps)"]


def test_the_digest_keeps_the_boundaries_between_proposals() -> None:
    digest = _script().digest
    assert digest([("think", "ab")]) != digest([("think", "a"), ("", "b")])
    assert digest([("t", "code")]) == digest([["t", "code"]])  # a probe's JSON lists too
