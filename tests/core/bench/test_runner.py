"""The suite runner with the real rewriters and nvcc (no GPU here: compile-level results)."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from click.testing import CliRunner

from regrapht_core.bench import fingerprint
from regrapht_core.bench.runner import (
    SuiteTask,
    _record,
    _run_one,
    engine_fingerprint,
    load_manifest,
    merge_arms,
    merge_results,
    run_suite,
    shard,
    summarise,
)
from regrapht_core.cli import EXIT_USER_ERROR, main
from regrapht_core.contracts.deadline import NO_DEADLINE
from regrapht_core.contracts.evaluation import Evaluation, Status, Timing
from regrapht_core.contracts.task import TimingMode
from regrapht_core.errors import ConfigError
from regrapht_core.graph.paths import shipped_snapshot
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.model.embedded import DEFAULT_EMBEDDED
from regrapht_core.model.settings import ModelSettings
from regrapht_core.optimize.job import OptimizeOutcome
from regrapht_core.optimize.session import JobSettings, Optimizer
from regrapht_core.verify.gpu_lock import GpuLock
from tests.conftest import gpu_present
from tests.core.optimize.test_cli import EXAMPLE
from tests.core.optimize.test_job import candidate, outcome, verified

SEED_TRAJECTORIES = Path(__file__).parents[3] / "graph_snapshots" / "trajectories"


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
    assert document["config"]["timing"] == "task"
    shipped = load_snapshot(shipped_snapshot()).build
    assert document["config"]["graph"] == {
        "trajectories": shipped.trajectories,
        "source_digest": shipped.source_digest,
    }
    assert "model_runs_on" not in document  # no model took part
    runs = {(r["task"], r["method"]): r for r in document["runs"]}
    assert len(runs) == 6
    smooth = runs["smooth", "mcgs"]
    assert not smooth["passed"] and smooth["statuses"].get("not_run", 0) >= 1
    assert smooth["producers"][0] == "rewriter:parallelization"
    assert "prompts a model" in runs["smooth", "plain"]["failure"]
    assert "gone.cpp" in runs["missing", "walks"]["failure"]
    assert document["summary"]["mcgs"] == {
        "tasks": 2, "compiled": 1, "copy_bound": 0, "passed": 0, "pass_at_1": 0.0,
        "geomean_speedup_passed": None, "median_speedup_passed": None,
        "geomean_speedup_all": 1.0, "techniques_passed": [],
    }  # fmt: skip
    assert smooth["copy_floor_ms"] is None, "nothing was timed without a GPU"
    assert smooth["gpu_s"] == {"waited": 0.0, "held": 0.0}, "no GPU: no turn taken"
    assert smooth["code"] is None and smooth["kernel_ms"] is None, "compiled only: no answer"
    assert runs["missing", "walks"]["code"] is None


@pytest.mark.skipif(gpu_present(), reason="the compile-level path needs no GPU")
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc (the run compiles)")
def test_a_split_runs_only_its_tasks_and_an_unknown_one_is_named(tmp_path: Path) -> None:
    """A generated corpus puts each task on a split; a graph comparison runs the test split."""
    shutil.copy(EXAMPLE, tmp_path / "smooth.cpp")
    manifest = tmp_path / "manifest.toml"
    entry = '[[task]]\nname = "{}"\nfile = "smooth.cpp"\nfunction = "smooth"\nsplit = "{}"\n'
    manifest.write_text(entry.format("seen", "train") + entry.format("held_out", "test"))
    out = tmp_path / "test.json"
    args = ["bench", str(manifest), "--no-model", "--budget", "1", "--json", str(out)]
    result = CliRunner().invoke(main, [*args, "--split", "test"])
    assert result.exit_code == 0, result.stderr
    assert [r["task"] for r in json.loads(out.read_text())["runs"]] == ["held_out"]
    result = CliRunner().invoke(main, [*args, "--split", "dev"])
    assert result.exit_code == EXIT_USER_ERROR
    assert "no task has split = 'dev'" in result.stderr


@pytest.mark.skipif(gpu_present(), reason="the compile-level path needs no GPU")
def test_a_result_with_the_model_says_where_it_answered(manifest: Path, tmp_path: Path) -> None:
    """Model time depends on where the model answered (CPU or GPU): a result says where."""
    pytest.importorskip("xllamacpp")
    out = tmp_path / "suite.json"
    result = CliRunner().invoke(
        main,
        ["bench", str(manifest), "--only", "smooth", "--no-rewriters", "--budget", "1",
         "--time-limit", "5", "--json", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert document["model_runs_on"] == "CPU"  # PyPI's xllamacpp wheel
    assert document["config"]["rewriters"] is False


def test_a_run_records_its_answers_code_and_kernel_time() -> None:
    """``benchmarks/vs_library.py`` compiles the answer itself and sets its kernel-only time
    beside the libraries': both come from the answer, not from the best slower candidate."""
    kernels = Timing(TimingMode.KERNEL_ONLY, 4.0, 0.5, 0.01, 0.01, 20)
    faster = verified(3.0)
    faster = replace(faster, timings=(faster.timing, kernels) if faster.timing else ())
    suite_task = SuiteTask("scale", Path("scale.cpp"), "scale", "elementwise")
    record = _record(suite_task, "mcgs", outcome([candidate(0, faster)], gpu=True))
    assert record["passed"] and record["code"] == "// code 0" and record["kernel_ms"] == 0.5

    end_to_end_only = _record(suite_task, "mcgs", outcome([candidate(1, verified(2.0))], gpu=True))
    assert end_to_end_only["code"] == "// code 1" and end_to_end_only["kernel_ms"] is None

    slower = _record(suite_task, "mcgs", outcome([candidate(2, verified(0.5))], gpu=True))
    assert not slower["passed"] and slower["code"] is None and slower["kernel_ms"] is None


def test_a_run_records_the_gpu_turns_it_waited_for_and_held(manifest: Path, tmp_path: Path) -> None:
    """Four searches share an H200 in issue 16's run: what each waited for the GPU, and
    held it, says whether more processes per GPU could help. Each record counts its own
    search's turns, not the process's earlier ones (no upper bound on a real sleep here:
    under the suite's load a 0.2 s turn was once held for 3.5 s)."""
    lock = GpuLock("0", tmp_path)
    lock.waited_s, lock.held_s = 1000.0, 1000.0  # earlier searches' turns

    class Holding:
        """Holds the GPU for 0.2 s of its search, as a run or an answer would."""

        verifier = SimpleNamespace(gpu_lock=lock)

        def run(self, task: object, **_: object) -> OptimizeOutcome:
            with lock.hold(NO_DEADLINE):
                time.sleep(0.2)
            return outcome([candidate(0, verified(2.0))], gpu=True)

    (smooth, _) = load_manifest(manifest)
    record = _run_one(smooth, "mcgs", cast(Optimizer, Holding()))
    assert 0.2 <= record["gpu_s"]["held"] < 1000.0
    assert 0.0 <= record["gpu_s"]["waited"] < 1000.0


def test_a_run_counts_why_proposals_had_no_code_and_which_steps_were_relabelled() -> None:
    """The statuses say 130 of 300 model candidates had no code; the reasons say why, with
    names and numbers blanked so that one reason is one row."""
    empty = [
        candidate(k, Evaluation(Status.NO_CODE, "h", feedback=message))
        for k, message in enumerate(
            (
                "the code does not define the entry function 'scale'",
                "the code does not define the entry function 'other'\nmore",
                "the answer does not apply Shared-memory tiling: no `__shared__` array",
            )
        )
    ]
    relabelled = replace(candidate(3, verified(2.0)), asked="library_call")
    suite_task = SuiteTask("scale", Path("scale.cpp"), "scale", "elementwise")
    record = _record(suite_task, "mcgs", outcome([*empty, relabelled], gpu=True))
    assert record["no_code"] == {
        "the code does not define the entry function …": 2,
        "the answer does not apply Shared-memory tiling: no … array": 1,
    }
    assert record["relabelled"] == 1


def test_summary_is_pass_rate_and_speedups_of_passed_tasks() -> None:
    rows = [
        {"method": "mcgs", "passed": True, "speedup": 2.0},
        {"method": "mcgs", "passed": True, "speedup": 8.0},
        {"method": "mcgs", "passed": False, "speedup": None},
        {"method": "walks", "passed": False, "speedup": None},
    ]
    rows[2] |= {"reference_ms": 0.4, "copy_floor_ms": 1.1}
    rows[3] |= {"reference_ms": 2.0, "copy_floor_ms": 1.1}
    rows[0] |= {
        "techniques": ["parallelization", "read_only_cache"],
        "producers": ["rewriter:warp_shuffle_reduction", "rewriter:read_only_cache"],
    }
    rows[1] |= {
        "techniques": ["parallelization", "fast_math"],
        "producers": ["rewriter:parallelization", "model"],
    }
    rows[2] |= {
        "techniques": ["shared_memory_tiling"],
        "producers": ["rewriter:shared_memory_tiling"],
    }
    summary = summarise(rows)
    # What the passed answers applied: the rewriter's own technique, else the step's.
    assert summary["mcgs"]["techniques_passed"] == [
        "fast_math", "parallelization", "read_only_cache", "warp_shuffle_reduction",
    ]  # fmt: skip
    assert summary["mcgs"]["copy_bound"] == 1 and summary["walks"]["copy_bound"] == 0
    assert summary["mcgs"]["pass_at_1"] == round(2 / 3, 4)
    assert summary["mcgs"]["geomean_speedup_passed"] == 4.0
    # Over every task, a failure counted as the sequential code kept: (2 * 8 * 1) ** (1/3).
    assert summary["mcgs"]["geomean_speedup_all"] == round(16 ** (1 / 3), 3)
    assert summary["walks"]["passed"] == 0 and summary["walks"]["geomean_speedup_all"] == 1.0


def test_a_timing_override_replaces_each_tasks_mode(manifest: Path) -> None:
    """``bench run --timing kernel_only``: the search ranks candidates by their kernels."""
    (smooth, _) = load_manifest(manifest)
    assert smooth.task().timing_mode is TimingMode.END_TO_END
    kernels = replace(smooth, timing=TimingMode.KERNEL_ONLY)
    assert kernels.task().timing_mode is TimingMode.KERNEL_ONLY


def test_unknown_method_is_a_usage_error(manifest: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["bench", str(manifest), "--method", "magic", "--json", str(tmp_path / "x.json")]
    )
    assert result.exit_code == EXIT_USER_ERROR


@pytest.mark.skipif(gpu_present(), reason="the compile-level path needs no GPU")
def test_a_cut_run_resumes_where_it_stopped_and_may_add_methods(
    manifest: Path, tmp_path: Path
) -> None:
    out = tmp_path / "suite.json"
    args = ["bench", str(manifest), "--no-model", "--budget", "2", "--json", str(out)]
    assert CliRunner().invoke(main, [*args, "--method", "mcgs"]).exit_code == 0
    first = json.loads(out.read_text())
    kept = first["runs"][0]
    assert kept["task"] == "smooth"
    # Each run's curve: the best verified speedup after each candidate with code (none here).
    assert kept["best_by_candidate"] and set(kept["best_by_candidate"]) == {None}
    first["runs"] = first["runs"][:1]  # the machine went away after the first run
    out.write_text(json.dumps(first))

    result = CliRunner().invoke(main, [*args, "--method", "mcgs", "--method", "walks", "--resume"])
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert document["runs"][0] == kept  # not run again
    # Each run names its commit and the task file it ran (resumed files span commits).
    smooth_sha = hashlib.sha256((manifest.parent / "smooth.cpp").read_bytes()).hexdigest()
    assert kept["source_sha256"] == smooth_sha and kept["commit"] == first["commit"]
    assert document["engine"] == first["engine"] == engine_fingerprint()
    assert {"code", "kernel_ms"} <= set(kept), "a resumed file keeps the recorded answers"
    assert sorted((r["task"], r["method"]) for r in document["runs"]) == [
        ("missing", "mcgs"), ("missing", "walks"), ("smooth", "mcgs"), ("smooth", "walks")
    ]  # fmt: skip
    assert document["config"]["methods"] == ["mcgs", "walks"]
    assert document["summary"]["walks"]["tasks"] == 2

    # An edited task's runs compiled another program: a resumed run does them again.
    with (manifest.parent / "smooth.cpp").open("a") as source:
        source.write("// edited\n")
    again = CliRunner().invoke(main, [*args, "--method", "mcgs", "--method", "walks", "--resume"])
    assert again.exit_code == 0, again.stderr
    rerun = {(r["task"], r["method"]): r for r in json.loads(out.read_text())["runs"]}
    assert rerun["smooth", "mcgs"]["source_sha256"] != smooth_sha
    assert (
        rerun["missing", "walks"]
        == {r["method"]: r for r in document["runs"] if r["task"] == "missing"}["walks"]
    ), "an unchanged task's runs are kept"

    other = CliRunner().invoke(main, [*args[:-4], "--budget", "5", "--json", str(out), "--resume"])
    assert other.exit_code == EXIT_USER_ERROR
    assert "config.budget = 2, not 5" in other.stderr

    # Runs with another graph are another arm: the file records the graph and refuses them.
    seed = tmp_path / "seed.msgpack"
    build = ["graph", "build", "--trajectories", str(SEED_TRAJECTORIES), "--out", str(seed)]
    assert CliRunner().invoke(main, build).exit_code == 0
    graph = CliRunner().invoke(main, [*args, "--snapshot", str(seed), "--resume"])
    assert graph.exit_code == EXIT_USER_ERROR and "config.graph" in graph.stderr


def test_a_run_names_the_model_it_resolved_and_resumes_only_a_run_with_it(
    tmp_path: Path,
) -> None:
    """A model named by $REGRAPHT_MODEL, or the embedded default, left ``config.model``
    unset: the 1.5B comparison's files (09c81ff) said nothing of their model, and a run with
    one model could resume a file another had begun."""
    out = tmp_path / "suite.json"

    def document(env: dict[str, str], resume: dict[str, Any] | None = None) -> dict[str, Any]:
        optimizer = Optimizer(JobSettings(model=ModelSettings()), env=env)
        return run_suite([], ["mcgs"], optimizer, out=out, resume=resume)

    larger = document({"REGRAPHT_MODEL": "qwen2.5-coder-1.5b"})
    assert larger["config"]["model"] == "qwen2.5-coder-1.5b"
    default = document({})
    assert default["config"]["model"] == DEFAULT_EMBEDDED
    assert Optimizer(JobSettings(model=None), env={}).model_named is None  # --no-model
    with pytest.raises(ConfigError, match=r"config\.model = 'qwen2\.5-coder-1\.5b'"):
        document({}, resume=larger)


def test_report_writes_markdown_and_plots_from_a_results_file(tmp_path: Path) -> None:
    results = tmp_path / "suite.json"
    run = {"task": "fir", "family": "stencil", "method": "mcgs", "passed": True,
           "speedup": 3.0, "techniques": ["parallelization", "loop_unrolling"],
           "candidates": 4, "best_by_candidate": [None, 2.0, 3.0, 3.0],
           "code": "__global__ void fir_kernel() {}", "kernel_ms": 0.2}  # fmt: skip
    results.write_text(json.dumps({"device": "H100", "commit": "abc", "command": "regrapht bench",
                                   "started": "2026-11-24T04:00:00Z", "config": {"budget": 4},
                                   "runs": [run]}))  # fmt: skip
    out = tmp_path / "report"
    result = CliRunner().invoke(main, ["bench", "report", str(results), "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    markdown = (out / "report.md").read_text()
    assert "fir" in markdown and "__global__" not in markdown, "the report shows no code"
    assert {p.name for p in out.glob("*.svg")} == {
        "speedup_per_task.svg", "pass_rate_per_tier.svg", "best_vs_candidates.svg"
    }  # fmt: skip

    results.write_text("{not json")
    broken = CliRunner().invoke(main, ["bench", "report", str(results)])
    assert broken.exit_code == EXIT_USER_ERROR and "cannot read the results" in broken.stderr


def test_shards_take_every_nth_task_and_cover_the_suite_once(tmp_path: Path) -> None:
    tasks = [SuiteTask(f"t{i}", tmp_path / "f.cpp", "f", "fam") for i in range(7)]
    parts = [shard(tasks, part, 3) for part in (1, 2, 3)]
    assert [t.name for t in parts[0]] == ["t0", "t3", "t6"]
    assert sorted(t.name for p in parts for t in p) == sorted(t.name for t in tasks)
    with pytest.raises(ConfigError, match="from 1 to 3"):
        shard(tasks, 4, 3)


def test_parts_at_two_commits_merge_only_with_one_engine() -> None:
    """A suite too long for one GPU lease runs over several: its parts may come from
    commits that changed docs or tests, never from two engines."""
    one, two = _part(["a"], engine="e1"), _part(["b"], engine="e1")
    two["commit"] = "def"
    merged = merge_results([one, two], ["one.json", "two.json"], "m")
    assert merged["commits"] == ["abc", "def"]
    assert [p["commit"] for p in merged["parts"]] == ["abc", "def"]
    with pytest.raises(ConfigError, match="engine = 'e2', not 'e1'"):
        merge_results([one, _part(["b"], engine="e2")], ["one.json", "two.json"], "m")
    with pytest.raises(ConfigError, match="commit = 'def', not 'abc'"):
        merge_results([_part(["a"]), two | {"engine": None}], ["one.json", "two.json"], "m")


def test_parts_of_an_engine_this_one_continues_merge_with_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fix to code that raised cannot change a search that completed: the run begun
    before it goes on after it, and the merge names both engines."""
    monkeypatch.setattr(fingerprint, "engine_fingerprint", lambda: "e2")
    monkeypatch.setattr(fingerprint, "CONTINUED_ENGINES", {"e1": "only a crash was fixed"})
    merged = merge_results(
        [_part(["a"], engine="e1"), _part(["b"], engine="e2")], ["one.json", "two.json"], "m"
    )
    assert merged["engines"] == ["e1", "e2"]
    with pytest.raises(ConfigError, match="engine = 'e3', not 'e2'"):
        merge_results(
            [_part(["a"], engine="e1"), _part(["b"], engine="e3")], ["one.json", "two.json"], "m"
        )


class _Raising:
    """An optimizer whose search hits a bug."""

    def __init__(self, folder: Path) -> None:
        self.verifier = SimpleNamespace(gpu_lock=GpuLock("0", folder))

    def run(self, *args: object, **kwargs: object) -> None:
        raise KeyError("blockSize")


def test_a_search_that_raises_is_recorded_as_failed(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """An H200 run lost a process's remaining tasks to one search's KeyError."""
    task = SuiteTask(name="smooth", file=EXAMPLE, function="smooth", family="stencil")
    record = _run_one(task, "mcgs", _Raising(tmp_path))  # type: ignore[arg-type]
    assert record["passed"] is False
    assert record["failure"] == "internal error: KeyError: 'blockSize'"
    assert "smooth with mcgs: internal error" in caplog.text, "the traceback goes to the log"


def _part(tasks: list[str], engine: str | None = None, **config: object) -> dict[str, object]:
    runs = [{"task": t, "method": "mcgs", "passed": True, "speedup": 2.0} for t in tasks]
    return {
        "device": "NVIDIA H200",
        "commit": "abc",
        "engine": engine,
        "command": f"regrapht bench run m.toml --only {tasks[0]}",
        "host": "vm",
        "started": "2026-11-28T00:00:00Z",
        "config": {"budget": 6, "methods": ["mcgs"], **config},
        "runs": runs,
        "summary": summarise(runs),
    }


def test_merged_parts_keep_every_run_and_each_parts_command(tmp_path: Path) -> None:
    paths = []
    for number, tasks in enumerate((["a", "c"], ["b"]), start=1):
        paths.append(tmp_path / f"part{number}.json")
        paths[-1].write_text(json.dumps(_part(tasks)))
    out = tmp_path / "merged.json"
    result = CliRunner().invoke(main, ["bench", "merge", *map(str, paths), "--json", str(out)])
    assert result.exit_code == 0, result.stderr
    merged = json.loads(out.read_text())
    assert [r["task"] for r in merged["runs"]] == ["a", "c", "b"]
    assert merged["summary"]["mcgs"]["tasks"] == 3 and merged["summary"]["mcgs"]["passed"] == 3
    assert merged["command"].startswith("regrapht bench merge")
    assert [p["command"] for p in merged["parts"]] == [
        "regrapht bench run m.toml --only a", "regrapht bench run m.toml --only b"
    ]  # fmt: skip
    assert merged["device"] == "NVIDIA H200" and merged["commit"] == "abc"


def test_parts_of_different_runs_or_overlapping_tasks_do_not_merge() -> None:
    with pytest.raises(ConfigError, match=r"config\.budget = 8, not 6"):
        merge_results([_part(["a"]), _part(["b"], budget=8)], ["one.json", "two.json"], "m")
    with pytest.raises(ConfigError, match=r"a ran with mcgs in both one\.json and two\.json"):
        merge_results([_part(["a"]), _part(["a"])], ["one.json", "two.json"], "m")


def test_two_graphs_runs_merge_as_arms_the_report_compares(tmp_path: Path) -> None:
    """Issue 20's comparison: MCGS with the seed graph and with the shipped one, each file
    an arm; as parts of one run they would be refused, as they searched other graphs."""
    seed = _part(["a", "b"], graph={"trajectories": 19, "source_digest": "s"})
    mined = _part(["a", "b"], graph={"trajectories": 1112, "source_digest": "m"})
    mined["runs"][1]["speedup"] = 3.0
    for run in (*seed["runs"], *mined["runs"]):  # what the report reads of a run
        run |= {"family": "f", "techniques": ["parallelization"], "candidates": 1}
        run |= {"best_by_candidate": [run["speedup"]]}
    with pytest.raises(ConfigError, match=r"config\.graph"):
        merge_results([seed, mined], ["seed.json", "mined.json"], "m")
    paths = [tmp_path / "seed.json", tmp_path / "mined.json"]
    for path, document in zip(paths, (seed, mined), strict=True):
        path.write_text(json.dumps(document))
    out = tmp_path / "arms.json"
    args = ["bench", "merge", *map(str, paths), "--arm", "seed", "--arm", "mined"]
    result = CliRunner().invoke(main, [*args, "--json", str(out)])
    assert result.exit_code == 0, result.stderr
    merged = json.loads(out.read_text())
    assert merged["config"]["methods"] == ["seed", "mined"]
    assert merged["config"]["graph"] == {
        "seed": {"trajectories": 19, "source_digest": "s"},
        "mined": {"trajectories": 1112, "source_digest": "m"},
    }
    assert {(r["task"], r["method"], r["speedup"]) for r in merged["runs"]} == {
        ("a", "seed", 2.0), ("b", "seed", 2.0), ("a", "mined", 2.0), ("b", "mined", 3.0)
    }  # fmt: skip
    assert "--arm seed --arm mined" in merged["command"]
    report = CliRunner().invoke(main, ["bench", "report", str(out), "--out", str(tmp_path / "r")])
    assert report.exit_code == 0, report.stderr
    assert "seed against each method" in (tmp_path / "r" / "report.md").read_text()

    one_arm = CliRunner().invoke(main, [*args[:-2], "--json", str(out)])
    assert one_arm.exit_code == EXIT_USER_ERROR and "one distinct arm name per file" in (
        one_arm.stderr
    )
    with pytest.raises(ConfigError, match="an arm is one method's runs"):
        merge_arms(["x"], [seed | {"config": {"methods": ["mcgs", "walks"]}}], ["x.json"], "m")


def test_a_shard_is_i_of_n(manifest: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["bench", str(manifest), "--shard", "3/2", "--json", str(tmp_path / "x.json")]
    )
    assert result.exit_code == EXIT_USER_ERROR
    assert "'3/2' is not I/N" in result.stderr
