"""The suite runner with the real rewriters and nvcc (no GPU here: compile-level results)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from regrapht_core.bench.runner import load_manifest, summarise
from regrapht_core.cli import EXIT_USER_ERROR, main
from regrapht_core.errors import ConfigError
from tests.conftest import gpu_present
from tests.core.optimize.test_cli import EXAMPLE


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE, tmp_path / "smooth.cpp")
    path = tmp_path / "manifest.toml"
    path.write_text(
        '[[task]]\nfile = "smooth.cpp"\nfunction = "smooth"\nfamily = "stencil"\n'
        '[[task]]\nname = "missing"\nfile = "gone.cpp"\nfunction = "f"\n'
    )
    return path


def test_manifest_entries_resolve_relative_to_the_manifest(manifest: Path) -> None:
    tasks = load_manifest(manifest)
    assert [(t.name, t.family) for t in tasks] == [("smooth", "stencil"), ("missing", "")]
    assert tasks[0].file == manifest.parent / "smooth.cpp"


def test_a_malformed_manifest_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[[task]]\nfile = 3 = 4\n")
    with pytest.raises(ConfigError, match=r"bad\.toml"):
        load_manifest(bad)


@pytest.mark.skipif(gpu_present(), reason="the compile-level path needs no GPU")
def test_suite_records_every_run_with_provenance(manifest: Path, tmp_path: Path) -> None:
    out = tmp_path / "results" / "suite.json"
    result = CliRunner().invoke(
        main,
        ["bench", str(manifest), "--no-model", "--budget", "3",
         "--method", "mcgs", "--method", "walks", "--method", "plain", "--json", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert document["device"] is None and document["commit"]
    assert document["config"]["budget"] == 3 and document["config"]["model"] is None
    runs = {(r["task"], r["method"]): r for r in document["runs"]}
    assert len(runs) == 6
    smooth = runs["smooth", "mcgs"]
    assert not smooth["passed"] and smooth["statuses"].get("not_run", 0) >= 1
    assert smooth["producers"][0] == "rewriter:parallelization"
    assert "prompts a model" in runs["smooth", "plain"]["failure"]
    assert "gone.cpp" in runs["missing", "walks"]["failure"]
    assert document["summary"]["mcgs"] == {
        "tasks": 2, "passed": 0, "pass_at_1": 0.0,
        "geomean_speedup_passed": None, "median_speedup_passed": None,
    }  # fmt: skip


def test_summary_is_pass_rate_and_speedups_of_passed_tasks() -> None:
    rows = [
        {"method": "mcgs", "passed": True, "speedup": 2.0},
        {"method": "mcgs", "passed": True, "speedup": 8.0},
        {"method": "mcgs", "passed": False, "speedup": None},
        {"method": "walks", "passed": False, "speedup": None},
    ]
    summary = summarise(rows)
    assert summary["mcgs"]["pass_at_1"] == round(2 / 3, 4)
    assert summary["mcgs"]["geomean_speedup_passed"] == 4.0
    assert summary["walks"]["passed"] == 0


def test_unknown_method_is_a_usage_error(manifest: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["bench", str(manifest), "--method", "magic", "--json", str(tmp_path / "x.json")]
    )
    assert result.exit_code == EXIT_USER_ERROR
