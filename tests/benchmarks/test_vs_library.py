"""The answers-against-the-libraries benchmark (:mod:`benchmarks.vs_library`).

On any machine: what a call moves, how a trace is read, how rows and the verdicts are made,
and the ``ctypes`` call itself, through the task's own sequential reference built as a
shared library with g++ (against numpy's reading of each task). Where torch is installed
(the GPU machine), the library calls on CPU tensors against that reference; where nvcc is,
an answer's build; on a GPU (``-m gpu``), the whole run on the rewriters' answers.
"""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from benchmarks.verify_throughput import rewriter_variants
from benchmarks.vs_library import (
    ARM,
    COMPARISONS,
    ENTRY,
    MANIFEST,
    RETURN,
    HostCall,
    Outcome,
    agreement,
    binding_for,
    build_answer,
    bytes_moved,
    device_time,
    entry_glue,
    library_calls,
    library_values,
    markdown,
    run,
    share,
    suite_answers,
    suite_outcome,
    summarise,
    task_row,
)
from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.task import ParamKind, Task
from tests.conftest import gpu_present

TASKS = {entry.name: entry.task() for entry in load_manifest(MANIFEST)}
BY_NAME = {c.task: c for c in COMPARISONS}
SMALL = {
    "map_clamp": {"n": 1000},
    "reduce_sum": {"n": 1000},
    "dense_sgemm": {"n": 16},
    "dense_transpose": {"m": 8, "n": 12},
    "hist_u8": {"n": 1000},
    "scan_inclusive": {"n": 1000},
    "rows_softmax": {"rows": 4, "cols": 16},
}
"""Sizes small enough to call the sequential reference in a test."""

Arrays = dict[str, npt.NDArray[Any]]


def _softmax(x: npt.NDArray[Any], rows: int, cols: int) -> npt.NDArray[np.float64]:
    grid = x.reshape(rows, cols).astype(np.float64)
    e: npt.NDArray[np.float64] = np.exp(grid - grid.max(axis=1, keepdims=True))
    total: npt.NDArray[np.float64] = e.sum(axis=1, keepdims=True)
    return e / total


EXPECTED: dict[str, Callable[[Mapping[str, Any]], Arrays]] = {
    "map_clamp": lambda a: {"y": np.clip(a["x"], a["lo"], a["hi"])},
    "reduce_sum": lambda a: {RETURN: np.array([a["x"].sum(dtype=np.float64)])},
    "dense_sgemm": lambda a: {
        "C": a["A"].reshape(a["n"], -1).astype(np.float64) @ a["B"].reshape(a["n"], -1)
    },
    "dense_transpose": lambda a: {"out": a["in"].reshape(a["m"], a["n"]).T},
    "hist_u8": lambda a: {"hist": a["hist"] + np.bincount(a["data"], minlength=256)},
    "scan_inclusive": lambda a: {"out": np.cumsum(a["x"], dtype=np.int64)},
    "rows_softmax": lambda a: {"y": _softmax(a["x"], a["rows"], a["cols"])},
}
"""Each task in numpy: what the library call computes, and what the reference must."""


def test_sgemm_is_timed_at_2048_and_the_rest_at_their_timing_size() -> None:
    assert [c.task for c in COMPARISONS] == list(EXPECTED)
    assert binding_for(BY_NAME["dense_sgemm"], TASKS["dense_sgemm"]) == {"n": 2048}
    softmax = TASKS["rows_softmax"]
    assert binding_for(BY_NAME["rows_softmax"], softmax) == dict(softmax.timing_size)
    assert [c.task for c in COMPARISONS if not c.memory_bound] == ["dense_sgemm"]


def test_bytes_moved_reads_inputs_once_and_writes_outputs_once() -> None:
    moved = {c.task: bytes_moved(TASKS[c.task], binding_for(c, TASKS[c.task])) for c in COMPARISONS}
    n = 1 << 24
    assert moved == {
        "map_clamp": 2 * 4 * n,
        "reduce_sum": 4 * n + 4,  # the float returned
        "dense_sgemm": 3 * 4 * 2048 * 2048,
        "dense_transpose": 2 * 4 * 4096 * 4096,
        "hist_u8": n + 2 * 4 * 256,  # the counts are read and written
        "scan_inclusive": 4 * n + 8 * n,
        "rows_softmax": 2 * 4 * 8192 * 1024,
    }


def test_a_trace_counts_kernels_only() -> None:
    trace = {
        "traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "clamp_kernel", "dur": 40.5},
            {"ph": "X", "cat": "kernel", "name": "clamp_kernel", "dur": 39.5},
            {"ph": "X", "cat": "kernel", "name": "DeviceScanKernel", "dur": 20.0},
            {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "dur": 9000.0},
            {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "dur": 80.0},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "dur": 5.0},
            {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 1},
        ]
    }
    timed = device_time(trace)
    assert timed.ms == pytest.approx(0.1) and timed.count == 3
    assert timed.names == ("clamp_kernel", "DeviceScanKernel")
    assert device_time(trace, {"kernel", "gpu_memcpy"}).ms == pytest.approx(9.1)
    assert device_time({}).count == 0


def test_share_is_the_rate_over_the_copy_rate() -> None:
    assert share(2_000_000, 1.0, 4e9) == pytest.approx(0.5)
    assert share(2_000_000, None, 4e9) is None and share(2_000_000, 1.0, None) is None


def _measured(project: float | None, library: float, **extra: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"library_ms": [library, library * 1.1, library * 0.9]}
    if project is not None:
        found |= {"project_ms": [project] * 3, "project_ms_l2_from_copies": [project * 0.8] * 3}
        found["mismatch"] = extra.pop("mismatch", None)
    return found | extra


COPY_RATE = 3e12


def _rows(measured: Mapping[str, dict[str, Any]]) -> list[dict[str, Any]]:
    suite_run = {"passed": True, "speedup": 9.0, "kernel_ms": 0.1, "techniques": ["p"]}
    return [task_row(c, TASKS[c.task], suite_run, measured[c.task], COPY_RATE) for c in COMPARISONS]


def test_rows_and_verdicts() -> None:
    measured = {c.task: _measured(0.1, 0.1) for c in COMPARISONS}
    measured["map_clamp"] = _measured(0.06, 0.05)  # 1.2x: within
    measured["reduce_sum"] = _measured(0.07, 0.05)  # 1.4x: not
    measured["dense_transpose"] = _measured(0.05, 0.05, mismatch="output 'out' differs")
    measured["hist_u8"] = _measured(None, 0.05, outcome=Outcome.NOT_PASSED, error="0 verified")
    rows = {row["task"]: row for row in _rows(measured)}

    clamp = rows["map_clamp"]
    assert clamp["ratio"] == 1.2 and clamp["within_1_25"] and clamp["outcome"] == "measured"
    assert clamp["project_ms_l2_from_copies"] == pytest.approx(0.048)
    assert clamp["project_share_of_copy"] == pytest.approx(2 * 4 * (1 << 24) / 0.06e-3 / 3e12, 1e-3)
    assert clamp["library_ms"] == 0.05, "the median of the library's calls"
    assert not rows["reduce_sum"]["within_1_25"]
    wrong = rows["dense_transpose"]
    assert wrong["outcome"] == "wrong output" and not wrong["agrees"]
    assert not wrong["within_1_25"] and wrong["project_share_of_copy"] is None
    missing = rows["hist_u8"]
    assert missing["outcome"] == "not passed in the suite" and missing["error"] == "0 verified"
    assert missing["project_ms"] is None and missing["library_ms"] == 0.05
    assert missing["agrees"] is None and missing["library_share_of_copy"] is not None
    assert rows["dense_sgemm"]["project_share_of_copy"] is None, "compute-bound: no share"

    summary = summarise(list(rows.values()))
    assert summary["within_1_25"] == ["map_clamp", "dense_sgemm", "scan_inclusive", "rows_softmax"]
    assert not summary["all_within_1_25"] and summary["measured"] == 5
    assert "dense_sgemm" not in summary["memory_bound"] and len(summary["memory_bound"]) == 6
    shares = sorted(row["project_share_of_copy"] or 0.0 for row in rows.values())[1:]
    assert summary["median_project_share_of_copy"] == round((shares[2] + shares[3]) / 2, 4)
    assert 0.0 in shares, "a task without an answer counts as 0"

    assert not summary["done_when_met"]

    copy = {"ms": 0.18, "bytes": 2 * 4 << 26, "bytes_per_s": 2.98e12}
    table = markdown({"tasks": list(rows.values()), "summary": summary, "copy": copy})
    assert table.count("\n| ") == len(COMPARISONS)
    assert "| hist_u8 | not passed in the suite | — |" in table
    assert "copy: 0.1800 ms for 512 MiB read + written = 2980 GB/s" in table
    assert "within 1.25x: 4 of 7" in table
    broken = markdown({"tasks": [], "summary": {}, "copy": {"error": "exit -11: no output"}})
    assert "copy: not measured (exit -11: no output)" in broken


def test_a_crash_is_a_failure_and_keeps_the_library_time() -> None:
    crashed = _measured(None, 0.05, error="exit -11: Segmentation fault")
    row = task_row(BY_NAME["map_clamp"], TASKS["map_clamp"], None, crashed, COPY_RATE)
    assert row["outcome"] == "failed" and row["error"].startswith("exit -11")
    assert row["library_ms"] == 0.05 and row["suite"] is None


def test_the_suites_answer_per_task() -> None:
    runs = [
        {"task": "map_clamp", "method": "mcgs", "passed": True, "code": "old"},
        {"task": "map_clamp", "method": "walks", "passed": True, "code": "walks"},
        {"task": "map_clamp", "method": "mcgs", "passed": True, "code": "resumed"},
        {"task": "reduce_sum", "method": "mcgs", "passed": False, "failure": "3 wrong_output"},
        {"task": "hist_u8", "method": "mcgs", "passed": True, "speedup": 2.0},
    ]
    answers = suite_answers({"runs": runs}, "mcgs")
    assert answers["map_clamp"]["code"] == "resumed"
    assert suite_outcome(answers["map_clamp"]) == (None, None)
    assert suite_outcome(answers["reduce_sum"]) == (Outcome.NOT_PASSED, "3 wrong_output")
    assert suite_outcome(answers["hist_u8"])[0] is Outcome.NO_CODE
    assert suite_outcome(answers.get("scan_inclusive"))[0] is Outcome.NOT_IN_SUITE


def test_agreement_is_the_verifiers_comparison() -> None:
    task = TASKS["rows_softmax"]  # atol = rtol = 1e-3
    got = {"y": np.full(8, 0.5, dtype=np.float32)}
    assert agreement(task, {"y": np.full((2, 4), 0.5004)}, got) is None
    assert "differs at index 0" in (agreement(task, {"y": np.full(8, 0.51)}, got) or "")
    assert "no 'y'" in (agreement(task, {}, got) or "")
    counts = {"hist": np.arange(256, dtype=np.uint32)}
    off_by_one = np.arange(256, dtype=np.int64) + (np.arange(256) == 7)
    assert "index 7" in (agreement(TASKS["hist_u8"], {"hist": off_by_one}, counts) or "")


def test_unsupported_arguments_are_refused() -> None:
    clamp = TASKS["map_clamp"]
    vector = replace(clamp.args[3], kind=ParamKind.VECTOR)
    with pytest.raises(ValueError, match=r"'x' .* not supported"):
        entry_glue(replace(clamp, args=(*clamp.args[:3], vector, clamp.args[4])))
    with pytest.raises(ValueError, match="return type"):
        bytes_moved(replace(clamp, returns="std::vector<float>"), {"n": 4})


# --- The ctypes call, through the sequential reference ----------------------------------------


def _reference(task: Task, folder: Path) -> ctypes.CDLL:
    """The task's own C++ with the benchmark's glue, as a shared library (g++)."""
    source = folder / f"{task.name}.cpp"
    source.write_text(f"{task.source}\n{entry_glue(task)}")
    library = folder / f"{task.name}.so"
    subprocess.run(
        ["g++", "-shared", "-fPIC", "-O1", "-std=c++17", str(source), "-o", str(library)],
        check=True,
    )
    return ctypes.CDLL(str(library))


def _reference_outputs(name: str, folder: Path) -> tuple[HostCall, Arrays]:
    host = HostCall(TASKS[name], SMALL[name])
    call = host.bind(getattr(_reference(TASKS[name], folder), ENTRY))
    call()
    return host, host.outputs()


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


@needs_gxx
@pytest.mark.parametrize("name", list(EXPECTED))
def test_the_entry_is_called_with_the_tasks_arguments(name: str, tmp_path: Path) -> None:
    host, outputs = _reference_outputs(name, tmp_path)
    expected = EXPECTED[name]({**host.binding, **host.inputs})
    assert agreement(TASKS[name], expected, outputs) is None
    assert set(outputs) == set(expected)


@needs_gxx
def test_each_call_starts_from_the_drawn_inputs(tmp_path: Path) -> None:
    host = HostCall(TASKS["hist_u8"], SMALL["hist_u8"])
    call = host.bind(getattr(_reference(TASKS["hist_u8"], tmp_path), ENTRY))
    call()
    first = host.outputs()["hist"]
    call()
    assert int(host.outputs()["hist"].sum() - first.sum()) == 1000, "in-out: counts added twice"
    host.prepare()
    call()
    assert np.array_equal(host.outputs()["hist"], first)
    scan = HostCall(TASKS["scan_inclusive"], SMALL["scan_inclusive"])
    assert np.all(scan.buffers["out"] == -1), "outputs start poisoned"


@needs_gxx
@pytest.mark.parametrize("name", list(EXPECTED))
def test_the_library_calls_compute_the_task(name: str, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    host, outputs = _reference_outputs(name, tmp_path)
    library = library_calls()[name](library_values(host.inputs, "cpu"))
    found = {key: value.numpy() for key, value in library.items()}
    assert agreement(TASKS[name], found, outputs) is None


# --- The answer's build (nvcc) and the whole run (GPU) ----------------------------------------


def _rewriter_answer(name: str) -> str | None:
    jobs = rewriter_variants(name, TASKS[name], 1)
    return jobs[0].source if jobs else None


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_an_answer_builds_with_its_glue_and_wrapped_launches(tmp_path: Path) -> None:
    code = _rewriter_answer("map_clamp")
    assert code is not None
    library = build_answer(TASKS["map_clamp"], code, tmp_path, nvcc="nvcc", arch="sm_90")
    loaded = ctypes.CDLL(str(library))
    assert loaded[ENTRY] and loaded[ARM]
    symbols = subprocess.run(
        ["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True
    ).stdout
    assert "__wrap___cudaLaunchKernel" in symbols and "__wrap_cudaLaunchKernel" in symbols
    with pytest.raises(RuntimeError, match="error"):
        build_answer(TASKS["map_clamp"], "void clamp_map(", tmp_path, nvcc="nvcc", arch="sm_90")


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_present(), reason="needs an NVIDIA GPU")
def test_the_rewriters_answers_against_the_libraries(tmp_path: Path) -> None:
    """The whole run on a suite file made of the rewriters' first steps: every answer agrees
    with its library call and is timed, and so is every library call."""
    answers = {c.task: _rewriter_answer(c.task) for c in COMPARISONS}
    runs = [
        {"task": name, "method": "mcgs", "passed": code is not None, "code": code}
        for name, code in answers.items()
    ]
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"runs": runs}))
    record = run(suite, tmp_path / "vs-library.json", calls=10, command="pytest")
    assert record["copy"]["bytes_per_s"] > 1e12, record["copy"]
    for row in record["tasks"]:
        assert row["library_ms"] and row["library_ms"] > 0, row
        if row["suite"]["passed"]:
            assert row["outcome"] == "measured", (row["task"], row["error"], row["mismatch"])
            assert row["project_ms"] > 0 and row["agrees"]
    assert json.loads((tmp_path / "vs-library.json").read_text())["summary"] == record["summary"]
