"""Mining spread over GPUs with Ray: one worker per GPU, or several sharing one.

A task's search is independent of every other task's, so the corpus splits into tasks
handed out one at a time to whichever worker is free: tasks range from under a second
(no rewriter applies) to four minutes, median 51 s (the ``seconds`` of the records in
graph_snapshots/mined), so a fixed split would leave GPUs idle. Each worker is a Ray
actor holding one GPU, or a share of one (``workers_per_gpu``): about half of a serial
search's time is spent off the GPU (nvcc, host work; the lock was held 52% of a serial
mining run on the H100, benchmarks/results/gpu-h100-mine-ray.json), so several workers
keep one GPU busier (85-88% with four), while the verifier's GPU lock
(``verify.gpu_lock``) still lets only one candidate at a time run on it, so no timing
carries another worker's kernels. Workers return their results; only this process
writes files, so the output folder need not be shared between the cluster's hosts, and
resuming works as for ``bench.mine.mine``.

Ray is an optional dependency (``pip install 'regrapht[mine]'``), imported only here.
"""

from __future__ import annotations

import importlib
import os
import signal
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from regrapht_core.bench.mine import Mined, pending, write_mined
from regrapht_core.bench.runner import SuiteTask
from regrapht_core.errors import ConfigError, ReGraphTError

__all__ = ["Cluster", "Miner", "build_workers", "mine_on_ray"]


class Miner(Protocol):
    """What a worker runs: ``bench.mine.TaskMiner`` on the real GPU, a fake in tests."""

    @property
    def settings(self) -> Mapping[str, Any]: ...

    def __call__(self, suite_task: SuiteTask) -> Mined: ...


@dataclass(frozen=True, slots=True)
class Cluster:
    """Where the workers run: ``address`` of a running Ray cluster (``None``: start one
    on this machine, with its GPUs), and how many workers share each GPU."""

    address: str | None = None
    workers_per_gpu: int = 1

    def __post_init__(self) -> None:
        if self.workers_per_gpu < 1:
            raise ConfigError(f"--workers-per-gpu must be at least 1, not {self.workers_per_gpu}")


class _Worker:
    """The actor: builds its miner on its own GPU (Ray sets ``CUDA_VISIBLE_DEVICES``)."""

    def __init__(self, make_miner: Callable[[int], Miner], compile_threads: int) -> None:
        self._miner = make_miner(compile_threads)

    def settings(self) -> dict[str, Any]:
        return dict(self._miner.settings)

    def mine(self, suite_task: SuiteTask) -> Mined:
        return self._miner(suite_task)


def build_workers(workers: int, cpus: int | None = None) -> int:
    """Compile threads per worker so that all workers of a host together leave two cores
    free, as one verifier alone does (``verify.pool``)."""
    return max(1, ((cpus or os.cpu_count() or 1) - 2) // max(workers, 1))


def mine_on_ray(
    tasks: Sequence[SuiteTask],
    out: Path,
    *,
    make_miner: Callable[[int], Miner],
    cluster: Cluster = Cluster(),
    on_start: Callable[[int, int], None] = lambda _workers, _gpus: None,
    on_done: Callable[[Mined | None, SuiteTask], None] = lambda _mined, _task: None,
) -> list[Mined]:
    """Mine ``tasks`` on every GPU of the Ray cluster, writing each task's files under
    ``out`` as its result arrives. ``make_miner(compile_threads)`` runs inside each worker
    (it must pickle), given its share of this host's cores (``build_workers``);
    ``on_start`` gets the worker and GPU counts once the workers are up. A worker that
    dies takes only its task in progress with it (recorded as failed); the others go on.
    """
    try:
        # Untyped in the parts used here: held as Any rather than silenced line by line.
        ray: Any = importlib.import_module("ray")
    except ImportError:
        raise ConfigError(
            "mining on several GPUs needs Ray: pip install 'regrapht[mine]'"
        ) from None
    started = not ray.is_initialized()
    if started:
        # ray.init takes SIGTERM over for good; the caller's handler (the CLI's: stop the
        # workers, write the run's summary) is put back, or a `timeout` that stops a run
        # leaves it without its summary, as one did on the H200s.
        caller = signal.getsignal(signal.SIGTERM)
        ray.init(
            address=cluster.address,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
        if caller is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, caller)
    workers: list[Any] = []
    try:
        gpus = int(ray.cluster_resources().get("GPU", 0))
        if gpus < 1:
            where = cluster.address or "this machine"
            raise ConfigError(f"mining keeps only what verified on a GPU: Ray sees none on {where}")
        share = 1.0 / cluster.workers_per_gpu
        actor = ray.remote(num_gpus=share, num_cpus=0)(_Worker)
        count = gpus * cluster.workers_per_gpu
        threads = build_workers(count)
        workers += [actor.remote(make_miner, threads) for _ in range(count)]
        try:
            settings = ray.get(workers[0].settings.remote())
        except ray.exceptions.RayError as err:
            raise ConfigError(f"a mining worker could not start: {_last_line(err)}") from None
        on_start(len(workers), gpus)
        todo, done = pending(tasks, out, settings)
        for suite_task in done:
            on_done(None, suite_task)
        return _drain(ray, workers, todo, out, on_done)
    finally:
        # Ended now, not whenever their handles are collected: on a cluster that outlives
        # this call, the next run's workers need their GPU shares at once.
        for worker in workers:
            ray.kill(worker)
        if started:
            ray.shutdown()


def _drain(
    ray: Any,
    workers: list[Any],
    todo: list[SuiteTask],
    out: Path,
    on_done: Callable[[Mined | None, SuiteTask], None],
) -> list[Mined]:
    """Keep every live worker busy with one task until none is left."""
    queue = list(reversed(todo))
    running: dict[Any, tuple[Any, SuiteTask]] = {}
    idle = list(workers)
    results = []
    while queue or running:
        while idle and queue:
            worker, suite_task = idle.pop(), queue.pop()
            running[worker.mine.remote(suite_task)] = (worker, suite_task)
        if not running:
            raise ReGraphTError("every mining worker died; the tasks left were not mined")
        (ready,), _ = ray.wait(list(running), num_returns=1)
        worker, suite_task = running.pop(ready)
        try:
            mined = ray.get(ready)
            idle.append(worker)
        except ray.exceptions.RayActorError as err:
            mined = _failed(suite_task, f"the worker died: {_last_line(err)}")
        except ray.exceptions.RayTaskError as err:
            mined = _failed(suite_task, f"the worker failed: {_last_line(err)}")
            idle.append(worker)
        write_mined(mined, out)
        results.append(mined)
        on_done(mined, suite_task)
    return results


def _failed(suite_task: SuiteTask, why: str) -> Mined:
    """A task lost to its worker: recorded without settings, so a resumed run mines it."""
    record = {"task": suite_task.name, "family": suite_task.family, "failure": why}
    return Mined(suite_task.name, (), record)


def _last_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[-1] if text else type(err).__name__
