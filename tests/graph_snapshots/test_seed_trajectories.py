"""Seed trajectories under ``graph_snapshots/trajectories``: schema, entry signature, compilation.

Every trajectory file holds one task: a sequential C++ translation unit defining one entry host
function, and 2-5 optimization steps whose ``code`` is a full CUDA translation unit defining the
same entry function with the same signature. The sequential source must compile with ``g++`` and
every step with the real ``nvcc`` for sm_90 (compile only: no GPU is needed here).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from regrapht_core.errors import UnknownTechniqueError
from regrapht_core.graph.relabel import relabel
from regrapht_core.graph.trajectories import load_trajectory as load_with_graph_loader

TRAJECTORY_DIR = Path(__file__).resolve().parents[2] / "graph_snapshots" / "trajectories"
TRAJECTORY_FILES = sorted(TRAJECTORY_DIR.glob("*.json"))

TOP_LEVEL_KEYS = {"schema", "task", "description", "source", "verified_on", "steps"}
STEP_KEYS = {"think", "method", "detail", "code", "speedup"}
MIN_STEPS = 2
MAX_STEPS = 5
MIN_TASKS = 8
COMPILE_TIMEOUT_S = 240

# The technique chain each seed trajectory is meant to contribute, after relabelling its
# free-form method names onto the taxonomy. A method that relabels elsewhere (or not at all)
# would put the example on the wrong edge of the ReGraph.
EXPECTED_CHAINS: dict[str, tuple[str, ...]] = {
    "saxpy": ("parallelization", "grid_stride_loop", "read_only_cache", "vectorized_access"),
    "sum_reduction": (
        "atomics",
        "privatization",
        "grid_stride_loop",
        "warp_shuffle_reduction",
        "vectorized_access",
    ),
    "sgemm": ("parallelization", "shared_memory_tiling", "register_blocking", "loop_unrolling"),
    "jacobi_2d": (
        "parallelization",
        "transfer_minimization",
        "read_only_cache",
        "shared_memory_tiling",
    ),
    "histogram": ("atomics", "privatization", "grid_stride_loop", "vectorized_access"),
    "transpose": (
        "parallelization",
        "shared_memory_tiling",
        "bank_conflict_avoidance",
        "register_blocking",
    ),
    "spmv_csr": (
        "parallelization",
        "read_only_cache",
        "memory_coalescing",
        "launch_configuration",
    ),
    "softmax_rows": (
        "parallelization",
        "memory_coalescing",
        "warp_shuffle_reduction",
        "algorithmic_change",
        "fast_math",
    ),
    # Written by the rewriters (scripts/seed_trajectories.py), named by the suite's entry.
    "relu": ("parallelization", "launch_configuration"),
    "clamp_map": ("parallelization", "vectorized_access", "launch_configuration"),
    "hash_u32": ("parallelization", "grid_stride_loop", "launch_configuration"),
    "fir33": ("parallelization", "constant_memory", "loop_unrolling", "launch_configuration"),
    "sigmoid": ("parallelization", "fast_math"),
    "inclusive_scan": ("library_call", "launch_configuration"),
    "iir1": ("library_call", "grid_stride_loop"),
    "find_first_above": ("algorithmic_change", "read_only_cache"),
    "histogram_f32": ("privatization", "launch_configuration"),
    "gemv": ("parallelization", "launch_configuration", "loop_unrolling"),
    "sum_f32": ("parallelization", "pinned_memory"),
}

GXX_COMMAND = ("g++", "-std=c++17", "-O2", "-c")
NVCC_COMMAND = ("nvcc", "-std=c++17", "-O3", "-arch=sm_90", "-c")

# Constructs the seed examples must not teach (see the trajectory authoring rules).
FORBIDDEN_IN_CODE = {
    "a main() function": re.compile(r"\bint\s+main\s*\("),
    "printf": re.compile(r"\bprintf\s*\("),
    "iostream output": re.compile(r"\bstd::c(out|err)\b"),
    "managed memory": re.compile(r"\bcudaMallocManaged\b"),
    "inline assembly": re.compile(r"\basm\b\s*(volatile\s*)?\("),
    "streams": re.compile(r"\bcudaStream"),
}


def _ids(path: Path) -> str:
    return path.stem


def load_trajectory(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name}: top level must be a JSON object"
    return data


def _normalise(declaration: str) -> str:
    """Collapse whitespace and drop it around punctuation so formatting does not matter."""
    collapsed = " ".join(declaration.split())
    return re.sub(r"\s*([*&,()])\s*", r"\1", collapsed)


def entry_signatures(text: str, name: str) -> list[str]:
    """Normalised declarators of every top-level definition of ``name`` in ``text``.

    A top-level definition starts in column 0 with its return type, e.g.
    ``void saxpy(int n, float a, const float* x, float* y) {``; the parameter list may span
    lines. Kernels such as ``saxpy_kernel`` and indented calls do not match.
    """
    pattern = re.compile(
        r"^(?P<ret>[A-Za-z_][\w:<>*& \t]*?[ \t*&])"
        + re.escape(name)
        + r"[ \t]*\((?P<params>[^()]*)\)\s*\{",
        re.MULTILINE,
    )
    return [
        _normalise(f"{match.group('ret')}{name}({match.group('params')})")
        for match in pattern.finditer(text)
    ]


def test_trajectory_directory_holds_enough_tasks() -> None:
    assert TRAJECTORY_DIR.is_dir(), f"missing {TRAJECTORY_DIR}"
    assert len(TRAJECTORY_FILES) >= MIN_TASKS, [p.name for p in TRAJECTORY_FILES]


def test_signature_extraction() -> None:
    code = (
        "__global__ void saxpy_kernel(int n) {}\n"
        "void saxpy(int n, float a,\n            const float *x, float* y) {\n"
        "  saxpy(n, a, x, y);\n}\n"
    )
    assert entry_signatures(code, "saxpy") == ["void saxpy(int n,float a,const float*x,float*y)"]
    assert entry_signatures("void saxpy_kernel(int n) {}\n", "saxpy") == []
    assert entry_signatures("float* scale(int n) {\n}\n", "scale") == ["float*scale(int n)"]


@pytest.mark.parametrize("path", TRAJECTORY_FILES, ids=_ids)
def test_schema(path: Path) -> None:
    data = load_trajectory(path)
    assert set(data) == TOP_LEVEL_KEYS, f"{path.name}: keys {sorted(data)}"
    assert data["schema"] == 1
    assert data["task"] == path.stem, "file must be named <task>.json"
    assert re.fullmatch(r"[a-z][a-z0-9_]*", data["task"]), data["task"]
    for key in ("description", "source", "verified_on"):
        assert isinstance(data[key], str), f"{path.name}: {key} must be a string"
        assert data[key].strip(), f"{path.name}: {key} is empty"
    assert "\n" not in data["description"].strip(), "description must be one line"

    steps = data["steps"]
    assert isinstance(steps, list)
    assert MIN_STEPS <= len(steps) <= MAX_STEPS, f"{path.name}: {len(steps)} steps"
    previous_code = data["source"]
    for index, step in enumerate(steps):
        where = f"{path.name} step {index}"
        assert isinstance(step, dict), where
        assert set(step) == STEP_KEYS, f"{where}: keys {sorted(step)}"
        for key in ("think", "method", "detail", "code"):
            assert isinstance(step[key], str), f"{where}: {key} must be a string"
            assert step[key].strip(), f"{where}: {key} is empty"
        assert "\n" not in step["method"], f"{where}: method must be one line"
        speedup = step["speedup"]
        assert speedup is None or (
            isinstance(speedup, int | float) and not isinstance(speedup, bool) and speedup > 0
        ), f"{where}: speedup must be null or a positive number"
        assert step["code"] != previous_code, f"{where}: code unchanged by the step"
        previous_code = step["code"]


@pytest.mark.parametrize("path", TRAJECTORY_FILES, ids=_ids)
def test_graph_loader_accepts_file(path: Path) -> None:
    trajectory = load_with_graph_loader(path)
    data = load_trajectory(path)
    assert trajectory.task == data["task"]
    assert [step.method for step in trajectory.steps] == [s["method"] for s in data["steps"]]


@pytest.mark.parametrize("path", TRAJECTORY_FILES, ids=_ids)
def test_methods_relabel_onto_expected_techniques(path: Path) -> None:
    data = load_trajectory(path)
    chain: list[str] = []
    for index, step in enumerate(data["steps"]):
        try:
            chain.append(relabel(step["method"]))
        except UnknownTechniqueError as err:
            pytest.fail(f"{path.name} step {index}: {err}")
    assert data["task"] in EXPECTED_CHAINS, f"add the intended chain of {path.name} above"
    assert tuple(chain) == EXPECTED_CHAINS[data["task"]]


def test_expected_chains_name_existing_files() -> None:
    assert set(EXPECTED_CHAINS) == {path.stem for path in TRAJECTORY_FILES}


@pytest.mark.parametrize("path", TRAJECTORY_FILES, ids=_ids)
def test_entry_signature_is_preserved(path: Path) -> None:
    data = load_trajectory(path)
    task = data["task"]
    source_signatures = entry_signatures(data["source"], task)
    assert len(source_signatures) == 1, (
        f"{path.name}: the source must define exactly one entry function {task}(...), "
        f"found {source_signatures}"
    )
    expected = source_signatures[0]
    assert "__global__" not in data["source"], "the source must be sequential C++"
    assert not FORBIDDEN_IN_CODE["a main() function"].search(data["source"])
    for index, step in enumerate(data["steps"]):
        found = entry_signatures(step["code"], task)
        assert found == [expected], (
            f"{path.name} step {index}: entry definitions {found}, expected [{expected!r}]"
        )
        assert "__global__" in step["code"], f"{path.name} step {index}: no CUDA kernel"


@pytest.mark.parametrize("path", TRAJECTORY_FILES, ids=_ids)
def test_code_avoids_forbidden_constructs(path: Path) -> None:
    data = load_trajectory(path)
    for index, step in enumerate(data["steps"]):
        for what, pattern in FORBIDDEN_IN_CODE.items():
            match = pattern.search(step["code"])
            assert match is None, f"{path.name} step {index} uses {what}: {match.group(0)!r}"


@dataclass(frozen=True)
class CompileJob:
    label: str
    command: tuple[str, ...]
    source: Path
    output: Path


@dataclass(frozen=True)
class CompileResult:
    label: str
    returncode: int
    log: str


def run_compile(job: CompileJob) -> CompileResult:
    try:
        proc = subprocess.run(
            [*job.command, str(job.source), "-o", str(job.output)],
            capture_output=True,
            text=True,
            check=False,
            timeout=COMPILE_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return CompileResult(job.label, -1, f"timed out after {COMPILE_TIMEOUT_S}s")
    if proc.returncode == 0 and not job.output.is_file():
        return CompileResult(job.label, -2, "compiler exited 0 but wrote no object file")
    return CompileResult(job.label, proc.returncode, proc.stdout + proc.stderr)


@pytest.mark.slow
@pytest.mark.parametrize("path", TRAJECTORY_FILES, ids=_ids)
def test_trajectory_compiles(path: Path, tmp_path: Path) -> None:
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc is not on PATH: cannot compile the CUDA steps")
    data = load_trajectory(path)
    task = data["task"]

    jobs: list[CompileJob] = []
    source_file = tmp_path / f"{task}_sequential.cpp"
    source_file.write_text(data["source"], encoding="utf-8")
    jobs.append(CompileJob("sequential source", GXX_COMMAND, source_file, tmp_path / "seq.o"))
    for index, step in enumerate(data["steps"]):
        step_file = tmp_path / f"{task}_step{index}.cu"
        step_file.write_text(step["code"], encoding="utf-8")
        jobs.append(
            CompileJob(
                f"step {index} ({step['method']})",
                NVCC_COMMAND,
                step_file,
                tmp_path / f"step{index}.o",
            )
        )

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run_compile, jobs))

    assert len(results) == len(data["steps"]) + 1
    failures = [f"--- {r.label} (exit {r.returncode}):\n{r.log}" for r in results if r.returncode]
    assert not failures, f"{path.name}: compilation failed\n" + "\n".join(failures)
