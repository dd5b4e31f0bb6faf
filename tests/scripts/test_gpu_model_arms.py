"""scripts/gpu-model-arms.sh, the GPU machine's runner of detached benchmark processes, with
stand-ins for what needs the GPU machine (its installs, nvidia-smi, the lock sampler) and
for the benchmark itself: a lease runs one set of arms after another (the sweep after the
five methods), never two at once, and keeps one pair of monitors for all of them."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from regrapht_core.bench.cli import _selected, bench

ROOT = Path(__file__).resolve().parents[2]

_SLEEPER = "#!/bin/sh\nexec sleep 60\n"
_RUNNER = """#!/bin/sh
# A benchmark that ends once the test lets it: it writes its --json then.
echo "ran in $(pwd) with PYTHONPATH=$PYTHONPATH"
while [ ! -f "$RELEASE" ]; do sleep 0.1; done
while [ $# -gt 0 ]; do [ "$1" = --json ] && echo '{"runs": []}' >"$2"; shift; done
"""


@pytest.fixture
def lease(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A working tree with the script and stand-ins, and the environment to run it in."""
    tree, bin_ = tmp_path / "tree", tmp_path / "bin"
    (tree / "scripts").mkdir(parents=True)
    bin_.mkdir()
    shutil.copy(ROOT / "scripts" / "gpu-model-arms.sh", tree / "scripts")
    for sourced in ("gpu-env.sh", "gpu-stage-model.sh"):
        (tree / "scripts" / sourced).write_text("")
    (tree / "scripts" / "gpu_lock_busy.py").write_text("import time\ntime.sleep(60)\n")
    for name, text in (("nvidia-smi", _SLEEPER), ("bench", _RUNNER)):
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    (tmp_path / "out").mkdir()
    env = {
        **os.environ,
        "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}",
        "BENCH": str(tmp_path / "bench"),
        "OUT": str(tmp_path / "out"),
        "RELEASE": str(tmp_path / "release"),
        "RUNNER": str(bin_ / "bench"),
        "NO_MODEL": "1",
        "WAIT_S": "30",
        "POLL_S": "0.1",
        "TREE": str(tree),
    }
    yield env
    Path(env["RELEASE"]).touch()  # stand-ins still waiting end by themselves
    for pids in ("pids", "monitors"):
        listed = tmp_path / "bench" / pids
        for pid in listed.read_text().split() if listed.exists() else []:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(pid), signal.SIGKILL)


def _arms(env: dict[str, str], command: str, arms: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "scripts/gpu-model-arms.sh", command],
        check=False,
        cwd=env["TREE"],
        env={**env, "ARMS": arms},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_one_set_of_arms_after_another_with_one_pair_of_monitors(
    lease: dict[str, str],
) -> None:
    bench, release = Path(lease["BENCH"]), Path(lease["RELEASE"])
    assert (
        _arms(lease, "start", "five-1 suite.toml --only a\nfive-2 suite.toml --only b").returncode
        == 0
    )
    monitors = (bench / "monitors").read_text()
    assert len(monitors.split()) == 2
    refused = _arms(lease, "start", "sweep-default corpus.toml")
    assert refused.returncode == 1 and "still running" in refused.stdout
    release.touch()
    assert _arms(lease, "wait", "").stdout.strip().endswith("arms done")
    release.unlink()
    assert _arms(lease, "start", "sweep-default corpus.toml --only c").returncode == 0
    assert (bench / "monitors").read_text() == monitors, "the monitors span the lease"
    release.touch()
    waited = _arms(lease, "wait", "")
    assert waited.stdout.strip().endswith("arms done")
    assert [line.split(":")[0] for line in waited.stdout.splitlines()[:-1]] == [
        "five-1",
        "five-2",
        "sweep-default",
    ]
    with tarfile.open(Path(lease["OUT"]) / "arms.tgz") as archive:
        names = {Path(name).name for name in archive.getnames()}
    assert {"five-1.json", "five-2.json", "sweep-default.json"} <= names


def test_the_arms_run_from_a_copy_of_the_tree_the_next_call_cannot_touch(
    lease: dict[str, str],
) -> None:
    """The device tool copies the working tree afresh at each call: an arm reading it
    from an earlier call found its task files briefly gone, so arms run from a copy."""
    tree, bench = Path(lease["TREE"]), Path(lease["BENCH"])
    (tree / "task.cpp").write_text("int main() {}\n")
    env = {**lease, "PYTHONPATH": f"/tmp/site:{tree}:{tree}/server"}
    assert _arms(env, "start", "one suite.toml").returncode == 0
    (tree / "task.cpp").unlink()
    Path(lease["RELEASE"]).touch()
    assert _arms(lease, "wait", "").stdout.strip().endswith("arms done")
    ran = (bench / "one.log").read_text().split()
    copy = Path(ran[2])
    assert copy.parent == bench and copy != tree
    assert (copy / "task.cpp").read_text() == "int main() {}\n"
    assert ran[4] == f"PYTHONPATH=/tmp/site:{copy}:{copy}/server"


@pytest.mark.parametrize("arms", sorted((ROOT / "scripts" / "arms").glob("*.txt")), ids=str)
def test_every_arms_file_is_a_bench_run_the_command_accepts(arms: Path) -> None:
    """An arm the command refuses (a misspelt option, task or split) wastes a lease: each
    line must parse as `regrapht bench run` arguments and name tasks its manifest has."""
    lines = [line for line in arms.read_text().splitlines() if line and not line.startswith("#")]
    assert lines
    names = []
    for line in lines:
        name, *args = line.replace("$SUITE", "benchmarks/tasks/manifest.toml").split()
        names.append(name)
        args = [arg for arg in args if arg != "$SUBSET"]
        with contextlib.chdir(ROOT):
            context = bench.commands["run"].make_context("run", [*args, "--json", "x.json"])
            tasks = _selected(
                context.params["manifest"], context.params["split"], context.params["only"]
            )
        assert tasks, f"{name}: no task"
    assert len(set(names)) == len(names), "each arm writes its own file"
