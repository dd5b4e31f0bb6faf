"""Complex sums: a ``std::complex`` accumulator reduces as two sums of its parts.

The cases are extracted as a user's file would be and given a first step by the rewriter
proposer. The kernel sums each part per thread, shuffles and shares the parts as scalars,
and adds them into the two halves of the device accumulator. The slow tests compile the
candidates with nvcc and run them on the CPU emulator against the sequential reference
(libcu++'s ``cuda::std::complex`` is host code too), with a broken candidate as a control.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.core.rewrite.support import (
    EMULATOR,
    NVCC,
    compile_cuda,
    first_step,
    launches_to_calls,
    requires_nvcc,
    unvalidated_task,
)

DOTC = """#include <complex>
#include <vector>
std::complex<double> dotc(const std::vector<std::complex<double>>& a,
                          const std::vector<std::complex<double>>& b) {
    std::complex<double> acc(0.0, 0.0);
    for (size_t i = 0; i < a.size(); ++i) acc += std::conj(a[i]) * b[i];
    return acc;
}
"""

WEIGHTED = """#include <complex>
#include <vector>
std::complex<float> weighted(const std::vector<std::complex<float>>& a,
                             const std::vector<std::complex<float>>& b) {
    std::complex<float> acc = std::complex<float>(1.0f, -2.0f);
    for (size_t i = 0; i < a.size(); ++i) acc = acc + a[i] * b[i] * 0.5f;
    return acc;
}
"""

DIFFERENCE = """#include <complex>
#include <vector>
std::complex<double> difference(const std::vector<std::complex<double>>& a,
                                const std::vector<std::complex<double>>& b) {
    std::complex<double> acc;
    for (size_t i = 0; i < a.size(); ++i) acc -= a[i] - 2.0 * b[i];
    return acc;
}
"""

INTO_REFERENCE = """#include <complex>
#include <vector>
void total(const std::vector<std::complex<float>>& z, std::complex<float>& sum) {
    for (size_t i = 0; i < z.size(); ++i) sum += z[i];
}
"""

SUMS = {"dotc": DOTC, "weighted": WEIGHTED, "difference": DIFFERENCE, "total": INTO_REFERENCE}
PARTS = {"dotc": "double", "weighted": "float", "difference": "double", "total": "float"}
RUNS = {
    "dotc": "{f}(a, b)",
    "weighted": "{f}(a, b)",
    "difference": "{f}(a, b)",
    "total": "[&] {{ C s(0.25, -1.5); {f}(a, s); return s; }}()",
}
"""How the emulator test calls each entry ``f`` (``a`` and ``b`` are vectors of ``C``)."""


def _candidate(function: str) -> str:
    code, message = first_step(unvalidated_task(SUMS[function], function))
    assert code is not None, message
    return code


@pytest.mark.parametrize("function", sorted(SUMS))
def test_a_complex_sum_adds_both_parts_once_per_block(function: str) -> None:
    code = _candidate(function)
    part = PARTS[function]
    halves = re.findall(rf"atomicAdd\(reinterpret_cast<{part}\*>\((\w+)\)( \+ 1)?, (\w+)\);", code)
    assert [h[1] for h in halves] == ["", " + 1"], "one atomic per part, real part first"
    assert halves[0][2].endswith("_re") and halves[1][2].endswith("_im")
    assert f"__shared__ {part} {halves[0][2]}_warps[32];" in code
    assert f"__shfl_down_sync(0xffffffffu, {halves[1][2]}, offset)" in code
    assert f"cuda::std::complex<{part}>* {halves[0][0]}" in code, "the accumulator is complex"


def test_a_thread_starts_its_complex_sum_at_zero() -> None:
    code = _candidate("weighted")
    assert "cuda::std::complex<float> acc = cuda::std::complex<float>();" in code
    assert "cudaMemcpy(d_acc, &acc, sizeof(cuda::std::complex<float>)" in code, (
        "the host's starting value (1 - 2i) is added once, through the device accumulator"
    )


@pytest.mark.parametrize(
    "update",
    [
        "acc *= a[i] * b[i]",
        "acc = acc * (a[i] + b[i])",
        "acc = a[i] - b[i]",
        "acc = std::conj(acc) + a[i] * b[i]",
    ],
)
def test_other_complex_updates_are_refused_as_not_sums(update: str) -> None:
    source = DOTC.replace("acc += std::conj(a[i]) * b[i]", update)
    code, message = first_step(unvalidated_task(source, "dotc"))
    assert code is None
    assert "a complex accumulator is reduced only as a sum" in message, message
    assert f"`{update.replace('std::', 'cuda::std::')}`" in message, "quoted as device code"


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("function", sorted(SUMS))
def test_complex_sums_compile_with_nvcc(function: str, tmp_path: Path) -> None:
    compile_cuda(_candidate(function), tmp_path)


def _libcu_includes() -> list[str]:
    """libcu++ (``cuda/std/complex``) ships with nvcc; g++ reads it as host C++."""
    assert NVCC is not None
    argv = [NVCC, "--dryrun", "-x", "cu", "-c", "/dev/null", "-o", "/dev/null"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60)
    found = sorted(set(re.findall(r'"([^"]*cccl)"', done.stdout + done.stderr)))
    assert found, "nvcc names no libcu++ include directory"
    return [flag for path in found for flag in ("-isystem", path)]


def _main(function: str) -> str:
    part, run = PARTS[function], RUNS[function]
    got, want = run.format(f=function), run.format(f=f"reference_{function}")
    signature = next(line for line in SUMS[function].splitlines() if f"{function}(" in line)
    declaration = SUMS[function][SUMS[function].index(signature) :].split("{", 1)[0]
    reference = declaration.replace(f"{function}(", f"reference_{function}(", 1)
    return f"""#include <complex>
#include <cstdio>
#include <vector>
using C = std::complex<{part}>;
{declaration};
{reference};
int main() {{
  bool ok = true;
  for (size_t n : {{0, 1, 31, 257, 4099, 70001}}) {{
    std::vector<C> a(n), b(n);
    for (size_t k = 0; k < n; ++k) {{
      a[k] = C(std::sin(0.37 * k), std::cos(0.11 * k));
      b[k] = C(0.5 - std::cos(0.23 * k), std::sin(0.71 * k));
    }}
    const C got = {got};
    const C want = {want};
    if (std::abs(got - want) > 1e-3 * (1.0 + std::abs(want))) {{
      std::printf("MISMATCH n=%zu got (%g, %g) want (%g, %g)\\n", n, double(got.real()),
                  double(got.imag()), double(want.real()), double(want.imag()));
      ok = false;
    }}
  }}
  std::puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}}
"""


def _run_on_cpu(function: str, candidate: str, work: Path) -> str:
    """``PASS`` when the emulated candidate agrees with the reference on every size."""
    (work / "candidate.cpp").write_text(launches_to_calls(candidate))
    (work / "reference.cpp").write_text(SUMS[function])
    (work / "main.cpp").write_text(_main(function))
    gxx = ["g++", "-std=c++20", "-O1", "-pthread"]
    steps = [
        [*gxx, f"-I{EMULATOR}", *_libcu_includes(), "-c", "candidate.cpp", "-o", "candidate.o"],
        [*gxx, f"-D{function}=reference_{function}", "-c", "reference.cpp", "-o", "reference.o"],
        [*gxx, "-c", "main.cpp", "-o", "main.o"],
        [*gxx, "candidate.o", "reference.o", "main.o", "-o", "run"],
    ]
    for argv in steps:
        done = subprocess.run(
            argv, check=False, cwd=work, capture_output=True, text=True, timeout=240
        )
        assert done.returncode == 0, f"{argv}:\n{done.stderr}\n--- code ---\n{candidate}"
    done = subprocess.run(
        ["./run"], check=False, cwd=work, capture_output=True, text=True, timeout=240
    )
    return (done.stdout + done.stderr).strip()


@pytest.mark.slow
@requires_nvcc
@pytest.mark.parametrize("function", sorted(SUMS))
def test_complex_sums_compute_what_the_reference_computes(function: str, tmp_path: Path) -> None:
    assert _run_on_cpu(function, _candidate(function), tmp_path) == "PASS"


@pytest.mark.slow
@requires_nvcc
def test_the_cpu_check_catches_a_part_added_to_the_wrong_half(tmp_path: Path) -> None:
    code = _candidate("dotc")
    broken = code.replace(
        "reinterpret_cast<double*>(acc_total) + 1,", "reinterpret_cast<double*>(acc_total),"
    )
    assert broken != code
    assert _run_on_cpu("dotc", broken, tmp_path) != "PASS"
