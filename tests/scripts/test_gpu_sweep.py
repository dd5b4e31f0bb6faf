"""scripts/gpu-sweep.sh: one process per setting of the sweep, all on the same train tasks,
spread over the GPUs, each running benchmarks/sweep_search.py instead of `bench run`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.sweep_search import settings, sweep_tasks

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gpu-sweep.sh"
CORPUS = ROOT / "benchmarks" / "corpus" / "manifest.toml"


def _start(tmp_path: Path, **env: str) -> tuple[list[list[str]], str]:
    """The arms the script hands scripts/gpu-model-arms.sh, and the runner it names."""
    shown = tmp_path / "show.sh"
    shown.write_text('printf "%s" "$ARMS"; echo "RUNNER $RUNNER NO_MODEL=${NO_MODEL:-}"\n')
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # this python3
    full = {**os.environ, "PATH": path, "ARMS_SCRIPT": str(shown), **env}
    done = subprocess.run(
        ["bash", str(SCRIPT), "start"], env=full, capture_output=True, text=True, check=True
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return [line.split() for line in lines[:-1]], lines[-1]


def test_every_setting_runs_once_on_the_same_train_tasks(tmp_path: Path) -> None:
    arms, runner = _start(tmp_path, GPUS="2")
    assert runner == "RUNNER python3 -m benchmarks.sweep_search run NO_MODEL=1"
    assert [arm[0] for arm in arms] == [f"sweep-{setting.name}" for setting in settings()]
    tasks = sweep_tasks(CORPUS, 12)
    for arm, setting in zip(arms, settings(), strict=True):
        assert arm[1] == "benchmarks/corpus/manifest.toml"
        assert [arm[i + 1] for i, word in enumerate(arm) if word == "--only"] == tasks
        assert " ".join(setting.options()) in " ".join(arm)
        assert "--no-model" in arm
    assert [arm[arm.index("--gpu") + 1] for arm in arms] == ["0", "1"] * 4


def test_the_model_may_take_part_and_the_count_may_change(tmp_path: Path) -> None:
    arms, runner = _start(tmp_path, GPUS="1", NO_MODEL="", COUNT="5")
    assert runner.endswith("NO_MODEL=")
    assert all("--no-model" not in arm and arm.count("--only") == 5 for arm in arms)
    assert {arm[arm.index("--gpu") + 1] for arm in arms} == {"0"}
