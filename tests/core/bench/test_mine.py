"""Mining: every maximal verified, faster chain becomes a trajectory the build reads back, each
task gets a record, a run resumes, and without a GPU the command says it cannot mine."""

from __future__ import annotations

import json
import os
import shutil
import signal
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from regrapht_core.bench import cli as bench_cli
from regrapht_core.bench.mine import (
    MINED,
    RECORDS,
    Mined,
    TaskMiner,
    _candidate_row,
    _done,
    _trajectories,
    confirmed_leaves,
    faster_leaves,
    write_mined,
)
from regrapht_core.bench.runner import SuiteTask
from regrapht_core.cli import EXIT_USER_ERROR, main
from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.proposal import Candidate
from regrapht_core.errors import ConfigError, ReGraphTError
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.graph.trajectories import load_trajectory, load_trajectory_dir
from regrapht_core.model.settings import ModelSettings
from regrapht_core.optimize.learning import verified_trajectory
from regrapht_core.optimize.session import JobSettings, Optimizer
from tests.conftest import gpu_present
from tests.core.optimize.test_job import TASK, outcome, verified
from tests.core.optimize.test_learning import NOT_RUN, step

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "benchmarks" / "corpus" / "manifest.toml"

TREE = [
    step(0, None, "parallelization", verified(3.0)),
    step(1, 0, "grid_stride_loop", verified(4.5)),
    step(2, 0, "vectorized_access", verified(5.0)),
    step(3, 2, "launch_configuration", verified(0.8)),  # slower than the reference
    step(4, None, "parallelization", NOT_RUN),
    step(5, 4, "read_only_cache", verified(2.0)),  # faster, but its parent was not run
]


def test_the_leaves_are_the_ends_of_the_maximal_faster_chains() -> None:
    assert [c.index for c in faster_leaves(TREE)] == [1, 2, 5]
    assert faster_leaves([step(0, None, "parallelization", verified(0.9))]) == []


def test_a_path_end_near_1x_is_mined_only_once_confirmed_and_gives_way_to_its_parent() -> None:
    """Ends of 2x or more are kept as measured; a close call is measured again; one that
    is not confirmed leaves, its parent becomes an end and is checked in turn; the job's
    answer was confirmed by the job and is not measured again."""
    tree = [
        step(0, None, "parallelization", verified(1.6)),
        step(1, 0, "read_only_cache", verified(1.4)),  # a close call, unconfirmed below
        step(2, None, "privatization", verified(1.3)),  # the job's answer
        step(3, None, "atomics", verified(30.0)),
    ]
    asked: list[int] = []
    again = {0: verified(1.5), 1: Evaluation(Status.UNCONFIRMED, "h", "not in every round")}

    def confirm(leaf: Candidate) -> Evaluation:
        asked.append(leaf.index)
        return again[leaf.index]

    trace = confirmed_leaves(tree, confirm, answer=2)
    assert asked == [1, 0]
    assert [c.index for c in faster_leaves(trace)] == [0, 2, 3]
    assert trace[0].result.speedup == 1.5 and trace[1].result.status is Status.UNCONFIRMED
    assert trace[3] is tree[3]
    slower = {0: verified(0.97), 1: verified(0.9)}
    trace = confirmed_leaves(tree, lambda leaf: slower[leaf.index], answer=2)
    assert [c.index for c in faster_leaves(trace)] == [2, 3]
    assert [t.steps[-1].speedup for t in _trajectories("t", outcome(tree, gpu=True), trace)] == [
        30.0,
        1.3,
    ]


def test_paths_are_named_for_the_corpus_task_and_come_fastest_first() -> None:
    found = _trajectories("elementwise_arith_scale_f32_ptr", outcome(TREE, gpu=True), TREE)
    assert TASK.name != "elementwise_arith_scale_f32_ptr"  # entry functions repeat in a corpus
    assert [t.task for t in found] == ["elementwise_arith_scale_f32_ptr"] * 2
    assert [t.steps[-1].speedup for t in found] == [5.0, 4.5]


def test_a_failed_program_keeps_the_verifiers_reason_in_its_row() -> None:
    objection = "kernel_only time 0.0100 ms is below the roofline bound 0.0238 ms " + "x" * 400
    implausible = Evaluation(Status.IMPLAUSIBLE, "h", feedback=objection)
    refused = Evaluation(Status.NO_CODE, "h", feedback="no rewriter for this loop")
    rows = [
        _candidate_row(step(k, None, "parallelization", result))
        for k, result in enumerate((implausible, refused, verified(3.0)))
    ]
    assert rows[0]["status"] == "implausible" and rows[0]["why"] == objection[:300]
    assert rows[1]["why"] is None and rows[2]["why"] is None
    assert rows[2]["verified"] and rows[2]["speedup"] == pytest.approx(3.0)
    # Both medians of a timed program: which side moved, when a speedup does.
    assert rows[2]["reference_ms"] == pytest.approx(30.0) and rows[2]["candidate_ms"] == 10.0
    assert rows[0]["reference_ms"] is None and rows[0]["candidate_ms"] is None


def test_each_record_names_the_command_that_mined_it_outside_the_resume_settings() -> None:
    def unsearchable(*_args: object, **_kwargs: object) -> None:
        raise ReGraphTError("does not extract")

    lock = SimpleNamespace(waited_s=0.0, held_s=0.0)
    optimizer = SimpleNamespace(verifier=SimpleNamespace(gpu_lock=lock), run=unsearchable)
    command = "regrapht graph mine m.toml --out o --limit 3"
    miner = TaskMiner(optimizer, {"device": "H100", "budget": 4}, command)  # type: ignore[arg-type]
    source = CORPUS.parent / "elementwise_arith" / "elementwise_arith_axpby_f32_ptr.cpp"
    record = miner(SuiteTask("t", source, "axpby_map", "maps")).record
    assert record["command"] == command and record["failure"].endswith("does not extract")
    assert "command" not in miner.settings  # another --limit still resumes the run
    # When, where and on which GPU: how busy a run kept its workers is read from these.
    assert record["worker"] == os.getpid() and "seconds" in record
    assert record["gpu"] == os.environ.get("CUDA_VISIBLE_DEVICES")
    assert datetime.fromisoformat(record["started"]).tzinfo is not None


def test_a_runs_summary_says_how_busy_its_workers_were_kept() -> None:
    def ran(name: str, worker: int, seconds: float) -> Mined:
        row = {"verified": True}
        record = {"task": name, "worker": worker, "seconds": seconds, "candidates": [row]}
        return Mined(name, (), record)

    results = [ran("a", 1, 4.0), ran("b", 1, 6.0), ran("c", 2, 5.0)]
    began = datetime.now(UTC)
    summary = bench_cli._run_summary(results, began, 10.0, {"workers": 2, "gpus": 1})
    assert summary["workers_seen"] == 2 and summary["worker_busy"] == pytest.approx(0.75)
    assert summary["verified_per_minute"] == pytest.approx(18.0)


def mined(candidates: list[Candidate]) -> Mined:
    leaves = [
        t
        for leaf in faster_leaves(candidates)
        if (t := verified_trajectory("smooth", "void smooth();", leaf, candidates)) is not None
    ]
    return Mined("smooth", tuple(leaves), {"task": "smooth", "device": "H100", "budget": 8})


def test_each_path_is_written_as_a_trajectory_file_the_build_reads(tmp_path: Path) -> None:
    result = mined(TREE)  # leaf 5's chain has an unverified step: no trajectory
    assert len(result.trajectories) == 2
    write_mined(result, tmp_path)
    files = sorted(p.name for p in (tmp_path / MINED).glob("*.json"))
    assert files == ["smooth.json", "smooth.path2.json"]
    loaded = dict(load_trajectory_dir(tmp_path / MINED))
    again = load_trajectory(tmp_path / MINED / "smooth.path2.json")
    assert again.task == "smooth.path2" and [s.speedup for s in again.steps] == [3.0, 5.0]
    assert {t.source for t in loaded.values()} == {"void smooth();"}
    record = json.loads((tmp_path / RECORDS / "smooth.json").read_text())
    assert record == {"task": "smooth", "device": "H100", "budget": 8}


def test_a_task_recorded_with_the_same_settings_is_not_mined_again(tmp_path: Path) -> None:
    write_mined(mined(TREE), tmp_path)
    assert _done(tmp_path, "smooth", {"device": "H100", "budget": 8})
    assert not _done(tmp_path, "smooth", {"device": "H100", "budget": 16})
    assert not _done(tmp_path, "other", {"device": "H100", "budget": 8})
    (tmp_path / RECORDS / "smooth.json").write_text("{ cut off")
    assert not _done(tmp_path, "smooth", {"device": "H100", "budget": 8})


def test_a_run_with_the_default_model_is_not_taken_for_one_without(tmp_path: Path) -> None:
    """The embedded default's unset name read as no model: a resumed run with the model
    would have skipped the tasks a rewriters-only run had left unanswered. A miner records
    the model its optimizer resolved (``task_miner``, on a GPU only)."""

    def model_named(model: ModelSettings | None, env: dict[str, str]) -> str | None:
        return Optimizer(JobSettings(model=model), env=env).model_named

    assert model_named(None, {}) is None
    default = model_named(ModelSettings(), {})
    assert default and default == model_named(ModelSettings(model=default), {})
    assert model_named(ModelSettings(), {"REGRAPHT_MODEL": "/m/x.gguf"}) == "/m/x.gguf"
    write_mined(mined(TREE), tmp_path)
    without = {"device": "H100", "budget": 8, "model": None}
    (tmp_path / RECORDS / "smooth.json").write_text(
        json.dumps(json.loads((tmp_path / RECORDS / "smooth.json").read_text()) | without)
    )
    assert _done(tmp_path, "smooth", without)
    assert not _done(tmp_path, "smooth", without | {"model": default})


@pytest.mark.skipif(gpu_present(), reason="checks the refusal where there is no GPU")
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (the check comes after it)")
def test_without_a_gpu_the_command_refuses_to_mine(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["graph", "mine", str(CORPUS), "--out", str(tmp_path), "--split", "train", "--no-model"],
    )
    assert result.exit_code == EXIT_USER_ERROR
    assert "mining keeps only what verified on a GPU" in result.stderr
    assert not (tmp_path / MINED).exists()


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--split", "dev", "no task has split = 'dev'"),
        ("--only", "no_such_task.path2", "no task named 'no_such_task.path2'"),
    ],
    ids=["unknown split", "unknown task name"],
)
def test_a_selection_the_manifest_lacks_is_named_not_skipped(
    tmp_path: Path, flag: str, value: str, said: str
) -> None:
    result = CliRunner().invoke(
        main, ["graph", "mine", str(CORPUS), "--out", str(tmp_path), flag, value]
    )
    assert result.exit_code == EXIT_USER_ERROR
    assert said in result.stderr


@pytest.mark.gpu
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_on_the_gpu_two_tasks_are_mined_and_built_into_a_snapshot(tmp_path: Path) -> None:
    out = tmp_path / "mined"
    args = ["graph", "mine", str(CORPUS), "--out", str(out), "--split", "train"]
    args += ["--only", "transcendental_gauss_f32_ptr", "--only", "elementwise_arith_axpby_f32_ptr"]
    args += ["--timing", "kernel_only", "--no-model", "--budget", "4"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.stderr
    records = [json.loads(p.read_text()) for p in (out / RECORDS).glob("*.json")]
    assert len(records) == 2 and all(r["device"] and r["timing"] == "kernel_only" for r in records)
    assert all(r["trajectories"] >= 1 for r in records)  # a copy-bound map too, by its kernel
    assert all(r["model"] is None for r in records)  # --no-model: a miner names no model
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and again.stderr.count("already mined") == 2
    snapshot = tmp_path / "mined.msgpack"
    built = CliRunner().invoke(
        main, ["graph", "build", "--trajectories", str(out / MINED), "--out", str(snapshot)]
    )
    assert built.exit_code == 0, built.stderr
    assert load_snapshot(snapshot).graph.example_count >= 1


class _StoppedMiner:
    """Mines two corpus tasks, then gets SIGTERM as a scheduler's stop would send it."""

    def __init__(self) -> None:
        self.settings = {"device": "H100", "budget": 4}
        self.calls = 0

    def __call__(self, suite_task: SuiteTask) -> Mined:
        self.calls += 1
        if self.calls == 3:
            os.kill(os.getpid(), signal.SIGTERM)
        row = {"verified": True}
        record = {"task": suite_task.name, **self.settings, "candidates": [row, row]}
        return Mined(suite_task.name, (), record)


def test_a_run_stopped_by_sigterm_still_writes_its_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_cli, "require_nvcc", lambda _job: None)
    monkeypatch.setattr(bench_cli, "task_miner", lambda *_args: _StoppedMiner())
    before = signal.getsignal(signal.SIGTERM)
    result = CliRunner().invoke(
        main, ["graph", "mine", str(CORPUS), "--out", str(tmp_path), "--split", "train"]
    )
    assert result.exit_code != 0  # stopped, as Ctrl-C stops it
    assert signal.getsignal(signal.SIGTERM) == before
    assert len(list((tmp_path / RECORDS).glob("*.json"))) == 2
    (summary,) = [json.loads(p.read_text()) for p in (tmp_path / "runs").glob("*.json")]
    assert summary["tasks_mined"] == 2 and summary["verified_candidates"] == 4
    assert summary["workers"] == summary["gpus"] == 1


def test_a_refused_run_writes_no_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_cli, "require_nvcc", lambda _job: None)

    def no_gpu(*_args: object) -> None:
        raise ConfigError("mining keeps only what verified on a GPU, and there is none here")

    monkeypatch.setattr(bench_cli, "task_miner", no_gpu)
    result = CliRunner().invoke(main, ["graph", "mine", str(CORPUS), "--out", str(tmp_path)])
    assert result.exit_code == EXIT_USER_ERROR
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(("flags", "limit"), [([], 900.0), (["--time-limit", "120"], 120.0)])
def test_each_mined_task_has_a_time_limit_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str], limit: float
) -> None:
    """Unattended, a task whose GPU never comes free must still end: waits for the GPU
    end at the job's deadline."""
    monkeypatch.setattr(bench_cli, "require_nvcc", lambda _job: None)
    seen: list[float | None] = []

    def record_limit(job: JobSettings, *_args: object) -> None:
        seen.append(job.search.time_limit_s)
        raise ConfigError("stop here")

    monkeypatch.setattr(bench_cli, "task_miner", record_limit)
    args = ["graph", "mine", str(CORPUS), "--out", str(tmp_path), *flags]
    assert CliRunner().invoke(main, args).exit_code == EXIT_USER_ERROR
    assert seen == [limit]


def test_explore_reaches_the_miners_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_cli, "require_nvcc", lambda _job: None)
    seen: list[bool] = []

    def record_explore(job: JobSettings, *_args: object) -> None:
        seen.append(job.explore)
        raise ConfigError("stop here")

    monkeypatch.setattr(bench_cli, "task_miner", record_explore)
    for flags in ([], ["--explore"]):
        args = ["graph", "mine", str(CORPUS), "--out", str(tmp_path), *flags]
        assert CliRunner().invoke(main, args).exit_code == EXIT_USER_ERROR
    assert seen == [False, True]


@pytest.mark.gpu
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_on_the_gpu_an_explored_search_verifies_steps_off_the_graphs_edges(
    tmp_path: Path,
) -> None:
    """Against the seed graph: the shipped one has since taken in the explored edges
    (graph_snapshots/explored), so a search of it may find none left to explore."""
    seed, out = tmp_path / "seed.msgpack", tmp_path / "explored"
    build = ["graph", "build", "--trajectories", str(ROOT / "graph_snapshots" / "trajectories")]
    assert CliRunner().invoke(main, [*build, "--out", str(seed)]).exit_code == 0
    args = ["graph", "mine", str(CORPUS), "--out", str(out), "--split", "train", "--explore"]
    args += ["--only", "elementwise_arith_axpby_f32_ptr", "--timing", "kernel_only"]
    args += ["--no-model", "--budget", "16", "--time-limit", "120", "--snapshot", str(seed)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.stderr
    (record,) = [json.loads(p.read_text()) for p in (out / RECORDS).glob("*.json")]
    assert record["explore"] is True
    graph = Optimizer(JobSettings(model=None, snapshot=seed)).graph
    rows = {row["index"]: row for row in record["candidates"]}
    off = [
        row
        for row in rows.values()
        if row["verified"]
        and row["parent"] is not None
        and not graph.has_edge(rows[row["parent"]]["technique"], row["technique"])
    ]
    assert off, "no verified step off the graph's edges"
