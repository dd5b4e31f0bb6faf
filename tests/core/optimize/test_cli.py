"""``regrapht optimize`` end to end: real task extraction, real rewriters, real nvcc, and (on
the slow path) the real embedded model. Without a GPU the answer is compile-only; on the
device the same command must return verified, faster code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from regrapht_core.cli import EXIT_USER_ERROR, main
from regrapht_core.graph.paths import snapshot_path
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.optimize.cli import EXIT_NOTHING_FOUND
from regrapht_core.optimize.record import HEADER_MARK
from tests.conftest import gpu_present

EXAMPLE = Path(__file__).parents[3] / "examples" / "smooth.cpp"
SNAPSHOT = snapshot_path()

needs_no_gpu = pytest.mark.skipif(gpu_present(), reason="the compile-only path needs no GPU")


@pytest.fixture
def example(tmp_path: Path) -> Path:
    return Path(shutil.copy(EXAMPLE, tmp_path / "smooth.cpp"))


def optimize(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["optimize", *args])
    return result.exit_code, result.stderr


def trace_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@needs_no_gpu
def test_without_gpu_rewriters_give_compile_only_code(example: Path, tmp_path: Path) -> None:
    out, trace = tmp_path / "out" / "smooth.cu", tmp_path / "trace.jsonl"
    code, err = optimize(
        str(example), "--function", "smooth", "--no-model", "--budget", "6",
        "--out", str(out), "--trace", str(trace),
    )  # fmt: skip
    assert code == 0, err
    assert "No GPU found" in err and "compiled only - not run, not timed" in err
    written = out.read_text()
    assert written.startswith(f"{HEADER_MARK} compiled only - not run, not timed")
    assert "techniques: Parallelization" in written
    assert "__global__" in written and "void smooth(int n, const float* x, float* y)" in written
    records = trace_of(trace)
    assert len(records) == 6
    assert records[0]["producer"] == "rewriter:parallelization"
    assert {r["result"]["status"] for r in records} <= {"not_run", "no_code"}  # type: ignore[index]
    assert example.read_text() == EXAMPLE.read_text()


def test_code_that_cannot_become_a_task_is_a_clear_error(tmp_path: Path) -> None:
    source = tmp_path / "scan.cpp"
    source.write_text("void scan(int n, float* x) { for (int i = 1; i < n; ++i) x[i] += x[i-1]; }")
    code, err = optimize(str(source), "--function", "nothere", "--no-model")
    assert code == EXIT_USER_ERROR
    assert "nothere" in err and "Traceback" not in err


def test_a_missing_model_file_is_a_clear_error(example: Path, tmp_path: Path) -> None:
    code, err = optimize(str(example), "--function", "smooth", "--model", "/no/such/model.gguf")
    assert code == EXIT_USER_ERROR
    assert "/no/such/model.gguf" in err and "Traceback" not in err


@needs_no_gpu
def test_nothing_compiled_exits_non_zero_with_the_reasons(tmp_path: Path) -> None:
    source = tmp_path / "scan.cpp"
    source.write_text(
        "// regrapht: n = 1000; x[n] inout\n"
        "void scan(int n, float* x) { for (int i = 1; i < n; ++i) x[i] += x[i-1]; }\n"
    )
    code, err = optimize(str(source), "--function", "scan", "--no-model", "--budget", "3")
    assert code == EXIT_NOTHING_FOUND
    assert "No verified faster code found" in err and "no_code" in err
    assert "dependence" in err or "depends" in err


@pytest.mark.slow
@needs_no_gpu
def test_embedded_model_and_rewriters_share_one_search(example: Path, tmp_path: Path) -> None:
    """The real SmolLM2 answers the steps no rewriter can; its answers are checked like any."""
    out, trace = tmp_path / "smooth.cu", tmp_path / "trace.jsonl"
    code, err = optimize(
        str(example), "--function", "smooth", "--budget", "4", "--time-limit", "240",
        "--out", str(out), "--trace", str(trace),
    )  # fmt: skip
    assert code == 0, err
    producers = [str(r["producer"]) for r in trace_of(trace)]
    assert producers[0] == "rewriter:parallelization"
    assert "model:smollm2-135m-instruct" in producers
    assert "model: smollm2-135m-instruct" in out.read_text()


@pytest.mark.gpu
def test_on_the_gpu_the_bundled_example_gets_verified_faster_code(
    example: Path, tmp_path: Path
) -> None:
    out, snapshot = tmp_path / "smooth.cu", Path(shutil.copy(SNAPSHOT, tmp_path / "g.msgpack"))
    before = load_snapshot(snapshot).graph.example_count
    code, err = optimize(
        str(example), "--function", "smooth", "--no-model", "--budget", "8", "--out", str(out),
        "--snapshot", str(snapshot), "--learn",
    )  # fmt: skip
    assert code == 0, err
    header = out.read_text().splitlines()[0]
    assert header.startswith(HEADER_MARK) and "x faster than the sequential smooth" in header
    assert "verified on" in header
    assert "verified step(s) into" in err
    learned = load_snapshot(snapshot)
    assert learned.graph.example_count > before and learned.build.builder == "regrapht learn"
    assert any(
        e.task == "smooth" and e.speedup is not None
        for u, v in learned.graph.edges
        for e in learned.graph.examples(u, v)
    )


@needs_no_gpu
def test_learning_never_takes_compile_only_code(example: Path, tmp_path: Path) -> None:
    snapshot = Path(shutil.copy(SNAPSHOT, tmp_path / "g.msgpack"))
    code, err = optimize(
        str(example), "--function", "smooth", "--no-model", "--budget", "2",
        "--out", str(tmp_path / "o.cu"), "--snapshot", str(snapshot), "--learn",
    )  # fmt: skip
    assert code == 0, err
    assert "nothing learned" in err
    assert snapshot.read_bytes() == SNAPSHOT.read_bytes()


KERNEL_EXAMPLE = Path(__file__).parents[3] / "examples" / "kernels" / "saxpy.cu"


def optimize_kernel(out: Path, trace: Path, *, budget: int) -> tuple[int, str]:
    return optimize(
        str(KERNEL_EXAMPLE), "--function", "saxpy_kernel", "--no-model", "--budget", str(budget),
        "--out", str(out), "--trace", str(trace),
    )  # fmt: skip


@needs_no_gpu
def test_a_kernel_is_optimized_as_a_kernel_from_the_edges_after_parallelization(
    tmp_path: Path,
) -> None:
    out, trace = tmp_path / "k.cu", tmp_path / "k.jsonl"
    code, err = optimize_kernel(out, trace, budget=3)
    assert code == 0, err
    records = trace_of(trace)
    assert records and all(r["technique"] != "parallelization" for r in records)
    assert {r["result"]["status"] for r in records} <= {"not_run", "no_code"}  # type: ignore[index]
    written = out.read_text()
    assert written.startswith(f"{HEADER_MARK} compiled only - not run, not timed")
    assert "__global__ void saxpy_kernel(" in written and "cudaMalloc" not in written


@pytest.mark.gpu
def test_on_the_gpu_a_kernel_candidate_is_verified_against_the_original_kernel(
    tmp_path: Path,
) -> None:
    out, trace = tmp_path / "k.cu", tmp_path / "k.jsonl"
    code, err = optimize_kernel(out, trace, budget=4)
    statuses = [r["result"]["status"] for r in trace_of(trace)]  # type: ignore[index]
    assert "verified" in statuses, (statuses, err)
    assert all(s in ("verified", "no_code") for s in statuses), statuses
    if code == 0:  # a faster kernel was found: the header says kernel-only
        assert "kernel_only" in out.read_text()
    else:
        assert code == EXIT_NOTHING_FOUND and "verified" in err
