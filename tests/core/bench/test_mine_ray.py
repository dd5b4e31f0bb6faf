"""Mining on Ray: N simulated GPUs each get a worker (or several), every task is mined
exactly once and written by the driver, a failing or dying worker loses only its task, a
run resumes; and on the real GPU, `graph mine --ray` mines with one worker."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from regrapht_core.bench.mine import MINED, RECORDS, Mined
from regrapht_core.bench.mine_ray import Cluster, build_workers, mine_on_ray
from regrapht_core.bench.runner import SuiteTask
from regrapht_core.cli import EXIT_USER_ERROR, main
from regrapht_core.errors import ConfigError
from tests.conftest import gpu_present
from tests.core.bench.test_mine import CORPUS

ray = pytest.importorskip("ray")

SETTINGS = {"device": "simulated GPU", "budget": 4, "commit": "test"}


class FakeMiner:
    """Stands in for ``TaskMiner`` inside a Ray worker: it records which GPU Ray gave it,
    and fails or dies on the tasks named for that."""

    def __init__(self, compile_threads: int) -> None:
        self.compile_threads = compile_threads
        self.settings = SETTINGS

    def __call__(self, suite_task: SuiteTask) -> Mined:
        if suite_task.name == "raises":
            raise RuntimeError("a bug in the search")
        if suite_task.name == "dies":
            os._exit(3)
        record: dict[str, Any] = {
            "task": suite_task.name,
            **self.settings,
            "failure": None,
            "gpu": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "pid": os.getpid(),
            "compile_threads": self.compile_threads,
            "candidates": [{"verified": True}, {"verified": False}],
        }
        return Mined(suite_task.name, (), record)


def tasks(*names: str) -> list[SuiteTask]:
    return [SuiteTask(name, Path(f"{name}.cpp"), name, "family") for name in names]


@pytest.fixture(scope="module")
def four_gpus() -> Iterator[None]:
    """A local Ray cluster that claims four GPUs (none needs to exist): Ray hands each
    worker its GPU ids in ``CUDA_VISIBLE_DEVICES`` as it would on a real machine."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(
        num_cpus=2,
        num_gpus=4,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}},
    )
    try:
        yield
    finally:
        ray.shutdown()


def records(out: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in (out / RECORDS).glob("*.json")}


@pytest.mark.slow
def test_starting_ray_leaves_the_callers_sigterm_handler_in_place(tmp_path: Path) -> None:
    """ray.init takes SIGTERM over; the CLI's handler (stop, write the run's summary) must
    survive it. First in this module, so Ray is not running yet and the call starts it."""
    assert not ray.is_initialized()
    calls: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        calls.append(signum)

    before = signal.signal(signal.SIGTERM, handler)
    try:
        with contextlib.suppress(ConfigError):  # no GPU for Ray here: refused after init
            mine_on_ray(tasks("t00"), tmp_path, make_miner=FakeMiner)
        assert signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, before)


def test_each_simulated_gpu_gets_a_worker_and_every_task_is_mined_once(
    four_gpus: None, tmp_path: Path
) -> None:
    names = [f"t{k:02d}" for k in range(12)]
    placed: list[tuple[int, int]] = []
    seen: list[str] = []
    results = mine_on_ray(
        tasks(*names),
        tmp_path,
        make_miner=FakeMiner,
        on_start=lambda workers, gpus: placed.append((workers, gpus)),
        on_done=lambda mined, task: seen.append(task.name),
    )
    assert placed == [(4, 4)]
    assert sorted(m.task for m in results) == sorted(seen) == names
    found = records(tmp_path)
    assert sorted(found) == names
    # Four workers, one per GPU: four processes, each on its own GPU id.
    by_pid = {r["pid"]: r["gpu"] for r in found.values()}
    assert sorted(set(by_pid.values())) <= ["0", "1", "2", "3"]
    assert len(set(by_pid.values())) == len(by_pid)
    assert {r["compile_threads"] for r in found.values()} == {build_workers(4)}


@pytest.mark.slow
def test_workers_sharing_a_gpu_share_its_id_and_the_hosts_cores(
    four_gpus: None, tmp_path: Path
) -> None:
    names = [f"t{k:02d}" for k in range(24)]
    placed: list[tuple[int, int]] = []
    mine_on_ray(
        tasks(*names),
        tmp_path,
        make_miner=FakeMiner,
        cluster=Cluster(workers_per_gpu=2),
        on_start=lambda workers, gpus: placed.append((workers, gpus)),
    )
    assert placed == [(8, 4)]
    found = records(tmp_path)
    assert sorted(found) == names
    pids_per_gpu: dict[str, set[int]] = {}
    for record in found.values():
        pids_per_gpu.setdefault(record["gpu"], set()).add(record["pid"])
    assert all(len(pids) <= 2 for pids in pids_per_gpu.values())
    assert {r["compile_threads"] for r in found.values()} == {build_workers(8)}


@pytest.mark.slow
def test_a_failing_or_dying_worker_loses_only_its_task_and_a_rerun_mines_it(
    four_gpus: None, tmp_path: Path
) -> None:
    names = ["a", "raises", "b", "dies", "c", "d"]
    results = mine_on_ray(tasks(*names), tmp_path, make_miner=FakeMiner)
    assert sorted(m.task for m in results) == sorted(names)
    found = records(tmp_path)
    assert "a bug in the search" in found["raises"]["failure"]
    assert found["dies"]["failure"].startswith("the worker died")
    assert all(found[name]["failure"] is None for name in ("a", "b", "c", "d"))
    # The lost tasks carry no settings, so a resumed run mines them again and only them.
    skipped: list[str] = []
    again = mine_on_ray(
        tasks(*names),
        tmp_path,
        make_miner=FakeMiner,
        on_done=lambda mined, task: skipped.append(task.name) if mined is None else None,
    )
    assert sorted(m.task for m in again) == ["dies", "raises"]
    assert sorted(skipped) == ["a", "b", "c", "d"]


def test_compile_threads_leave_two_cores_free() -> None:
    assert build_workers(1, cpus=16) == 14
    assert build_workers(4, cpus=16) == 3
    assert build_workers(8, cpus=16) == 1
    assert build_workers(4, cpus=2) == 1


def test_a_worker_count_below_one_is_refused() -> None:
    with pytest.raises(ConfigError, match="at least 1"):
        Cluster(workers_per_gpu=0)


def test_workers_per_gpu_needs_ray(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["graph", "mine", str(CORPUS), "--out", str(tmp_path), "--workers-per-gpu", "2"],
    )
    assert result.exit_code == EXIT_USER_ERROR
    assert "--workers-per-gpu needs --ray" in result.stderr


@pytest.mark.gpu
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_on_the_gpu_graph_mine_runs_under_ray(tmp_path: Path) -> None:
    """The real thing: a local Ray cluster on this machine's GPU, two workers sharing it
    (so the GPU lock is what keeps their timings apart), two corpus tasks."""
    assert gpu_present()
    out = tmp_path / "mined"
    args = ["graph", "mine", str(CORPUS), "--out", str(out), "--split", "train", "--ray"]
    args += ["--workers-per-gpu", "2", "--timing", "kernel_only", "--no-model", "--budget", "4"]
    args += ["--only", "transcendental_gauss_f32_ptr", "--only", "elementwise_arith_axpby_f32_ptr"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.stderr
    assert "Ray: 2 worker(s) on 1 GPU(s)" in result.stderr
    found = records(out)
    assert len(found) == 2
    assert all(r["failure"] is None and r["device"] for r in found.values())
    assert all(r["trajectories"] >= 1 for r in found.values())
    assert len(list((out / MINED).glob("*.json"))) >= 2
    (summary,) = [json.loads(p.read_text()) for p in (out / "runs").glob("*.json")]
    assert summary["workers"] == 2 and summary["gpus"] == 1 and summary["tasks_mined"] == 2
    assert summary["verified_candidates"] >= 2
