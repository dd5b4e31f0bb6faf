"""benchmarks/sweep_search.py: one setting changed at a time, one task per family from the
train split, MCGS run with the changed setting (real rewriters and nvcc; no GPU here), and
the settings' files merged into one report-ready document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchmarks.sweep_search import (
    SWEPT,
    Setting,
    main,
    merge,
    setting_name,
    settings,
    sweep_tasks,
)
from regrapht_core.bench.report import write_report
from regrapht_core.bench.runner import load_manifest
from regrapht_core.errors import ConfigError
from regrapht_core.search.config import SearchConfig
from tests.conftest import gpu_present
from tests.core.optimize.test_cli import EXAMPLE

CORPUS = Path(__file__).parents[2] / "benchmarks" / "corpus" / "manifest.toml"


def test_the_default_comes_first_and_again_then_one_setting_changed_at_a_time() -> None:
    found = settings()
    assert found[:2] == [Setting("default", {}), Setting("default-repeat1", {}, repeat=1)]
    assert found[1].options() == ["--repeat 1"]
    assert len(found) == 2 + sum(len(values) for _, values in SWEPT.values())
    defaults = SearchConfig()
    for setting in found[2:]:
        ((key, value),) = setting.changed.items()
        assert value != getattr(defaults, key)
        assert setting.name == setting_name(setting.changed)
        assert setting.options() == [f"--set {key}={value:g}"]
    assert len({setting.name for setting in found}) == len(found)
    assert setting_name({"exploration": 0.5}) == "exploration-0.5"
    assert setting_name({"depth_cap": 8, "exploration": 1.0}) == "depth-cap-8"
    assert setting_name({key: getattr(defaults, key) for key in SWEPT}) == "default"


def test_the_sweep_takes_train_tasks_of_distinct_families_the_same_each_time() -> None:
    chosen = sweep_tasks(CORPUS, 12)
    assert chosen == sweep_tasks(CORPUS, 12)
    tasks = {t.name: t for t in load_manifest(CORPUS)}
    assert len(chosen) == 12
    assert all(tasks[name].split == "train" for name in chosen)
    assert len({tasks[name].family for name in chosen}) == 12
    assert sweep_tasks(CORPUS, 12, seed=1) != chosen


def test_settings_print_as_options_and_a_bad_setting_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["settings"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["default", "default-repeat1 --repeat 1"]
    assert "exploration-2 --set exploration=2" in lines
    with pytest.raises(SystemExit):
        main(["run", str(CORPUS), "--set", "widening=3", "--json", str(tmp_path / "x.json")])
    assert "KEY=VALUE with KEY in" in capsys.readouterr().err


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    shutil.copy(EXAMPLE, tmp_path / "smooth.cpp")
    path = tmp_path / "manifest.toml"
    path.write_text('[[task]]\nfile = "smooth.cpp"\nfunction = "smooth"\nfamily = "stencil"\n')
    return path


@pytest.mark.skipif(gpu_present(), reason="the compile-level path needs no GPU")
def test_a_run_searches_with_the_setting_and_records_it(manifest: Path, tmp_path: Path) -> None:
    out = tmp_path / "sweep-exploration-2.json"
    args = ["run", str(manifest), "--set", "exploration=2", "--set", "depth_cap=3"]
    args += ["--no-model", "--budget", "2", "--json", str(out)]
    assert main(args) == 0
    document = json.loads(out.read_text())
    assert document["search"] == {"exploration": 2.0, "rollout_epsilon": 0.2, "depth_cap": 3}
    assert document["repeat"] == 0
    assert document["config"]["depth_cap"] == 3 and document["config"]["methods"] == ["mcgs"]
    assert document["command"] == "python3 -m benchmarks.sweep_search " + " ".join(args)
    (smooth,) = document["runs"]
    assert smooth["task"] == "smooth" and smooth["producers"][0] == "rewriter:parallelization"
    # A file of one setting resumes only under that setting.
    assert main([*args, "--resume"]) == 0
    assert len(json.loads(out.read_text())["runs"]) == 1
    other = ["run", str(manifest), "--no-model", "--budget", "2", "--json", str(out), "--resume"]
    with pytest.raises(SystemExit, match="another setting"):
        main(other)
    with pytest.raises(SystemExit, match="another setting"):
        main([*args, "--resume", "--repeat", "1"])


def _document(search: dict[str, Any], speedups: dict[str, float | None], **extra: Any) -> Any:
    runs = [
        {
            "task": task,
            "family": "f",
            "method": "mcgs",
            "passed": speedup is not None,
            "speedup": speedup,
            "techniques": ["parallelization"],
            "failure": None if speedup else "0.9x",
        }
        for task, speedup in speedups.items()
    ]
    return {
        "device": "NVIDIA H200",
        "engine": "e1",
        "commit": "c1",
        "commits": ["c1"],
        "command": f"python3 -m benchmarks.sweep_search run ... {search}",
        "started": "2026-11-29T17:00:00Z",
        "config": {
            "budget": 30,
            "depth_cap": search.get("depth_cap", 5),
            "time_limit_s": 120.0,
            "model": None,
            "rewriters": True,
            "seed": 0,
            "timing": "task",
            "methods": ["mcgs"],
        },
        "search": {"exploration": 1.0, "rollout_epsilon": 0.2, "depth_cap": 5} | search,
        "runs": runs,
    } | extra


def test_merged_settings_become_methods_with_the_default_first(tmp_path: Path) -> None:
    wide = _document({"exploration": 2.0}, {"a": 3.0, "b": None})
    default = _document({}, {"a": 2.0, "b": 1.5})
    deep = _document({"depth_cap": 8}, {"a": 2.1})
    again = _document({}, {"a": 2.05, "b": 1.5}, repeat=1)
    merged = merge([wide, default, deep, again], "python3 -m benchmarks.sweep_search merge ...")
    names = ["default", "default-repeat1", "depth-cap-8", "exploration-2"]
    assert merged["config"]["methods"] == names
    assert {run["method"] for run in merged["runs"]} == set(names)
    assert merged["summary"]["exploration-2"]["passed"] == 1
    assert [part["search"]["depth_cap"] for part in merged["parts"]] == [5, 5, 8, 5]
    assert [part["repeat"] for part in merged["parts"]] == [0, 1, 0, 0]
    report = write_report(merged, tmp_path).read_text(encoding="utf-8")
    assert "## default against each method, on the tasks both ran" in report
    assert "| exploration-2 | all | 2 |" in report
    assert "| default-repeat1 | all | 2 | 1.73x | 1.75x | 0 / 2 / 0 |" in report


def test_settings_run_on_other_engines_or_budgets_do_not_merge() -> None:
    default = _document({}, {"a": 2.0})
    with pytest.raises(ConfigError, match="engine"):
        merge([default, _document({"exploration": 2.0}, {"a": 2.0}, engine="e2")], "m")
    other_budget = _document({"exploration": 2.0}, {"a": 2.0})
    other_budget["config"]["budget"] = 10
    with pytest.raises(ConfigError, match="budget"):
        merge([default, other_budget], "m")
    with pytest.raises(ConfigError, match="two files of one setting"):
        merge([default, _document({}, {"b": 1.0})], "m")
