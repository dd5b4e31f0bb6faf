"""Complex, struct, pair and bool elements, std::array parameters, scalar references and
returned vectors on the verifier's side: comparison member by member, variants, the output
window, and the harness itself (host build run for real against the validation driver's
outputs; the candidate build compiled with nvcc)."""

from __future__ import annotations

import mmap
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from regrapht_core.contracts.task import Record, RecordField, SourceLanguage, Task, Tolerance
from regrapht_core.tasks.dtypes import numpy_dtype
from regrapht_core.tasks.extract import extract_task
from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.tasks.validate import validate_task
from regrapht_core.verify.cases import (
    build_case,
    outputs_from_window,
    window_bytes,
)
from regrapht_core.verify.compare import first_mismatch
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.harness import HarnessKind, harness_source
from regrapht_core.verify.variants import draw_variant, encode
from tests.core.verify.host_harness import HostRun

TOLERANCE = Tolerance(atol=1e-5, rtol=1e-4)
POINT = (Record("Point", (RecordField("x", "float"), RecordField("y", "float"))),)

KITCHEN = """
#include <array>
#include <complex>
#include <cstddef>
#include <utility>
#include <vector>

struct Vec3 {
    float v[3];
};

struct Particle {
    Vec3 pos;
    Vec3 vel;
    int id;
    bool alive;
};

typedef struct {
    double re, im;
} Cell;

struct Change { int a; };  // the harness has a type of this name too

constexpr int TAPS = 4;

// regrapht: n = 1<<12
std::vector<float> kitchen(const std::vector<Particle>& ps, std::vector<Particle>& moved,
                           const std::vector<std::complex<float>>& z,
                           std::vector<std::complex<float>>& zz, const std::vector<bool>& keep,
                           std::vector<bool>& flags, const std::array<float, TAPS>& w,
                           float& total, int& count, Cell c, const std::pair<int, float>* pairs,
                           double& scale, Change* changes) {
    std::vector<float> out(ps.size());
    count = 0;
    total = 0.0f;
    for (size_t i = 0; i < ps.size(); ++i) {
        Particle p = ps[i];
        for (int k = 0; k < 3; ++k) p.pos.v[k] += p.vel.v[k] * w[k];
        p.alive = keep[i];
        moved[i] = p;
        zz[i] = z[i] * std::complex<float>(static_cast<float>(c.re), static_cast<float>(c.im));
        flags[i] = keep[i] && p.pos.v[0] > 0.0f;
        out[i] = p.pos.v[1] + pairs[i].second * static_cast<float>(pairs[i].first % 7);
        total += out[i];
        if (flags[i]) ++count;
        changes[i].a += 1;
    }
    scale *= 2.0;
    return out;
}
"""


@pytest.fixture(scope="module")
def kitchen() -> Task:
    return extract_task(KITCHEN, SourceLanguage.CPP, function="kitchen", validate=False)


# comparison ---------------------------------------------------------------------------------


def _points(values: list[tuple[float, float]]) -> np.ndarray:
    return np.array(values, dtype=numpy_dtype("Point", records=POINT))


def test_a_struct_output_names_the_member_that_differs() -> None:
    want = _points([(1.0, 2.0)] * 20)
    got = want.copy()
    got["y"][17] = 0.5
    want["y"][17] = 0.25
    got["x"][19] = 9.0
    message = first_mismatch("out", want, got, TOLERANCE)
    assert message == (
        "output 'out' differs at out[17].y: got 0.5, want 0.25 (2 of 20 elements differ)"
    )
    within = want.copy()
    within["x"] += 1e-6
    assert first_mismatch("out", want, within, TOLERANCE) is None


def test_struct_members_keep_their_own_rules() -> None:
    dtype = np.dtype(
        {"names": ["row", "value", "flag"], "formats": ["<i4", "<f8", "?"]}, align=True
    )
    want = np.zeros(4, dtype)
    want["value"] = [1.0, np.nan, np.inf, 2.0]
    got = want.copy()
    # NaN and infinity where the reference has them
    assert first_mismatch("t", want, got, TOLERANCE) is None
    got["row"][3] = 1  # integers are exact
    assert "t[3].row: got 1, want 0" in (first_mismatch("t", want, got, TOLERANCE) or "")
    got = want.copy()
    got.view(np.uint8)[dtype.itemsize * 2 + 5] = 0xEF  # padding after 'row' never counts
    assert first_mismatch("t", want, got, TOLERANCE) is None
    got = want.copy()
    got["value"][1] = 0.0  # a number where the reference has NaN
    assert "t[1].value" in (first_mismatch("t", want, got, TOLERANCE) or "")
    got = want.copy()
    got.view(np.uint8)[dtype.fields["flag"][1]] = 0xEF  # type: ignore[index]
    assert "t[0].flag: got 239, want 0" in (first_mismatch("t", want, got, TOLERANCE) or "")


def test_nested_members_and_fixed_arrays_are_named() -> None:
    records = (
        Record("Vec3", (RecordField("v", "float", 3),)),
        Record("Body", (RecordField("corners", "Vec3", 2), RecordField("id", "int"))),
    )
    dtype = numpy_dtype("Body", records=records)
    want = np.zeros(3, dtype)
    got = want.copy()
    got["corners"]["v"][2, 1, 2] = 1.0
    assert "b[2].corners[1].v[2]: got 1.0, want 0.0" in (
        first_mismatch("b", want, got, TOLERANCE) or ""
    )


def test_complex_numbers_compare_part_by_part() -> None:
    want = np.array([1 + 1j, 2 - 2j, 3 + 0j], dtype=np.complex64)
    got = want.copy()
    got[1] += 1e-5j  # within rtol * |imag|
    assert first_mismatch("z", want, got, TOLERANCE) is None
    got[2] += 0.1j  # |want.imag| = 0: only atol allows, whatever |want| is
    assert first_mismatch("z", want, got, TOLERANCE) == (
        "output 'z' differs at z[2].imag: got 0.10000000149011612, want 0.0 "
        "(1 of 3 elements differ)"
    )


def test_an_unwritten_bool_is_not_true() -> None:
    want = np.array([True, False, True])
    got = np.frombuffer(bytes([0xEF, 0, 1]), dtype=np.bool_)
    assert "index 0: expected 1, got 239" in (first_mismatch("m", want, got, None) or "")


# cases, variants, window --------------------------------------------------------------------


def test_cases_variants_and_the_window_cover_every_kind(kitchen: Task) -> None:
    binding = {"n": 257}
    case = build_case(kitchen, binding, 11, generate_inputs)
    sizes = {a.name: array.size for a, array in zip(kitchen.args, case.arrays, strict=True)}
    assert sizes == {
        "ps": 257,
        "moved": 257,
        "z": 257,
        "zz": 257,
        "keep": 257,
        "flags": 257,
        "w": 4,
        "total": 1,
        "count": 1,
        "c": 1,
        "pairs": 257,
        "scale": 1,
        "changes": 257,
    }
    assert case.arrays[0].dtype.itemsize == 32 and case.arrays[9].dtype.names == ("re", "im")
    assert case.arrays[11].tolist() == [0.5]  # an inout reference starts at its value
    variant = draw_variant(kitchen, case.arrays, np.random.default_rng(2))
    changed = {kitchen.args[c.arg].name: c for c in variant}
    assert set(changed) == {"ps", "z", "keep", "w", "pairs", "changes"}
    assert encode(changed["ps"]).startswith(f"change 0 32 {int(changed['ps'].positions[0])}:")
    outputs = ["moved", "zz", "flags", "total", "count", "scale", "changes"]
    element_bytes = {"moved": 32, "zz": 8, "flags": 1, "changes": 4}
    expected = sum(-(-257 * element_bytes[o] // 64) * 64 for o in element_bytes) + 3 * 64
    assert window_bytes(kitchen, [case]) == expected + -(-257 * 4 // 64) * 64  # return[n] floats
    with mmap.mmap(-1, 1 << 16) as window:
        counts = [str(257 * element_bytes.get(o, 1)) for o in outputs]
        counts[3:6] = ["4", "4", "8"]
        got = outputs_from_window(kitchen, window, [*counts, str(257 * 4)])
        assert got is not None and list(got) == [*outputs, "return"]
        assert got["moved"].dtype == case.arrays[1].dtype and got["return"].size == 257


# the harness ---------------------------------------------------------------------------------


@pytest.fixture
def run(tmp_path: Path) -> Iterator[object]:
    compiler = Compiler(tmp_path / "objects", "sm_90")
    runs: list[HostRun] = []

    def start(task: Task, source: str) -> HostRun:
        sizes = task.correctness_sizes[2:4]
        runs.append(
            HostRun(compiler, task, source, tmp_path / f"run{len(runs)}", sizes=sizes, seed=5)
        )
        return runs[-1]

    yield start
    for started in runs:
        started.close()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_harness_writes_what_the_validation_driver_writes(run, kitchen: Task) -> None:  # type: ignore[no-untyped-def]
    """The same inputs through two different C++ drivers (both built from the task): every
    output equal, member by member, on two calls in a row (vectors the entry resizes, and
    references it writes, start each call as loaded)."""
    started = run(kitchen, kitchen.source)
    expected = validate_task(kitchen, sizes=started.sizes, seed=5)
    for k, want in enumerate(expected):
        for _ in range(2):
            started.harness.load(f"case{k}")
            started.harness.call(flush=False)
            dumped = started.harness.dump()
            assert dumped.modified is None
            assert sorted(dumped.outputs) == sorted(want.outputs)
            for name, array in want.outputs.items():
                assert dumped.outputs[name].dtype == array.dtype
                assert first_mismatch(name, array, dumped.outputs[name], None) is None, name
    case = started.cases[-1]
    variant = draw_variant(kitchen, case.arrays, np.random.default_rng(4))
    started.harness.use(variant)
    started.harness.call(flush=False)
    assert started.harness.dump().modified is None
    started.harness.quit()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_unwritten_and_wrong_members_are_caught(run, kitchen: Task) -> None:  # type: ignore[no-untyped-def]
    lazy = kitchen.source.replace("moved[i] = p;", "if (i > 0) moved[i] = p;").replace(
        "count = 0;", ""
    )
    started = run(kitchen, lazy)
    want = validate_task(kitchen, sizes=started.sizes[-1:], seed=5)[0].outputs
    started.harness.load("case1")
    started.harness.call(flush=False)
    got = started.harness.dump().outputs
    assert "moved[0].pos.v[0]: got nan" in (
        first_mismatch("moved", want["moved"], got["moved"], TOLERANCE) or ""
    )
    # poisoned before the call and never set: the increments start from 0xDEADBEEF
    assert int(got["count"].view(np.uint32)[0]) - 0xDEADBEEF == int(want["count"][0])
    started.harness.quit()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_the_candidate_harness_compiles_with_nvcc(tmp_path: Path, kitchen: Task) -> None:
    """Every new kind in one task: struct, nested struct, typedef'd struct, complex, pair and
    bool vectors, std::array, T& references, a by-value struct, a returned vector, and a
    record named like a harness type."""
    compiler = Compiler(tmp_path, "sm_90")
    outcome = compiler.cuda_object(harness_source(kitchen, HarnessKind.CANDIDATE))
    assert outcome.ok, outcome.log
    source = harness_source(kitchen, HarnessKind.CANDIDATE)
    assert "static_assert(sizeof(regrapht_layout_1) == 32" in source  # Particle
    assert "Buffer< ::Change> a12;" in source
