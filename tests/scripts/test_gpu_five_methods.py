"""scripts/gpu-five-methods.sh: issue 16's run in parts, each task's five methods in one
process, and a later lease resuming each process from the runs earlier files hold for its
own tasks, however those files had split them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from regrapht_core.bench.runner import load_manifest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gpu-five-methods.sh"
SUITE = ROOT / "benchmarks" / "tasks" / "manifest.toml"


def _arms(
    tmp_path: Path, part: str, gpus: int, resume: Path | None = None, **study: str
) -> list[list[str]]:
    """The arms the script hands scripts/gpu-model-arms.sh, one argument list each;
    ``study`` sets its METHODS and NAME."""
    shown = tmp_path / "show.sh"
    shown.write_text(
        'printf "%s" "$ARMS"; [ -z "${RESUME_FROM:-}" ] || echo "RESUME $RESUME_FROM"\n'
    )
    env = {**os.environ, **study, "PART": part, "GPUS": str(gpus), "ARMS_SCRIPT": str(shown)}
    if resume is not None:
        env["RESUME_FROM"] = str(resume)
    done = subprocess.run(
        ["bash", str(SCRIPT), "start"], env=env, capture_output=True, text=True, check=True
    )
    return [line.split() for line in done.stdout.splitlines() if line.strip()]


def _tasks(arm: list[str]) -> list[str]:
    return [arm[i + 1] for i, word in enumerate(arm) if word == "--only"]


def test_six_parts_cover_the_suite_once_with_all_five_methods(tmp_path: Path) -> None:
    names = [task.name for task in load_manifest(SUITE)]  # the runner's names for --only
    covered: list[str] = []
    for part in range(1, 7):
        arms = _arms(tmp_path, str(part), gpus=1)
        assert len(arms) <= 4, "four processes on one GPU"
        for arm in arms:
            assert arm[arm.index("--gpu") + 1] == "0"
            methods = [arm[i + 1] for i, word in enumerate(arm) if word == "--method"]
            assert methods == ["mcgs", "walks", "plain", "cot", "rag"]
            covered += _tasks(arm)
    assert sorted(covered) == sorted(names)


def test_two_gpus_take_the_processes_in_turn(tmp_path: Path) -> None:
    arms = _arms(tmp_path, "3 4", gpus=2)
    assert len(arms) == 8
    assert [arm[arm.index("--gpu") + 1] for arm in arms] == ["0", "1"] * 4


def _earlier(folder: Path, name: str, runs: list[tuple[str, str]]) -> None:
    document = {
        "device": "NVIDIA H200",
        "commit": "abc",
        "engine": "e1",
        "config": {"budget": 30, "methods": ["mcgs"]},
        "runs": [{"task": task, "method": method, "passed": False} for task, method in runs],
    }
    (folder / name).write_text(json.dumps(document))


def test_a_resumed_process_starts_from_its_own_tasks_runs(tmp_path: Path) -> None:
    """Part 1 ran on one GPU; resumed on two, its tasks sit in other processes now."""
    first = _arms(tmp_path, "1", gpus=1)
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    a, b = _tasks(first[0])[:2]
    ran = [(a, "mcgs"), (a, "walks"), (b, "mcgs")]
    _earlier(earlier, "five-1-1.json", ran)
    _earlier(earlier, "merged-part1.json", [("not_read", "mcgs")])  # not a process's file
    arms = _arms(tmp_path, "1", gpus=2, resume=earlier)
    folder = Path(arms[-1][1])
    assert arms[-1][0] == "RESUME"
    files = {path.stem: json.loads(path.read_text()) for path in folder.glob("*.json")}
    for arm in arms[:-1]:
        held = {(run["task"], run["method"]) for run in files.get(arm[0], {"runs": []})["runs"]}
        assert held == {(task, method) for task, method in ran if task in _tasks(arm)}
    assert all(doc["engine"] == "e1" for doc in files.values())


def test_a_resumed_run_spreads_the_searches_left_evenly(tmp_path: Path) -> None:
    """Whole parts ran, others half: every process gets about as many searches to run,
    and every task still sits in one process, so the lease's files merge alone."""
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    names = [task.name for task in load_manifest(SUITE)]
    methods = ["mcgs", "walks", "plain", "cot", "rag"]
    ran = [(task, m) for i, task in enumerate(names) for m in methods[: 5 if i < 27 else i % 3]]
    _earlier(earlier, "five-1-2-3-1.json", ran)
    arms = _arms(tmp_path, "1 2 3 4 5 6", gpus=2, resume=earlier)[:-1]
    assert sorted(task for arm in arms for task in _tasks(arm)) == sorted(names)
    left = [sum(5 - sum(t == task for t, _ in ran) for task in _tasks(arm)) for arm in arms]
    assert sum(left) == 5 * len(names) - len(ran)
    assert max(left) - min(left) <= 5, f"searches left per process: {left}"


def test_another_study_runs_its_methods_and_resumes_from_its_own_files(tmp_path: Path) -> None:
    """MCGS alone with the shipped snapshot, to set against the five-method run's MCGS
    column: its processes run only MCGS and resume from their own files, not the run's."""
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    names = [task.name for task in load_manifest(SUITE)]
    _earlier(earlier, "five-1-2-3-4-5-6-1.json", [(task, "mcgs") for task in names])
    _earlier(earlier, "mcgs-mined-1-2-3-4-5-6-1.json", [(names[0], "mcgs")])
    study = {"METHODS": "--method mcgs", "NAME": "mcgs-mined"}
    arms = _arms(tmp_path, "1 2 3 4 5 6", gpus=2, resume=earlier, **study)
    folder, arms = Path(arms[-1][1]), arms[:-1]
    assert len(arms) == 8 and all(arm[0].startswith("mcgs-mined-1-2-3-4-5-6-") for arm in arms)
    assert all(
        [arm[i + 1] for i, w in enumerate(arm) if w == "--method"] == ["mcgs"] for arm in arms
    )
    assert sorted(task for arm in arms for task in _tasks(arm)) == sorted(names)
    held = [run for path in folder.glob("*.json") for run in json.loads(path.read_text())["runs"]]
    assert held == [{"task": names[0], "method": "mcgs", "passed": False}]
