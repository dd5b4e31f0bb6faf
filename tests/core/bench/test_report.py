"""The Markdown report and its plots, from small hand-made results documents."""

from __future__ import annotations

import copy
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from regrapht_core.bench.report import (
    TIERS,
    best_curve,
    default_report_dir,
    head_to_head,
    on_common_reference,
    summary_by,
    tier_of,
    write_report,
)

PLOTS = ("speedup_per_task.svg", "pass_rate_per_tier.svg", "best_vs_candidates.svg")
MODEL_FAILURE = "ConfigError: the 'plain' baseline prompts a model: run it with a model"
SOFTMAX_FAILURE = "24 no_code, 12 verified | 1 timeout; first problem: 0.86x (end_to_end)"


def _run(
    task: str, family: str, method: str, speedup: float | None, techniques: int, **extra: Any
) -> dict[str, Any]:
    passed = speedup is not None
    return {
        "task": task,
        "family": family,
        "method": method,
        "passed": passed,
        "speedup": speedup,
        "best_verified_speedup": speedup,
        "techniques": ["parallelization", *["loop_unrolling"] * (techniques - 1)],
        "candidates": 4,
        "statuses": {"verified": 4},
        "stop_reason": "budget",
        "wall_s": {"total": 1.0},
        "failure": None if passed else extra.pop("failure", "0.90x (end_to_end)"),
        **extra,
    }


def _model_failure(task: str, family: str) -> dict[str, Any]:
    """What the runner records when a run could not start: no path, no statuses."""
    return {
        "task": task,
        "family": family,
        "method": "plain",
        "passed": False,
        "speedup": None,
        "failure": MODEL_FAILURE,
    }


@pytest.fixture
def document() -> dict[str, Any]:
    runs = [
        _run("relu", "elementwise", "mcgs", 3.0, 1, best_by_candidate=[None, 3.0, 3.0]),
        _run("relu", "elementwise", "walks", 2.0, 2),
        _model_failure("relu", "elementwise"),
        _run("fir", "stencil", "mcgs", 12.9478, 4, best_by_candidate=[2.0, 12.9478]),
        _run("fir", "stencil", "walks", 3.0, 1),
        _model_failure("fir", "stencil"),
        _run("gemm", "dense", "walks", 5.0, 2),  # first, but slower than mcgs' answer
        _run("gemm", "dense", "mcgs", 8.0, 6),
        _model_failure("gemm", "dense"),
        _run(
            "softmax",
            "rowwise",
            "mcgs",
            None,
            3,
            failure=SOFTMAX_FAILURE,
            best_by_candidate=[None, None, 0.86, 0.86],
        ),
        _run("softmax", "rowwise", "walks", None, 1),
        _model_failure("softmax", "rowwise"),
        _run("blur", "stencil", "mcgs", None, 2),
        _run("blur", "stencil", "walks", 1.5, 2),
    ]
    return {
        "benchmark": "task suite: pass@1 and speedup@1 per method",
        "device": "NVIDIA H100 80GB HBM3",
        "driver": "580.159.04",
        "nvcc": "13.0.88",
        "arch": "sm_90",
        "commit": "d8689b1",
        "command": "regrapht bench benchmarks/tasks/manifest.toml --budget 30 --json x.json",
        "host": "vm",
        "cpus": 16,
        "started": "2026-11-24T03:46:12Z",
        "config": {
            "budget": 30,
            "depth_cap": 5,
            "time_limit_s": 50.0,
            "model": None,
            "rewriters": True,
            "seed": 0,
            "methods": ["mcgs", "walks", "plain"],
        },
        "runs": runs,
        "summary": {},
    }


def _geomean(*values: float) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def test_the_fastest_answer_of_any_method_sets_the_tier(document: dict[str, Any]) -> None:
    assert tier_of(document["runs"]) == {
        "relu": "easy",  # 3.0x in 1 step beats walks' 2 steps
        "fir": "medium",  # 4 steps
        "gemm": "hard",  # 8.0x in 6 steps beats walks' 5.0x in 2
        "softmax": "unsolved",  # a path, but nothing verified faster
        "blur": "easy",  # only walks solved it
    }


def test_tier_boundaries_follow_the_paper() -> None:
    runs = [_run(f"t{n}", "", "mcgs", 2.0, n) for n in (1, 2, 3, 5, 6)]
    assert list(tier_of(runs).values()) == ["easy", "easy", "medium", "medium", "hard"]


def test_summary_by_groups_the_suites_own_summary(document: dict[str, Any]) -> None:
    by_family = summary_by(document["runs"], lambda run: run["family"])
    assert list(by_family) == ["elementwise", "stencil", "dense", "rowwise"]
    stencil = by_family["stencil"]
    assert stencil["mcgs"] == {
        "tasks": 2, "compiled": 2, "copy_bound": 0, "passed": 1, "pass_at_1": 0.5,
        "geomean_speedup_passed": 12.948, "median_speedup_passed": 12.948,
        "geomean_speedup_all": 3.598, "techniques_passed": ["loop_unrolling", "parallelization"],
    }  # fmt: skip
    assert stencil["walks"]["geomean_speedup_passed"] == round(_geomean(3.0, 1.5), 3)
    assert stencil["plain"]["passed"] == 0 and stencil["plain"]["tasks"] == 1
    tiers = tier_of(document["runs"])
    by_tier = summary_by(document["runs"], lambda run: tiers[run["task"]])
    assert set(by_tier) == set(TIERS)
    assert by_tier["easy"]["walks"]["pass_at_1"] == 1.0
    assert by_tier["easy"]["mcgs"]["pass_at_1"] == 0.5
    assert by_tier["unsolved"]["mcgs"]["geomean_speedup_passed"] is None


def test_best_curve_counts_unverified_as_one_and_keeps_an_ended_searchs_best(
    document: dict[str, Any],
) -> None:
    mcgs = [run for run in document["runs"] if run["method"] == "mcgs"]
    # relu [None, 3, 3], fir [2, 12.9478] (ended after 2), softmax [None, None, .86, .86];
    # gemm and blur record no field and are left out.
    assert best_curve(mcgs) == pytest.approx(
        [
            _geomean(1.0, 2.0, 1.0),
            _geomean(3.0, 12.9478, 1.0),
            _geomean(3.0, 12.9478, 0.86),
            _geomean(3.0, 12.9478, 0.86),
        ]
    )
    assert best_curve(run for run in document["runs"] if run["method"] == "walks") == []


def _lines(report: Path) -> list[str]:
    return report.read_text(encoding="utf-8").splitlines()


def test_report_states_provenance_and_every_number(
    document: dict[str, Any], tmp_path: Path
) -> None:
    report = write_report(document, tmp_path / "out")
    assert report == tmp_path / "out" / "report.md"
    lines = _lines(report)
    plain = "— ConfigError: the 'plain' baseline prompt"  # the failure's first 40 characters
    assert lines[0] == "# task suite: pass@1 and speedup@1 per method"
    for row in (
        "| **device** | NVIDIA H100 80GB HBM3 |",
        "| **driver** | 580.159.04 |",
        "| **nvcc** | 13.0.88 |",
        "| **model** | none (rewriters only) |",
        "| **commit** | d8689b1 |",
        "| **engine** | not recorded |",
        f"| **command** | `{document['command']}` |",
        "| **budget** | 30 |",
        "| **started** | 2026-11-24T03:46:12Z |",
        # overall: mcgs passed relu, fir, gemm of 5
        # geomean (all) of 3, 12.9478, 8, 1 and 1; (passed) of the first three
        # and 2 of the 3 passed answers applied more than one technique (fir, gemm)
        "| mcgs | 5 | 3 | 0 | 0.60 | 3.15x | 6.77x | 8.00x | 2 (67%) |",
        "| plain | 4 | 0 | 0 | 0.00 | 1.00x | — | — | — |",
        # per tier, in order of difficulty
        "| hard | 1 | 1.00 | 8.00x | 8.00x | 1.00 | 5.00x | 5.00x | 0.00 | 1.00x | — |",
        "| unsolved | 1 | 0.00 | 1.00x | — | 0.00 | 1.00x | — | 0.00 | 1.00x | — |",
        # per family: blur has no plain run, so plain's stencil row counts fir alone
        "| stencil | 2 | 0.50 | 3.60x | 12.95x | 1.00 | 2.12x | 2.12x | 0.00 | 1.00x | — |",
        # per task
        f"| relu | elementwise | easy | 3.00x (1) | 2.00x (2) | {plain} |",
        f"| fir | stencil | medium | 12.95x (4) | 3.00x (1) | {plain} |",
        f"| gemm | dense | hard | 8.00x (6) | 5.00x (2) | {plain} |",
        "| softmax | rowwise | unsolved | — 24 no_code, 12 verified \\| 1 timeout; fir"
        f" | — 0.90x (end_to_end) | {plain} |",
        "| blur | stencil | easy | — 0.90x (end_to_end) | 1.50x (2) | not run |",
    ):
        assert row in lines
    tiers = [
        line.split(" | ")[0] for line in lines if line.startswith(tuple(f"| {t} " for t in TIERS))
    ]
    assert tiers == ["| easy", "| medium", "| hard", "| unsolved"]
    text = report.read_text(encoding="utf-8")
    assert all(f"]({plot})" in text for plot in PLOTS)
    assert "leaves out the 11 of 14 runs without `best_by_candidate`" in text


def test_report_names_the_model_and_says_when_no_run_has_the_curve(
    document: dict[str, Any], tmp_path: Path
) -> None:
    document["config"]["model"] = "qwen2.5-coder-1.5b"
    for run in document["runs"]:
        run.pop("best_by_candidate", None)
    text = write_report(document, tmp_path).read_text(encoding="utf-8")
    assert "| **model** | qwen2.5-coder-1.5b |" in text
    assert "No run records `best_by_candidate`" in text
    svg = ET.parse(tmp_path / "best_vs_candidates.svg").getroot()
    assert "no run records best_by_candidate" in _texts(svg)
    assert not _ids(svg, "best--")


def _ids(svg: ET.Element, prefix: str) -> dict[str, ET.Element]:
    return {
        element.attrib["id"]: element
        for element in svg.iter()
        if element.attrib.get("id", "").startswith(prefix)
    }


def _texts(svg: ET.Element) -> str:
    return " ".join(" ".join(e.itertext()) for e in svg.iter() if e.tag.endswith("text"))


def _height(bar: ET.Element) -> float:
    """The bar's rectangle is one path in display coordinates: its vertical extent."""
    (path,) = (e for e in bar.iter() if e.tag.endswith("path"))
    ys = [float(y) for y in re.findall(r"[-\d.]+", path.attrib["d"])[1::2]]
    return max(ys) - min(ys)


def test_speedup_plot_has_a_bar_per_run_and_a_hatched_stub_per_failure(
    document: dict[str, Any], tmp_path: Path
) -> None:
    write_report(document, tmp_path)
    svg = ET.parse(tmp_path / "speedup_per_task.svg").getroot()
    bars = _ids(svg, "speedup--")
    expected = {f"speedup--{run['method']}--{run['task']}": run for run in document["runs"]}
    assert set(bars) == set(expected)
    for gid, run in expected.items():
        hatched = "url(#h" in ET.tostring(bars[gid], encoding="unicode")
        assert hatched == (not run["passed"]), gid
    # log axis from half the slowest answer (0.5x here): heights go as log(speedup / 0.5)
    ratio = _height(bars["speedup--mcgs--fir"]) / _height(bars["speedup--mcgs--relu"])
    assert ratio == pytest.approx(math.log(12.9478 / 0.5) / math.log(3.0 / 0.5), rel=1e-3)
    texts = _texts(svg)
    for name in ("mcgs", "walks", "plain", "no answer", "relu", "fir", "gemm", "softmax", "blur"):
        assert name in texts


def test_tier_plot_has_a_bar_per_method_and_tier_with_tasks(
    document: dict[str, Any], tmp_path: Path
) -> None:
    document["runs"] = [run for run in document["runs"] if run["task"] != "gemm"]
    write_report(document, tmp_path)
    svg = ET.parse(tmp_path / "pass_rate_per_tier.svg").getroot()
    assert set(_ids(svg, "pass--")) == {
        f"pass--{method}--{tier}"
        for method in ("mcgs", "walks", "plain")
        for tier in ("easy", "medium", "unsolved")
    }
    texts = _texts(svg)
    assert "easy (2)" in texts and "medium (1)" in texts and "unsolved (1)" in texts
    assert "hard" not in texts
    assert all(method in texts for method in ("mcgs", "walks", "plain"))


def test_best_plot_draws_only_methods_that_recorded_the_curve(
    document: dict[str, Any], tmp_path: Path
) -> None:
    write_report(document, tmp_path)
    svg = ET.parse(tmp_path / "best_vs_candidates.svg").getroot()
    assert set(_ids(svg, "best--")) == {"best--mcgs"}
    texts = _texts(svg)
    assert "mcgs" in texts and "walks" not in texts


def test_the_same_results_give_the_same_bytes(document: dict[str, Any], tmp_path: Path) -> None:
    write_report(copy.deepcopy(document), tmp_path / "a")
    write_report(document, tmp_path / "b")
    for name in ("report.md", *PLOTS):
        first = (tmp_path / "a" / name).read_bytes()
        assert first and first == (tmp_path / "b" / name).read_bytes(), name


def test_a_results_file_with_no_runs_yet_still_reports(
    document: dict[str, Any], tmp_path: Path
) -> None:
    document["runs"] = []
    text = write_report(document, tmp_path).read_text(encoding="utf-8")
    assert "| **device** | NVIDIA H100 80GB HBM3 |" in text
    for plot in PLOTS:
        ET.parse(tmp_path / plot)


def test_default_report_dir_is_date_and_device(document: dict[str, Any]) -> None:
    root = Path("benchmarks/results")
    assert default_report_dir(document, root) == root / "2026-11-24-nvidia-h100-80gb-hbm3"
    document["device"] = None
    assert default_report_dir(document, root) == root / "2026-11-24-cpu"


def test_a_report_of_parts_from_several_commits_names_them_and_the_engine(
    document: dict[str, Any], tmp_path: Path
) -> None:
    document |= {"commits": ["d8689b1", "80ab825"], "engine": "5e3a"}
    lines = _lines(write_report(document, tmp_path / "out"))
    assert "| **commit** | d8689b1, 80ab825 |" in lines
    assert "| **engine** | 5e3a |" in lines
    document |= {"engines": ["4d29", "5e3a"]}  # a run that went on after a fix of a crash
    assert "| **engine** | 4d29, 5e3a |" in _lines(write_report(document, tmp_path / "two"))


def test_answers_are_judged_against_their_tasks_common_reference(tmp_path: Path) -> None:
    """One task's jobs timed its sequential code at 10, 6, 8 and 11 ms: the median, 9 ms,
    judges every answer, so walks' 5 ms answer counts 1.80x as mcgs' does (its own 1.20x
    came from a fast measurement), and cot's 10 ms answer, 1.10x against its own slow
    reference, is slower than the common one."""
    runs = [
        _run("t", "fam", "mcgs", 2.0, 2, reference_ms=10.0, best_ms=5.0),
        _run("t", "fam", "walks", 1.2, 1, reference_ms=6.0, best_ms=5.0),
        _run("t", "fam", "plain", None, 1, reference_ms=8.0, best_ms=9.5),
        _run("t", "fam", "cot", 1.1, 1, reference_ms=11.0, best_ms=10.0),
        _run("u", "fam", "mcgs", 3.0, 1),  # no times recorded: kept as it is
    ]
    judged = {(run["task"], run["method"]): run for run in on_common_reference(runs)}
    assert judged["t", "mcgs"]["speedup"] == pytest.approx(1.8)
    assert judged["t", "walks"]["speedup"] == pytest.approx(1.8)
    assert judged["t", "walks"]["own_speedup"] == 1.2
    assert not judged["t", "plain"]["passed"], "a job that offered nothing gains nothing"
    cot = judged["t", "cot"]
    assert not cot["passed"] and cot["speedup"] is None
    assert cot["failure"] == "0.90x against the task's common reference (1.10x own)"
    assert judged["u", "mcgs"] == runs[4]

    document = {
        "device": "H200",
        "commit": "abc",
        "command": "regrapht bench",
        "started": "2026-11-29T14:00:00Z",
        "config": {"budget": 30},
        "runs": runs,
    }
    lines = _lines(write_report(document, tmp_path / "out"))
    own = lines.index("## Summary, each job against its own reference")
    common = lines.index("## Summary on the common reference")
    assert own < common
    assert "| cot | 1 | 1 | 0 | 1.00 | 1.10x | 1.10x | 1.10x | 0 (0%) |" in lines[own:common]
    assert "| cot | 1 | 0 | 0 | 0.00 | 1.00x | — | — | — |" in lines[common:]


def test_the_provenance_names_the_model_that_answered(
    document: dict[str, Any], tmp_path: Path
) -> None:
    """A run with the embedded default records no model name, only where it answered."""
    document |= {"model_runs_on": "GPU"}
    lines = _lines(write_report(document, tmp_path / "default"))
    assert "| **model** | the embedded default (on GPU) |" in lines
    document["config"]["model"] = "qwen2.5-coder-1.5b"
    lines = _lines(write_report(document, tmp_path / "named"))
    assert "| **model** | qwen2.5-coder-1.5b (on GPU) |" in lines


def test_head_to_head_compares_two_methods_on_the_tasks_both_ran(
    document: dict[str, Any],
) -> None:
    """relu 3 against 2, fir 12.95 against 3, gemm 8 against 5: mcgs faster; softmax neither
    (1.00x each): level; blur 1.00x against walks' 1.5x: slower. plain ran no blur and
    passed nothing, so it is compared on the other four."""
    runs = document["runs"]
    duel = head_to_head(runs, "mcgs", "walks")
    assert duel["tasks"] == 5 and (duel["faster"], duel["slower"]) == (3, 1)
    assert duel["first"] == pytest.approx(_geomean(3.0, 12.9478, 8.0, 1.0, 1.0))
    assert duel["other"] == pytest.approx(_geomean(2.0, 3.0, 5.0, 1.0, 1.5))
    plain = head_to_head(runs, "mcgs", "plain")
    assert (plain["tasks"], plain["faster"], plain["slower"]) == (4, 3, 0)
    assert plain["other"] == pytest.approx(1.0)
    assert head_to_head(runs, "mcgs", "rag") == {
        "tasks": 0, "first": None, "other": None, "faster": 0, "slower": 0,
    }  # fmt: skip


def test_answers_within_five_percent_are_level() -> None:
    runs = [
        _run("a", "f", "mcgs", 1.04, 1),
        _run("a", "f", "walks", 1.0, 1),
        _run("b", "f", "mcgs", 1.06, 1),
        _run("b", "f", "walks", 1.0, 1),
    ]
    duel = head_to_head(runs, "mcgs", "walks")
    assert (duel["faster"], duel["slower"]) == (1, 0)
    assert head_to_head(runs, "walks", "mcgs")["slower"] == 1


def test_report_compares_the_first_method_with_each_other_per_tier_and_says_what_is_missing(
    document: dict[str, Any], tmp_path: Path
) -> None:
    lines = _lines(write_report(document, tmp_path / "out"))
    start = lines.index("## mcgs against each method, on the tasks both ran")
    rows = [line for line in lines[start:] if line.startswith(("| walks |", "| plain |"))]
    assert rows[0] == "| walks | all | 5 | 3.15x | 2.14x | 3 / 1 / 1 |"
    assert "| walks | easy | 2 | 1.73x | 1.73x | 1 / 0 / 1 |" in rows
    assert "| plain | hard | 1 | 8.00x | 1.00x | 1 / 0 / 0 |" in rows
    assert "| plain | easy | 1 | 3.00x | 1.00x | 1 / 0 / 0 |" in rows  # relu: plain ran no blur
    assert "14 of 15 searches ran." in lines
    assert "Not run: blur (plain)." in lines
    assert not any("source" in line for line in lines[lines.index("## Coverage") :][:5])


def test_report_names_tasks_whose_runs_compiled_different_sources(
    document: dict[str, Any], tmp_path: Path
) -> None:
    for run in document["runs"]:
        run["source_sha256"] = "a" * 64
    lines = _lines(write_report(copy.deepcopy(document), tmp_path / "same"))
    assert "Every task's runs compiled the same source (`source_sha256`)." in lines
    document["runs"][3]["source_sha256"] = "b" * 64  # fir's mcgs run, from an older task file
    lines = _lines(write_report(document, tmp_path / "mixed"))
    assert "Runs of one task compiled different sources (task file changed): fir." in lines
