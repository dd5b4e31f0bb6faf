"""The suite's answers against the library call a user would make instead, kernel time only.

A speedup over sequential C++ says nothing about how good a CUDA answer is; the library a
user already has (cuBLAS, CUB-class reductions and scans behind torch) does. For seven tasks
this takes the code a suite run returned (``regrapht bench run``: each run's ``code``),
builds it into a shared library, calls its entry through ``ctypes`` on the task's own inputs
(:func:`~regrapht_core.tasks.inputs.generate_inputs`, the verifier's generator, one fixed
seed) and sets its kernels' time beside the library's on the same inputs, at the task's
timing size (sgemm at n = 2048), with one instrument for both:

* ``torch.profiler`` with CUDA activities (CUPTI sees every kernel in the process, whichever
  runtime launched it; the answer links its own static cudart): a call's time is the sum of
  the durations of the kernels it launched, copies and memsets left out;
* each call in its own profiler window, the L2 overwritten (a 256 MiB write) before it,
  outside the window; median over ``--calls`` calls after ``--warmups``;
* the answer copies its inputs to the device inside the call, so its first kernel would
  start with the end of the last copy in L2, which the library's never does. Its launches
  are therefore wrapped (``-Xlinker --wrap``, as the verifier's harness does) and the first
  launch of each call is preceded by the same L2 overwrite (a memset on the launch's stream,
  not counted): ``project_ms``. The same calls without it are kept as
  ``project_ms_l2_from_copies``;
* the copy rate the shares are against: a device-to-device ``copy_`` of 2^26 floats, timed
  the same way (its ``cudaMemcpy`` counts here), bytes read plus written over time.

Every task runs in a child process of its own, so an answer that crashes or leaves the CUDA
context broken is recorded with its error and the run goes on. Run on the GPU machine
after ``source scripts/gpu-env.sh`` (torch with CUDA, nvcc)::

    python3 benchmarks/vs_library.py SUITE.json [--json benchmarks/results/gpu-h100-vs-library.json]

Writes the JSON (rewritten after each task, also into ``$OUT``) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.provenance import device_prefix, provenance
from regrapht_core.bench.runner import load_manifest
from regrapht_core.contracts.task import ParamKind, Role, SizeBinding, Task
from regrapht_core.files import atomic_write
from regrapht_core.tasks.dtypes import cxx_spelling, is_arithmetic, numpy_dtype
from regrapht_core.tasks.inputs import InputValue, generate_inputs
from regrapht_core.tasks.sizes import arg_length
from regrapht_core.verify.compare import first_mismatch
from regrapht_core.verify.compile import trim_log
from regrapht_core.verify.config import VerifyConfig
from regrapht_core.verify.harness import LINK_WRAPS
from regrapht_core.verify.objects import CANDIDATE_DEFINES
from regrapht_core.verify.pipeline import Verifier

__all__ = [
    "COMPARISONS",
    "Comparison",
    "DeviceTime",
    "HostCall",
    "Outcome",
    "agreement",
    "binding_for",
    "build_command",
    "bytes_moved",
    "device_time",
    "entry_glue",
    "main",
    "markdown",
    "share",
    "suite_answers",
    "summarise",
    "task_row",
]

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = ROOT / "benchmarks" / "tasks" / "manifest.toml"
RESULTS = ROOT / "benchmarks" / "results"
WITHIN = 1.25
"""The issue's bound on the answer's kernel time over the library's."""
SHARE_TARGET = 0.70
"""The issue's bound on the median memory-bound task's share of the copy rate."""
COPY_FLOATS = 1 << 26
FLUSH_BYTES = 256 << 20
"""Written before every timed call: five times the H100's 50 MiB L2."""
SEED = 0
"""One fixed draw of every task's inputs, so two runs time the same data."""
RETURN = "return"
"""The name a non-void entry's return value is compared and counted under."""
ENTRY = "regrapht_vs_library_entry"
ARM = "regrapht_vs_library_arm"
LAUNCH_APIS = tuple(symbol for symbol in LINK_WRAPS if "Launch" in symbol)
"""Every launch path the verifier's harness wraps (``LINK_WRAPS``), less the allocators."""
KERNELS = frozenset({"kernel"})
"""Kineto's trace category of a kernel; ``gpu_memcpy`` and ``gpu_memset`` are the others."""
COPIES = frozenset({"kernel", "gpu_memcpy"})
"""What the copy reference counts: torch copies contiguous tensors with ``cudaMemcpy``."""
CHILD_TIMEOUT_S = 300.0
COMPILE_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class Comparison:
    """One suite task and the library call it is held against."""

    task: str
    """The manifest's name."""
    library: str
    """The torch expression, as recorded in the results (argument names are the task's)."""
    memory_bound: bool
    size: Mapping[str, int] = field(default_factory=dict)
    """Size variables that differ from the task's timing size."""


COMPARISONS = (
    Comparison("map_clamp", "torch.clamp(x, lo, hi)", memory_bound=True),
    Comparison("reduce_sum", "torch.sum(x)", memory_bound=True),
    Comparison(
        "dense_sgemm",
        "torch.mm(A.view(n, n), B.view(n, n)) with allow_tf32 = False (cuBLAS fp32)",
        memory_bound=False,
        size={"n": 2048},
    ),
    Comparison("dense_transpose", "in.view(m, n).t().contiguous()", memory_bound=True),
    Comparison(
        "hist_u8",
        "hist + torch.bincount(data, minlength=256) (data uint8 as given; hist as int64)",
        memory_bound=True,
    ),
    Comparison("scan_inclusive", "torch.cumsum(x, 0, dtype=torch.int64)", memory_bound=True),
    Comparison("rows_softmax", "torch.softmax(x.view(rows, cols), dim=1)", memory_bound=True),
)


class Outcome(StrEnum):
    MEASURED = "measured"
    WRONG_OUTPUT = "wrong output"
    """Timed, but its outputs differ from the library's: counted as not within anything."""
    NOT_IN_SUITE = "not run in the suite"
    NOT_PASSED = "not passed in the suite"
    NO_CODE = "no code in the suite file"
    """Passed, in a results file older than the runs' ``code`` field."""
    COMPILE_ERROR = "compile error"
    FAILED = "failed"
    """Crashed, timed out, or the instrument saw no kernel: ``error`` says which."""


# --- What is moved, and how it compares (pure) ---------------------------------------------


def binding_for(comparison: Comparison, task: Task) -> dict[str, int | float]:
    """The task's timing size with the comparison's own sizes put in."""
    return {**task.timing_size, **comparison.size}


def _element_bytes(ctype: str, task: Task) -> int:
    return numpy_dtype(ctype, records=task.records).itemsize


def _check_plain(task: Task) -> None:
    """Pointers and number scalars by value, and a number or nothing returned: what the
    glue and the ``ctypes`` call handle (all seven tasks)."""
    for arg in task.args:
        plain_scalar = (
            arg.kind is ParamKind.SCALAR and arg.role is Role.IN and is_arithmetic(arg.ctype)
        )
        if arg.kind is not ParamKind.POINTER and not plain_scalar:
            raise ValueError(f"{task.name}: argument {arg.name!r} ({arg.kind}) is not supported")
    if task.returns != "void" and not is_arithmetic(task.returns):
        raise ValueError(f"{task.name}: return type {task.returns!r} is not supported")


def bytes_moved(task: Task, binding: SizeBinding) -> int:
    """The least traffic a call can make: every input array read once, every output written
    once (an in-out array both), the return value written; scalars are free."""
    _check_plain(task)
    total = 0
    for arg in task.args:
        if arg.kind is ParamKind.POINTER:
            size = arg_length(arg, binding) * _element_bytes(arg.ctype, task)
            total += size * (2 if arg.role is Role.INOUT else 1)
    if task.returns != "void":
        total += _element_bytes(task.returns, task)
    return total


def share(moved: int, ms: float | None, copy_bytes_per_s: float | None) -> float | None:
    """The call's rate (``moved`` bytes in ``ms``) as a fraction of the copy rate."""
    if ms is None or ms <= 0 or not copy_bytes_per_s:
        return None
    return moved / (ms / 1e3) / copy_bytes_per_s


def agreement(
    task: Task, want: Mapping[str, npt.NDArray[Any]], got: Mapping[str, npt.NDArray[Any]]
) -> str | None:
    """``None`` when every output of the answer (``got``) matches the library's (``want``,
    cast to the answer's element type): floats within the task's tolerance, integers
    exactly, the verifier's own comparison; else the first difference."""
    for name, values in got.items():
        if name not in want:
            return f"the library gave no {name!r}"
        expected = np.asarray(want[name]).reshape(-1).astype(values.dtype)
        found = first_mismatch(name, expected, values.reshape(-1), task.tolerance)
        if found is not None:
            return found
    return None


@dataclass(frozen=True, slots=True)
class DeviceTime:
    ms: float
    """Summed durations of the counted activities."""
    count: int
    names: tuple[str, ...]
    """The counted activities' names, in order of first appearance."""


def device_time(trace: Mapping[str, Any], categories: Iterable[str] = KERNELS) -> DeviceTime:
    """What one profiler window's Chrome trace (``export_chrome_trace``) spent on the GPU in
    ``categories``; Kineto writes durations in microseconds."""
    wanted = frozenset(categories)
    events = [
        event
        for event in trace.get("traceEvents", [])
        if event.get("ph") == "X" and event.get("cat") in wanted
    ]
    total_us = sum(float(event.get("dur", 0.0)) for event in events)
    names = tuple(dict.fromkeys(str(event.get("name", "")) for event in events))
    return DeviceTime(total_us / 1e3, len(events), names)


def suite_answers(document: Mapping[str, Any], method: str) -> dict[str, dict[str, Any]]:
    """Each task's run by ``method`` in a ``regrapht bench`` results document (the last one
    where a resumed file holds two)."""
    return {run["task"]: run for run in document.get("runs", []) if run.get("method") == method}


def suite_outcome(run: Mapping[str, Any] | None) -> tuple[Outcome | None, str | None]:
    """Why there is no code to measure (``None``: there is), and what the suite said."""
    if run is None:
        return Outcome.NOT_IN_SUITE, None
    if not run.get("passed"):
        return Outcome.NOT_PASSED, run.get("failure")
    if not run.get("code"):
        return Outcome.NO_CODE, "results written before runs recorded their code"
    return None, None


def _median(samples: Sequence[float] | None) -> float | None:
    return statistics.median(samples) if samples else None


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def task_row(
    comparison: Comparison,
    task: Task,
    run: Mapping[str, Any] | None,
    measured: Mapping[str, Any],
    copy_bytes_per_s: float | None,
) -> dict[str, Any]:
    """One task's record from what the suite said (``run``) and what the child measured
    (``measured``: sample lists ``project_ms``, ``project_ms_l2_from_copies``,
    ``library_ms``, kernel names, ``mismatch``, ``error``, and ``outcome`` where the task
    never reached the GPU)."""
    binding = binding_for(comparison, task)
    moved = bytes_moved(task, binding)
    project = _median(measured.get("project_ms"))
    library = _median(measured.get("library_ms"))
    outcome = measured.get("outcome")
    if outcome is None:
        if measured.get("error") or measured.get("library_error") or project is None:
            outcome = Outcome.FAILED
        else:
            outcome = Outcome.WRONG_OUTPUT if measured.get("mismatch") else Outcome.MEASURED
    ratio = project / library if project is not None and library else None
    counted = outcome == Outcome.MEASURED
    return {
        "task": comparison.task,
        "entry": task.entry,
        "size": binding,
        "library": comparison.library,
        "memory_bound": comparison.memory_bound,
        "suite": {key: run.get(key) for key in ("passed", "speedup", "kernel_ms", "techniques")}
        if run
        else None,
        "outcome": str(outcome),
        "error": measured.get("error"),
        "library_error": measured.get("library_error"),
        "log": measured.get("log"),
        "agrees": measured["mismatch"] is None if "mismatch" in measured else None,
        "mismatch": measured.get("mismatch"),
        "project_ms": _round(project),
        "library_ms": _round(library),
        "project_ms_l2_from_copies": _round(_median(measured.get("project_ms_l2_from_copies"))),
        "ratio": _round(ratio),
        "within_1_25": counted and ratio is not None and ratio <= WITHIN,
        "bytes_moved": moved,
        "project_share_of_copy": _round(share(moved, project, copy_bytes_per_s))
        if counted and comparison.memory_bound
        else None,
        "library_share_of_copy": _round(share(moved, library, copy_bytes_per_s))
        if comparison.memory_bound
        else None,
        "samples_ms": {
            key: [round(v, 4) for v in measured.get(key) or []]
            for key in ("project_ms", "project_ms_l2_from_copies", "library_ms")
        },
        "kernels": {key: measured.get(key) for key in ("project_kernels", "library_kernels")},
    }


def summarise(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The issue's two questions. A memory-bound task without a measured, agreeing answer
    counts as a share of 0: it reaches nothing."""
    within = [row["task"] for row in rows if row["within_1_25"]]
    bound = [row for row in rows if row["memory_bound"]]
    project = [row["project_share_of_copy"] or 0.0 for row in bound]
    library = [row["library_share_of_copy"] for row in bound if row["library_share_of_copy"]]
    median = _round(statistics.median(project)) if project else None
    reaches = median is not None and median >= SHARE_TARGET
    all_within = bool(rows) and len(within) == len(rows)
    return {
        "tasks": len(rows),
        "measured": sum(1 for row in rows if row["outcome"] == Outcome.MEASURED),
        "within_1_25": within,
        "all_within_1_25": all_within,
        "memory_bound": [row["task"] for row in bound],
        "median_project_share_of_copy": median,
        "median_library_share_of_copy": _round(statistics.median(library)) if library else None,
        "share_target": SHARE_TARGET,
        "median_reaches_target": reaches,
        "done_when_met": all_within and reaches,
    }


def _cell(value: float | None, form: str) -> str:
    return "—" if value is None else format(value, form)


def markdown(record: Mapping[str, Any]) -> str:
    """The table printed after a run: one row per task, then the copy rate and verdicts."""
    lines = [
        "| task | outcome | project ms | library ms | ratio | within 1.25x "
        "| MB moved | project % of copy | library % of copy |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in record["tasks"]:
        lines.append(
            f"| {row['task']} | {row['outcome']} | {_cell(row['project_ms'], '.4f')} "
            f"| {_cell(row['library_ms'], '.4f')} | {_cell(row['ratio'], '.2f')} "
            f"| {'yes' if row['within_1_25'] else 'no'} | {row['bytes_moved'] / 1e6:.1f} "
            f"| {_cell(_percent(row['project_share_of_copy']), '.0f')} "
            f"| {_cell(_percent(row['library_share_of_copy']), '.0f')} |"
        )
    copy = record.get("copy") or {}
    summary = record.get("summary") or {}
    rate = copy.get("bytes_per_s")
    lines += [
        "",
        f"copy: {copy['ms']:.4f} ms for {copy['bytes'] / 2**20:.0f} MiB read + written = "
        f"{rate / 1e9:.0f} GB/s"
        if rate
        else f"copy: not measured ({copy.get('error')})",
        f"within 1.25x: {len(summary.get('within_1_25', []))} of {summary.get('tasks', 0)}",
        f"median project share of copy (memory-bound): "
        f"{_cell(_percent(summary.get('median_project_share_of_copy')), '.0f')}% "
        f"(target {SHARE_TARGET:.0%}: {'yes' if summary.get('median_reaches_target') else 'no'})",
    ]
    return "\n".join(lines)


def _percent(fraction: float | None) -> float | None:
    return None if fraction is None else 100.0 * fraction


# --- Building the answer (CPU) --------------------------------------------------------------


def _param(ctype: str, name: str, pointer: bool) -> str:
    spelled = cxx_spelling(ctype)
    return f"{spelled}* {name}" if pointer else f"{spelled} {name}"


def entry_glue(task: Task) -> str:
    """C++ declaring the entry (as the harness does) and an ``extern "C"`` function that
    calls it, so ``ctypes`` finds it by a plain name: pointers are passed non-const (a
    ``const T*`` parameter takes them), numbers by value."""
    _check_plain(task)
    params = ", ".join(
        _param(arg.ctype, arg.name, arg.kind is ParamKind.POINTER) for arg in task.args
    )
    names = ", ".join(arg.name for arg in task.args)
    declaration = (task.declaration or task.signature).strip().rstrip(";")
    return (
        f"{declaration};\n\n"
        f'extern "C" {task.returns} {ENTRY}({params}) {{\n'
        f"  return {task.entry}({names});\n"
        "}\n"
    )


LAUNCH_FLUSH = """
#include <cuda_runtime.h>
#include <cstddef>

// The answer's first launch in a call waits behind an L2 overwrite, so its kernels start
// with the cache as cold as the library's do (its own input copies would have warmed it).
namespace {
void* g_flush = nullptr;
size_t g_flush_bytes = 0;
unsigned g_round = 0;

void flush_once(cudaStream_t stream) {
  if (g_flush_bytes == 0) return;
  const size_t bytes = g_flush_bytes;
  g_flush_bytes = 0;
  cudaMemsetAsync(g_flush, static_cast<int>(++g_round & 0xFF), bytes, stream);
}
}  // namespace

extern "C" void regrapht_vs_library_arm(void* buffer, size_t bytes) {
  g_flush = buffer;
  g_flush_bytes = bytes;
}

extern "C" cudaError_t __real___cudaLaunchKernel(cudaKernel_t, dim3, dim3, void**, size_t,
                                                  cudaStream_t);
extern "C" cudaError_t __wrap___cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block,
                                                  void** args, size_t shared, cudaStream_t stream) {
  flush_once(stream);
  return __real___cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}
extern "C" cudaError_t __real_cudaLaunchKernel(const void*, dim3, dim3, void**, size_t,
                                                cudaStream_t);
extern "C" cudaError_t __wrap_cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block,
                                                void** args, size_t shared, cudaStream_t stream) {
  flush_once(stream);
  return __real_cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}
extern "C" cudaError_t __real_cudaLaunchKernelExC(const cudaLaunchConfig_t*, const void*, void**);
extern "C" cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t* config,
                                                   const void* kernel, void** args) {
  flush_once(config->stream);
  return __real_cudaLaunchKernelExC(config, kernel, args);
}
extern "C" cudaError_t __real_cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t,
                                                           cudaStream_t);
extern "C" cudaError_t __wrap_cudaLaunchCooperativeKernel(const void* kernel, dim3 grid,
                                                           dim3 block, void** args,
                                                           size_t shared, cudaStream_t stream) {
  flush_once(stream);
  return __real_cudaLaunchCooperativeKernel(kernel, grid, block, args, shared, stream);
}
"""
"""The launch wrappers (``LAUNCH_APIS``) and ``regrapht_vs_library_arm``."""


def build_command(nvcc: str, arch: str, sources: Sequence[Path], output: Path) -> list[str]:
    """nvcc as the verifier compiles a candidate (``-O3 -std=c++17``, its defines for CUB),
    as a shared library, with every launch wrapped."""
    command = [nvcc, "-shared", "-Xcompiler", "-fPIC", "-O3", "-std=c++17", f"-arch={arch}"]
    command += [f"-D{define}" for define in CANDIDATE_DEFINES]
    command += [*map(str, sources), "-o", str(output)]
    for symbol in LAUNCH_APIS:
        command += ["-Xlinker", f"--wrap={symbol}"]
    return command


def build_answer(task: Task, code: str, work: Path, *, nvcc: str, arch: str) -> Path:
    """The answer and its glue as ``work/<task>.so``; raises ``RuntimeError`` with the first
    compiler errors."""
    folder = work / task.name
    folder.mkdir(parents=True, exist_ok=True)
    answer, glue, output = folder / "answer.cu", folder / "glue.cu", folder / "answer.so"
    answer.write_text(code, encoding="utf-8")
    glue.write_text(entry_glue(task) + LAUNCH_FLUSH, encoding="utf-8")
    command = build_command(nvcc, arch, [answer, glue], output)
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=COMPILE_TIMEOUT_S
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"nvcc took more than {COMPILE_TIMEOUT_S:.0f} s") from None
    if done.returncode != 0 or not output.exists():
        raise RuntimeError(trim_log(done.stderr + done.stdout, work_dir=folder) or "nvcc failed")
    return output


# --- Calling the answer from Python ---------------------------------------------------------


def _ctypes_type(ctype: str) -> Any:
    """The ``ctypes`` type of a number type (numpy's stubs type this per literal dtype)."""
    convert: Callable[[np.dtype[Any]], Any] = np.ctypeslib.as_ctypes_type
    return convert(numpy_dtype(ctype))


class HostCall:
    """A task's arguments as host arrays and numbers, and the ``ctypes`` call of its entry.

    Inputs are drawn once; in-out arrays are restored and outputs poisoned (all-ones bytes,
    a NaN for floats) by :meth:`prepare`, so every call starts alike and an output the
    answer never writes shows as a difference.
    """

    def __init__(self, task: Task, binding: SizeBinding, seed: int = SEED) -> None:
        _check_plain(task)
        self.task = task
        self.binding = dict(binding)
        self.inputs: dict[str, InputValue] = generate_inputs(task, binding, seed)
        """Scalars and ``in``/``inout`` arrays as drawn (never handed to the answer)."""
        self.buffers: dict[str, npt.NDArray[Any]] = {}
        for arg in task.args:
            if arg.kind is not ParamKind.POINTER:
                continue
            if arg.role is Role.IN:
                self.buffers[arg.name] = np.ascontiguousarray(self.inputs[arg.name])
            else:
                dtype = numpy_dtype(arg.ctype, records=task.records)
                self.buffers[arg.name] = np.empty(arg_length(arg, binding), dtype=dtype)
        self.returned: object = None
        self.prepare()

    def prepare(self) -> None:
        for arg in self.task.outputs:
            buffer = self.buffers[arg.name]
            if arg.role is Role.INOUT:
                np.copyto(buffer, np.asarray(self.inputs[arg.name]))
            else:
                buffer.view(np.uint8).fill(0xFF)

    def bind(self, function: Any) -> Callable[[], None]:
        """``function`` (the entry's ``ctypes`` symbol) with its argument and return types set
        and every argument bound; calling the result calls the entry once."""
        argtypes: list[Any] = []
        values: list[Any] = []
        for arg in self.task.args:
            if arg.kind is ParamKind.POINTER:
                argtypes.append(ctypes.c_void_p)
                values.append(self.buffers[arg.name].ctypes.data)
            else:
                argtypes.append(_ctypes_type(arg.ctype))
                values.append(self.inputs[arg.name])
        function.argtypes = argtypes
        function.restype = None if self.task.returns == "void" else _ctypes_type(self.task.returns)

        def call() -> None:
            self.returned = function(*values)

        return call

    def outputs(self) -> dict[str, npt.NDArray[Any]]:
        """Copies of what the last call wrote (and returned, as ``RETURN``)."""
        found = {arg.name: self.buffers[arg.name].copy() for arg in self.task.outputs}
        if self.task.returns != "void":
            found[RETURN] = np.array([self.returned], dtype=numpy_dtype(self.task.returns))
        return found


# --- The library side (torch; any device) ---------------------------------------------------


LibraryCall = Callable[[Mapping[str, Any]], dict[str, Any]]
"""The task's values by argument name (tensors for arrays, numbers for scalars) to its
outputs by name, as tensors."""


def library_calls() -> dict[str, LibraryCall]:
    """What :data:`COMPARISONS` describe, as calls (torch imported here: the pure parts of
    this module run without it)."""
    import torch

    return {
        "map_clamp": lambda a: {"y": torch.clamp(a["x"], a["lo"], a["hi"])},
        "reduce_sum": lambda a: {RETURN: torch.sum(a["x"])},
        "dense_sgemm": lambda a: {
            "C": torch.mm(a["A"].view(a["n"], a["n"]), a["B"].view(a["n"], a["n"]))
        },
        "dense_transpose": lambda a: {"out": a["in"].view(a["m"], a["n"]).t().contiguous()},
        "hist_u8": lambda a: {"hist": a["hist"] + torch.bincount(a["data"], minlength=256)},
        "scan_inclusive": lambda a: {"out": torch.cumsum(a["x"], 0, dtype=torch.int64)},
        "rows_softmax": lambda a: {"y": torch.softmax(a["x"].view(a["rows"], a["cols"]), dim=1)},
    }


def library_values(inputs: Mapping[str, InputValue], device: str) -> dict[str, Any]:
    """The drawn inputs as torch values on ``device``; unsigned integers wider than a byte
    become int64 (torch's own unsigned types lack most operations). Done once, untimed."""
    import torch

    values: dict[str, Any] = {}
    for name, value in inputs.items():
        if isinstance(value, np.ndarray):
            array = (
                value.astype(np.int64) if value.dtype.kind == "u" and value.itemsize > 1 else value
            )
            values[name] = torch.from_numpy(np.ascontiguousarray(array)).to(device)
        else:
            values[name] = value
    return values


def host_arrays(outputs: Mapping[str, Any]) -> dict[str, npt.NDArray[Any]]:
    return {name: tensor.detach().cpu().numpy() for name, tensor in outputs.items()}


# --- The GPU child: one task, or the copy rate ----------------------------------------------


class _Instrument:
    """One profiler window per call, the L2 overwritten just before it."""

    def __init__(self, work: Path) -> None:
        import torch

        self.torch = torch
        self.flush_buffer = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
        self._round = 0
        self._trace = work / "trace.json"

    def flush(self) -> None:
        self._round += 1
        self.flush_buffer.fill_(self._round & 0xFF)
        self.torch.cuda.synchronize()

    def window(self, call: Callable[[], object], categories: Iterable[str]) -> DeviceTime:
        from torch.profiler import ProfilerActivity, profile

        self.flush()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            call()
            self.torch.cuda.synchronize()
        prof.export_chrome_trace(str(self._trace))
        timed = device_time(json.loads(self._trace.read_text(encoding="utf-8")), categories)
        if timed.count == 0:
            raise RuntimeError("the profiler saw no kernel in the call: nothing to time")
        return timed

    def series(
        self,
        calls: Sequence[Callable[[], object]],
        job: Mapping[str, Any],
        categories: Iterable[str] = KERNELS,
        before: Callable[[], None] = lambda: None,
    ) -> list[_Series]:
        """``job["warmups"]`` untimed rounds, then ``job["calls"]`` timed ones; a round calls
        each of ``calls`` once, in turn, each after ``before`` (outside its window)."""
        found = [_Series() for _ in calls]
        for round_ in range(job["warmups"] + job["calls"]):
            for series, call in zip(found, calls, strict=True):
                before()
                timed = self.window(call, categories)
                if round_ >= job["warmups"]:
                    series.ms.append(timed.ms)
                    series.names.update(dict.fromkeys(timed.names))
        return found


@dataclass(slots=True)
class _Series:
    ms: list[float] = field(default_factory=list)
    names: dict[str, None] = field(default_factory=dict)
    """Every counted activity's name, in order of first appearance."""


def _failure(err: Exception) -> str:
    return f"{type(err).__name__}: {err}"[:600]


def _write(to: Path, record: Mapping[str, Any]) -> None:
    atomic_write(to, json.dumps(record).encode("utf-8"))


def measure_copy(job: Mapping[str, Any], to: Path, work: Path) -> None:
    instrument = _Instrument(work)
    torch = instrument.torch
    source = torch.rand(COPY_FLOATS, device="cuda")
    target = torch.empty_like(source)
    (series,) = instrument.series([lambda: target.copy_(source)], job, COPIES)
    moved = 2 * COPY_FLOATS * source.element_size()
    ms = statistics.median(series.ms)
    _write(
        to,
        {
            "what": f"torch copy_ of {COPY_FLOATS} float32 on the device (counts kernels and "
            "cudaMemcpy)",
            "bytes": moved,
            "ms": round(ms, 4),
            "samples_ms": [round(v, 4) for v in series.ms],
            "bytes_per_s": moved / (ms / 1e3),
            "activities": list(series.names),
            "torch": torch.__version__,
            "torch_cuda": torch.version.cuda,
            "torch_device": torch.cuda.get_device_name(),
        },
    )


def measure_task(job: Mapping[str, Any], to: Path, work: Path) -> None:
    """The library's calls, then (where there is an answer) the answer's: its outputs against
    the library's, then its calls with and without the L2 overwrite before its first launch,
    alternating. ``to`` is rewritten after each part, so a crash keeps what came before; an
    exception in a part is recorded (``library_error``, ``error``) and the next part runs."""
    entry = {e.name: e for e in load_manifest(Path(job["manifest"]))}[job["name"]]
    task = entry.task()
    host = HostCall(task, job["binding"])
    instrument = _Instrument(work)
    instrument.torch.backends.cuda.matmul.allow_tf32 = False
    record: dict[str, Any] = {}
    want: dict[str, npt.NDArray[Any]] | None = None
    try:
        values = library_values(host.inputs, "cuda")
        library = library_calls()[job["name"]]
        want = host_arrays(library(values))
        (series,) = instrument.series([lambda: library(values)], job)
        record |= {"library_ms": series.ms, "library_kernels": list(series.names)}
    except Exception as err:  # anything torch raises; the answer is still measured
        record["library_error"] = _failure(err)
    _write(to, record)
    if job.get("answer") is None:
        return
    try:
        record |= _measure_answer(job["answer"], host, instrument, job, want)
    except Exception as err:  # the answer's, or the instrument's: recorded, not raised
        record["error"] = _failure(err)
    _write(to, record)


def _measure_answer(
    path: str,
    host: HostCall,
    instrument: _Instrument,
    job: Mapping[str, Any],
    want: Mapping[str, npt.NDArray[Any]] | None,
) -> dict[str, Any]:
    lib = ctypes.CDLL(path)
    call = host.bind(lib[ENTRY])
    arm = lib[ARM]
    arm.argtypes, arm.restype = [ctypes.c_void_p, ctypes.c_size_t], None
    host.prepare()
    call()
    found: dict[str, Any] = {}
    if want is not None:
        found["mismatch"] = agreement(host.task, want, host.outputs())

    def armed() -> None:
        arm(instrument.flush_buffer.data_ptr(), FLUSH_BYTES)
        call()

    cold, warm = instrument.series([armed, call], job, before=host.prepare)
    return found | {
        "project_ms": cold.ms,
        "project_ms_l2_from_copies": warm.ms,
        "project_kernels": list(cold.names),
    }


def _child(job_path: Path, to: Path | None) -> int:
    if to is None:
        raise SystemExit("--job needs --to")
    job = json.loads(job_path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="regrapht-vs-library-") as work:
        if job["kind"] == "copy":
            measure_copy(job, to, Path(work))
        else:
            measure_task(job, to, Path(work))
    return 0


# --- The run --------------------------------------------------------------------------------


def _in_child(job: Mapping[str, Any], work: Path) -> dict[str, Any]:
    """Run ``job`` in a fresh interpreter; what it wrote, with ``error`` (exit status and the
    last line of its stderr) and ``log`` (the end of its stderr) where it did not finish."""
    job_path, to = work / f"{job['name']}.job.json", work / f"{job['name']}.result.json"
    job_path.write_text(json.dumps(job), encoding="utf-8")
    command = [sys.executable, "-m", "benchmarks.vs_library", "--job", str(job_path)]
    failed: dict[str, str] = {}
    try:
        done = subprocess.run(
            [*command, "--to", str(to)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
            timeout=CHILD_TIMEOUT_S,
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            failed = {"error": f"exit {done.returncode}: {last}"[:600], "log": done.stderr[-3000:]}
    except subprocess.TimeoutExpired:
        failed = {"error": f"timed out after {CHILD_TIMEOUT_S:.0f} s"}
    found: dict[str, Any] = json.loads(to.read_text(encoding="utf-8")) if to.exists() else {}
    return found | failed


def _build_all(
    tasks: Mapping[str, Task], codes: Mapping[str, str], work: Path, nvcc: str, arch: str
) -> dict[str, Path | str]:
    """Every answer compiled at once (nvcc in parallel): its library, or the compiler's
    errors."""

    def build(name: str) -> Path | str:
        try:
            return build_answer(tasks[name], codes[name], work, nvcc=nvcc, arch=arch)
        except (RuntimeError, OSError, ValueError) as err:
            return str(err)

    with ThreadPoolExecutor(max_workers=max(1, min(len(codes), os.cpu_count() or 1))) as pool:
        return dict(zip(codes, pool.map(build, codes), strict=True))


def _save(path: Path, record: Mapping[str, Any]) -> None:
    """``path`` and, where the device machine collects files, ``$OUT/<name>``."""
    data = (json.dumps(record, indent=1) + "\n").encode("utf-8")
    atomic_write(path, data)
    if out := os.environ.get("OUT"):
        atomic_write(Path(out) / path.name, data)


def run(
    suite: Path,
    out: Path | None,
    *,
    method: str = "mcgs",
    calls: int = 15,
    warmups: int = 2,
    manifest: Path = MANIFEST,
    command: str = "python3 benchmarks/vs_library.py",
    only: Sequence[str] = (),
) -> dict[str, Any]:
    """Compare ``method``'s answers in the ``suite`` results file with the libraries, writing
    ``out`` (default: named for the GPU) after each task; the copy rate first, then the
    tasks one child at a time (``only``: these tasks alone, e.g. to try one task's
    variants)."""
    comparisons = [c for c in COMPARISONS if not only or c.task in only]
    verifier = Verifier(VerifyConfig())
    if verifier.device is None:
        raise SystemExit("no GPU: this benchmark times kernels on one")
    out = out or RESULTS / f"{device_prefix(verifier.device.name)}-vs-library.json"
    document = json.loads(suite.read_text(encoding="utf-8"))
    entries = {entry.name: entry for entry in load_manifest(manifest)}
    tasks = {c.task: entries[c.task].task() for c in comparisons}
    answers = suite_answers(document, method)
    codes = {
        name: str(answers[name]["code"])
        for name in tasks
        if suite_outcome(answers.get(name))[0] is None
    }
    record: dict[str, Any] = {
        "benchmark": "suite answers against the library call, kernel time only",
        **provenance(verifier, command),
        "suite": {
            "file": str(suite),
            "method": method,
            **{key: document.get(key) for key in ("commit", "device", "command", "config")},
        },
        "instrument": (
            "torch.profiler CUDA activities; per call the summed durations of its kernels, "
            f"one window per call after a {FLUSH_BYTES >> 20} MiB L2 overwrite; median of "
            f"{calls} calls after {warmups} warm-ups; project_ms also overwrites L2 before "
            "the answer's first launch (its input copies would have warmed it)"
        ),
        "calls": calls,
        "warmups": warmups,
        "seed": SEED,
        "copy": None,
        "tasks": [],
    }
    with tempfile.TemporaryDirectory(prefix="regrapht-vs-library-") as folder:
        work = Path(folder)
        built = _build_all(tasks, codes, work, verifier.config.nvcc, verifier.compiler.arch)
        base = {"calls": calls, "warmups": warmups}
        record["copy"] = _in_child({**base, "kind": "copy", "name": "copy"}, work)
        rate = record["copy"].get("bytes_per_s")
        for comparison in comparisons:
            name, task = comparison.task, tasks[comparison.task]
            outcome, said = suite_outcome(answers.get(name))
            library = built.get(name)
            job = {
                **base,
                "kind": "task",
                "name": name,
                "manifest": str(manifest),
                "binding": binding_for(comparison, task),
                "answer": str(library) if isinstance(library, Path) else None,
            }
            measured = _in_child(job, work)
            if outcome is None and isinstance(library, str):
                outcome, said = Outcome.COMPILE_ERROR, library
            if outcome is not None:
                failed = measured.get("error")
                library_failed = f"measuring the library: {failed}" if failed else None
                said = "; ".join(part for part in (said, library_failed) if part) or None
                measured |= {"outcome": outcome, "error": said}
            record["tasks"].append(task_row(comparison, task, answers.get(name), measured, rate))
            record["summary"] = summarise(record["tasks"])
            _save(out, record)
    return record


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 benchmarks/vs_library.py")
    parser.add_argument("suite", nargs="?", type=Path, help="a `regrapht bench` results JSON")
    parser.add_argument(
        "--json",
        type=Path,
        help="where the results go (default: benchmarks/results/gpu-<gpu>-vs-library.json)",
    )
    parser.add_argument("--method", default="mcgs", help="whose answers (default mcgs)")
    parser.add_argument("--calls", type=int, default=15, help="timed calls per side (>= 10)")
    parser.add_argument("--warmups", type=int, default=2, help="untimed calls first")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        choices=[c.task for c in COMPARISONS],
        help="compare only this task (repeatable)",
    )
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)
    parser.add_argument("--job", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--to", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.job is not None:
        return _child(args.job, args.to)
    if args.suite is None:
        parser.error("the suite's results JSON is required")
    if args.calls < 10:
        parser.error("--calls must be at least 10")
    command = " ".join(["python3 benchmarks/vs_library.py", *(argv or sys.argv[1:])])
    record = run(
        args.suite,
        args.json,
        method=args.method,
        calls=args.calls,
        warmups=args.warmups,
        manifest=args.manifest,
        command=command,
        only=args.only,
    )
    sys.stdout.write(markdown(record) + "\n")
    return 0 if record["copy"] and record["copy"].get("bytes_per_s") else 1


if __name__ == "__main__":
    sys.exit(main())
