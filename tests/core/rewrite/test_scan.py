"""The running-total rewriter: ``acc += term; out[i] = acc;`` becomes a terms kernel and
CUB's inclusive scan, ``out[i] = acc; acc += term;`` its exclusive scan; every other shape
of loop-carried total is refused with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht_core.contracts.task import Task
from regrapht_core.rewrite.protocol import RewriteContext
from regrapht_core.rewrite.scan import LibraryScan
from regrapht_core.tasks.extract import extract_task
from tests.core.rewrite.support import (
    compile_cuda,
    first_step,
    requires_nvcc,
    run_on_cpu,
    run_on_gpu,
)

SCAN = extract_task(
    "// regrapht: n = 1000; x[n] in ~ int(-1000, 1000); out[n] out\n"
    "void inclusive_scan(int n, const int* x, long long* out) {\n"
    "  long long running = 0;\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    running += x[i];\n"
    "    out[i] = running;\n"
    "  }\n"
    "}\n",
    "cpp",
    function="inclusive_scan",
)
ENERGY = extract_task(
    "// regrapht: n = 1000; x[n] in; e[n] out\n"
    "void energy(int n, const float* x, float* e) {\n"
    "  float total = 1.5f;\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    total += x[i] * x[i];  // squared amplitude\n"
    "    e[i] = total;\n"
    "  }\n"
    "}\n",
    "cpp",
    function="energy",
)

OFFSETS = extract_task(
    "// regrapht: n = 1000; counts[n] in ~ int(0, 9); offsets[n] out\n"
    "void offsets_of(int n, const int* counts, int* offsets) {\n"
    "  int next = 0;\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    offsets[i] = next;\n"
    "    next += counts[i];\n"
    "  }\n"
    "}\n",
    "cpp",
    function="offsets_of",
)
SHIFTED = extract_task(
    "// regrapht: n = 1000; x[n] in; e[n] out\n"
    "void shifted(int n, const double* x, double* e) {\n"
    "  double total = 2.5;\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    e[i] = total;\n"
    "    total += 0.5 * x[i];\n"
    "  }\n"
    "}\n",
    "cpp",
    function="shifted",
)
RUNMAX = extract_task(
    "// regrapht: n = 1000; x[n] in ~ normal(0, 1); out[n] out\n"
    "void runmax(int n, const float* x, float* out) {\n"
    "  if (n <= 0) return;\n"
    "  float m = x[0];\n"
    "  out[0] = m;\n"
    "  for (int i = 1; i < n; ++i) {\n"
    "    if (x[i] > m) m = x[i];\n"
    "    out[i] = m;\n"
    "  }\n"
    "}\n",
    "cpp",
    function="runmax",
)
RUNMIN = extract_task(
    "#include <algorithm>\n"
    "// regrapht: n = 1000; x[n] in ~ int(-1000, 1000); out[n] out\n"
    "void runmin(int n, const int* x, int* out) {\n"
    "  int m = 500;\n"
    "  for (int i = 0; i < n; ++i) {\n"
    "    m = std::min(m, x[i] / 2);\n"
    "    out[i] = m;\n"
    "  }\n"
    "}\n",
    "cpp",
    function="runmin",
)
TASKS = [SCAN, ENERGY, OFFSETS, SHIFTED, RUNMAX, RUNMIN]
IDS = ["integers", "floats", "exclusive", "exclusive-from-a-start", "running-max", "running-min"]


def scanned(task: Task) -> str:
    (candidate,) = LibraryScan().apply(task.source, RewriteContext(task))
    return candidate.code


def refusal(body: str, *, before: str = "  float total = 0.0f;\n", after: str = "") -> str:
    task = extract_task(
        "// regrapht: n = 1000; x[n] in; e[n] out\n"
        "void energy(int n, const float* x, float* e) {\n"
        f"{before}  for (int i = 0; i < n; ++i) {{ {body} }}\n{after}}}\n",
        "cpp",
        function="energy",
    )
    return LibraryScan().applies(task.source, RewriteContext(task)).reason


def test_a_running_total_becomes_a_terms_kernel_and_a_cub_scan() -> None:
    code, message = first_step(SCAN)
    assert code is not None, message
    assert code.startswith("#include <cub/device/device_scan.cuh>")
    assert "out[i] = static_cast<long long>(x[i]);" in code
    scan = "cub::DeviceScan::InclusiveSum(scan_temp, scan_bytes, d_out, d_out, count);"
    assert code.count(scan) == 2  # the size query, then the scan
    assert "cudaMemcpy(d_out, out" not in code  # every element is written: nothing to upload


def test_a_start_value_other_than_zero_is_added_to_the_first_term() -> None:
    code = scanned(ENERGY)
    assert "(i == 0 ? static_cast<float>(1.5f) + static_cast<float>(x[i] * x[i])" in code


def test_a_total_stored_before_its_term_is_added_is_an_exclusive_scan() -> None:
    """Offsets from counts (a CSR row pointer): ``out[0]`` is the start value."""
    code = scanned(OFFSETS)
    assert "offsets[i] = static_cast<int>(counts[i]);" in code
    scan = "cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, d_offsets, d_offsets, count);"
    assert code.count(scan) == 2
    shifted = scanned(SHIFTED)
    assert "::cuda::std::plus<double>{}, static_cast<double>(2.5), count);" in shifted
    assert "i == 0 ?" not in shifted, "the start value is the scan's, not the first term's"


def test_a_running_maximum_is_a_max_scan_with_the_loops_own_comparison() -> None:
    """From the second element (the first stored before the loop): the scan starts at
    ``out + 1``, the first term takes the start value in, and the operator is the loop's
    comparison, so ties and NaNs go as the loop sends them."""
    code = scanned(RUNMAX)
    assert "return (a < b) ? b : a;" in code
    scan = "cub::DeviceScan::InclusiveScan(scan_temp, scan_bytes, d_out + (1), d_out + (1), "
    assert code.count(scan + "scan_max_op{}, count);") == 2
    first = (
        "out[i] = i == 1 ? ((static_cast<float>(x[0]) < term) ? term : static_cast<float>(x[0]))"
    )
    assert first in code
    assert "if (term != term) term = static_cast<float>(-INFINITY);" in code, "NaN: no change"
    assert "cudaMemcpy(d_out, out" in code, "out[0], stored on the host, goes up"
    assert "return (b < a) ? b : a;" in scanned(RUNMIN), "std::min(m, t): t only if less"


@pytest.mark.parametrize(
    ("body", "before", "after", "reason"),
    [
        ("e[i] = total; if (x[i] > total) total = x[i];", "  float total = 0;\n", "", "stored"),
        ("if (x[i] > total) total = 2 * x[i]; e[i] = total;", "  float total = 0;\n", "", "not"),
        ("total = std::max(x[i], total); e[i] = total;", "  float total = 0;\n", "", "NaN"),
        (
            "total += x[i]; e[i] = total;",
            "  float total = 0.0f;\n  float* alias = &total;\n  *alias = 1.0f;\n",
            "",
            "changes the total",
        ),
        ("e[i] = total; total += x[i];", "  float total = 0.0f;\n", "  e[0] = total;\n", "after"),
        ("total += x[i]; e[i] = total;", "  float total = 0.0f;\n", "  e[0] = total;\n", "after"),
        ("total += x[i]; e[i] = total;", "  double total = 0.0;\n", "", "a scan of one type"),
        ("total += e[i]; e[i] = total;", "  float total = 0.0f;\n", "", "reads the total"),
        ("total /= x[i]; e[i] = total;", "  float total = 1.0f;\n", "", "not a running total"),
        ("total += x[i]; e[i] = 2 * total;", "  float total = 0.0f;\n", "", "not a running"),
    ],
)
def test_other_loop_carried_totals_are_refused_with_the_reason(
    body: str, before: str, after: str, reason: str
) -> None:
    assert reason in refusal(body, before=before, after=after)


def test_a_total_stored_away_from_the_loop_index_is_refused() -> None:
    reason = refusal("total += x[i]; e[n - 1 - i] = total;")
    assert "not at the loop index" in reason


@requires_nvcc
@pytest.mark.parametrize(
    "task", [SCAN, SHIFTED, RUNMAX], ids=["inclusive", "exclusive-from-a-start", "running-max"]
)
def test_the_candidates_compile_with_nvcc(task: Task, tmp_path: Path) -> None:
    compile_cuda(scanned(task), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_the_candidates_compute_what_the_reference_computes(task: Task, tmp_path: Path) -> None:
    assert run_on_cpu(task, scanned(task), tmp_path) == "PASS"


@pytest.mark.gpu
@requires_nvcc
@pytest.mark.parametrize("task", TASKS, ids=IDS)
def test_the_candidates_agree_with_the_reference_on_the_gpu(task: Task, tmp_path: Path) -> None:
    assert run_on_gpu(task, scanned(task), tmp_path) == "PASS"
