"""Ordinary C++ entry functions as tasks (issue 17): complex, struct, pair and bool elements,
scalar references, std::array parameters, returned vectors and structs.

Each function is extracted with ``validate=True`` (its reference runs under AddressSanitizer
through the validation driver, ``static_assert``s on every layout included); where the
values matter, the driver's outputs are checked against numpy on the same inputs.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from regrapht_core.contracts.task import (
    ArgSpec,
    Distribution,
    ParamKind,
    Record,
    RecordField,
    Role,
    SourceLanguage,
    Task,
)
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import c_type_name, cxx_spelling, is_integer, numpy_dtype
from regrapht_core.tasks.extract import extract_task, suggested_annotation
from regrapht_core.tasks.inputs import generate_inputs
from regrapht_core.tasks.validate import ValidationRun, driver_source, validate_task

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ to validate")

COMPLEX_MUL = """
#include <complex>
#include <cstddef>
#include <vector>
void complex_multiply(const std::vector<std::complex<float>>& a,
                      const std::vector<std::complex<float>>& b,
                      std::vector<std::complex<float>>& c) {
    for (size_t i = 0; i < c.size(); ++i) c[i] = a[i] * b[i];
}
"""

POINT_SHIFT = """
#include <vector>
struct Point { float x, y; };
void shift_points(std::vector<Point>& pts, float dx, float dy) {
    for (auto& p : pts) {
        p.x += dx;
        p.y += dy;
    }
}
"""

PARTICLES = """
#include <vector>
#include <cstddef>
struct Particle {
    float x, y, z;
    float vx, vy, vz;
};
void integrate(std::vector<Particle>& particles, float dt, float gravity) {
    for (size_t i = 0; i < particles.size(); ++i) {
        Particle& p = particles[i];
        p.vz -= gravity * dt;
        p.x += p.vx * dt;
        p.y += p.vy * dt;
        p.z += p.vz * dt;
    }
}
"""

TRIPLETS = """
#include <vector>
#include <cstddef>
struct Triplet {
    int row, col;
    double value;
};
void scale_coo(std::vector<Triplet>& entries, double alpha) {
    for (std::size_t k = 0; k < entries.size(); ++k) {
        entries[k].value *= alpha;
        if (entries[k].row == entries[k].col) entries[k].value += 1.0;
    }
}
"""

PIXELS = """
#include <cstddef>
#include <cstdint>
#include <vector>
struct Pixel { uint8_t r, g, b; };
void to_gray(const std::vector<Pixel>& image, std::vector<uint8_t>& gray) {
    for (size_t i = 0; i < image.size(); ++i) {
        const Pixel& px = image[i];
        gray[i] = static_cast<uint8_t>((77u * px.r + 150u * px.g + 29u * px.b) >> 8);
    }
}
"""

PAIRS = """
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>
void to_polar(const std::vector<std::pair<float, float>>& xy, std::vector<float>& radius) {
    for (size_t i = 0; i < xy.size(); ++i)
        radius[i] = std::sqrt(xy[i].first * xy[i].first + xy[i].second * xy[i].second);
}
"""

MASK = """
#include <cstddef>
#include <vector>
void masked_fill(const std::vector<float>& x, const std::vector<bool>& mask,
                 std::vector<float>& y, std::vector<bool>& positive, float fill) {
    for (size_t i = 0; i < x.size(); ++i) {
        y[i] = mask[i] ? x[i] : fill;
        positive[i] = x[i] > 0.0f;
    }
}
"""

SUM_REF = """
#include <cstddef>
#include <vector>
void sum_into(const std::vector<float>& x, float& result) {
    float acc = 0.0f;
    for (size_t i = 0; i < x.size(); ++i) acc += x[i];
    result = acc;
}
"""

COUNT_REF = """
#include <vector>
void count_above(const std::vector<int>& values, int threshold, int& count) {
    count = 0;
    for (int i = 0; i < static_cast<int>(values.size()); i++)
        if (values[i] > threshold) ++count;
}
"""

ACCUMULATE = """
void accumulate(const float* x, int n, double& total) {
    for (int i = 0; i < n; ++i) total += x[i];
}
"""

FILTER = """
#include <array>
#define TAPS 9
void fir(const float* in, float* out, int n, const std::array<float, TAPS>& w) {
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; ++k) acc += w[k] * in[i + k];
        out[i] = acc;
    }
}
"""

RELU = """
#include <cstddef>
#include <vector>
std::vector<float> leaky_relu(const std::vector<float>& x, float slope) {
    std::vector<float> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] > 0.0f ? x[i] : slope * x[i];
    return out;
}
"""

STATS = """
typedef struct {
    float lo, hi;
    double mean;
    int count;
} Stats;
Stats summarize(const float* x, int n) {
    Stats s = {x[0], x[0], 0.0, n};
    for (int i = 0; i < n; ++i) {
        if (x[i] < s.lo) s.lo = x[i];
        if (x[i] > s.hi) s.hi = x[i];
        s.mean += x[i];
    }
    s.mean /= n;
    return s;
}
"""

NESTED = """
#include <cstdint>
struct Vec3 { float v[3]; };
struct Body {
    Vec3 pos;
    Vec3 vel;
    uint16_t id;
    bool alive;
};
void step(Body* bodies, int n, float dt) {
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) bodies[i].pos.v[k] += dt * bodies[i].vel.v[k];
}
"""

DISTANCES = """
#include <cmath>
#include <cstddef>
#include <vector>
struct Point { float x, y; };
void distances(const std::vector<Point>& pts, Point center, std::vector<float>& dist) {
    for (size_t i = 0; i < pts.size(); ++i) {
        const float dx = pts[i].x - center.x;
        const float dy = pts[i].y - center.y;
        dist[i] = std::sqrt(dx * dx + dy * dy);
    }
}
"""

DOTC = """
#include <complex>
#include <cstddef>
#include <vector>
using namespace std;
complex<double> dotc(const vector<complex<double>>& a, const vector<complex<double>>& b) {
    complex<double> acc(0.0, 0.0);
    for (size_t i = 0; i < a.size(); ++i) acc += conj(a[i]) * b[i];
    return acc;
}
"""


def _extract(source: str, function: str, *, validate: bool = True) -> Task:
    return extract_task(
        source, SourceLanguage.CPP, function=function, origin="t.cpp", validate=validate
    )


def _runs(task: Task) -> tuple[ValidationRun, ...]:
    """The driver's outputs at two small sizes, seed 0 (what ``generate_inputs`` draws)."""
    sizes = [b for b in task.correctness_sizes if dict(b) != dict(task.timing_size)][2:4]
    return validate_task(task, sizes=sizes)


def _args(task: Task) -> list[tuple[str, str, str, str, str | None]]:
    return [(a.name, a.kind.value, a.ctype, a.role.value, a.length or a.value) for a in task.args]


@needs_gxx
@pytest.mark.parametrize(
    ("source", "function", "expected"),
    [
        (
            COMPLEX_MUL,
            "complex_multiply",
            [
                ("a", "vector", "complex<float>", "in", "n"),
                ("b", "vector", "complex<float>", "in", "n"),
                ("c", "vector", "complex<float>", "out", "n"),
            ],
        ),
        (
            POINT_SHIFT,
            "shift_points",
            [
                ("pts", "vector", "Point", "inout", "n"),
                ("dx", "scalar", "float", "in", "0.5"),
                ("dy", "scalar", "float", "in", "2.5"),
            ],
        ),
        (
            PARTICLES,
            "integrate",
            [
                ("particles", "vector", "Particle", "inout", "n"),
                ("dt", "scalar", "float", "in", "0.5"),
                ("gravity", "scalar", "float", "in", "2.5"),
            ],
        ),
        (
            TRIPLETS,
            "scale_coo",
            [
                ("entries", "vector", "Triplet", "inout", "n"),
                ("alpha", "scalar", "double", "in", "0.5"),
            ],
        ),
        (
            PIXELS,
            "to_gray",
            [("image", "vector", "Pixel", "in", "n"), ("gray", "vector", "uint8_t", "out", "n")],
        ),
        (
            PAIRS,
            "to_polar",
            [
                ("xy", "vector", "pair<float, float>", "in", "n"),
                ("radius", "vector", "float", "out", "n"),
            ],
        ),
        (
            MASK,
            "masked_fill",
            [
                ("x", "vector", "float", "in", "n"),
                ("mask", "vector", "bool", "in", "n"),
                ("y", "vector", "float", "out", "n"),
                ("positive", "vector", "bool", "out", "n"),
                ("fill", "scalar", "float", "in", "3.25"),
            ],
        ),
        (
            SUM_REF,
            "sum_into",
            [("x", "vector", "float", "in", "n"), ("result", "scalar", "float", "out", "0.5")],
        ),
        (
            COUNT_REF,
            "count_above",
            [
                ("values", "vector", "int", "in", "n"),
                ("threshold", "scalar", "int", "in", "3"),
                ("count", "scalar", "int", "out", "3"),
            ],
        ),
        (
            ACCUMULATE,
            "accumulate",
            [
                ("x", "pointer", "float", "in", "n"),
                ("n", "scalar", "int", "in", "n"),
                ("total", "scalar", "double", "inout", "2.5"),
            ],
        ),
        (
            FILTER,
            "fir",
            [
                ("in", "pointer", "float", "in", "n + 8"),
                ("out", "pointer", "float", "out", "n"),
                ("n", "scalar", "int", "in", "n"),
                ("w", "array", "float", "in", "9"),
            ],
        ),
        (
            RELU,
            "leaky_relu",
            [("x", "vector", "float", "in", "n"), ("slope", "scalar", "float", "in", "0.5")],
        ),
        (
            STATS,
            "summarize",
            [("x", "pointer", "float", "in", "n"), ("n", "scalar", "int", "in", "n")],
        ),
        (
            NESTED,
            "step",
            [
                ("bodies", "pointer", "Body", "inout", "n"),
                ("n", "scalar", "int", "in", "n"),
                ("dt", "scalar", "float", "in", "2.5"),
            ],
        ),
        (
            DISTANCES,
            "distances",
            [
                ("pts", "vector", "Point", "in", "n"),
                ("center", "scalar", "Point", "in", None),
                ("dist", "vector", "float", "out", "n"),
            ],
        ),
        (
            DOTC,
            "dotc",
            [
                ("a", "vector", "complex<double>", "in", "n"),
                ("b", "vector", "complex<double>", "in", "n"),
            ],
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and v.isidentifier() else "",
)
def test_extracts_and_validates_under_asan(source: str, function: str, expected: list) -> None:  # type: ignore[type-arg]
    task = _extract(source, function)
    assert _args(task) == expected


@needs_gxx
def test_records_carry_the_c_layout() -> None:
    triplets = _extract(TRIPLETS, "scale_coo", validate=False)
    assert triplets.records == (
        Record(
            "Triplet",
            (RecordField("row", "int"), RecordField("col", "int"), RecordField("value", "double")),
        ),
    )
    dtype = numpy_dtype("Triplet", records=triplets.records)
    assert (dtype.itemsize, dtype.fields["value"][1]) == (16, 8)  # type: ignore[index]
    assert (
        numpy_dtype("Pixel", records=_extract(PIXELS, "to_gray", validate=False).records).itemsize
        == 3
    )
    nested = _extract(NESTED, "step")
    assert [r.name for r in nested.records] == ["Vec3", "Body"]  # nested ones first
    body = numpy_dtype("Body", records=nested.records)
    assert (body.itemsize, body.fields["id"][1], body.fields["alive"][1]) == (28, 24, 26)  # type: ignore[index]
    stats = _extract(STATS, "summarize")
    assert stats.returns == "Stats" and stats.records[0].anonymous
    assert "static_assert(sizeof(regrapht_check_0) == 24" in driver_source(stats)
    assert "static_assert(offsetof(regrapht_check_0, mean) == 8" in driver_source(stats)


@needs_gxx
def test_a_layout_the_compiler_disagrees_with_fails_validation() -> None:
    task = _extract(POINT_SHIFT, "shift_points", validate=False)
    wrong = Record("Point", (RecordField("x", "double"), RecordField("y", "float")))
    from dataclasses import replace

    with pytest.raises(TaskError, match="layout of Point"):
        validate_task(replace(task, records=(wrong,)))


@needs_gxx
def test_complex_and_struct_outputs_match_numpy() -> None:
    task = _extract(COMPLEX_MUL, "complex_multiply")
    for run in _runs(task):
        inputs = generate_inputs(task, run.binding, 0)
        a, b = inputs["a"], inputs["b"]
        assert isinstance(a, np.ndarray) and a.dtype == np.complex64
        np.testing.assert_allclose(run.outputs["c"], a * b, rtol=1e-6)  # type: ignore[operator]
    task = _extract(TRIPLETS, "scale_coo")
    for run in _runs(task):
        entries = generate_inputs(task, run.binding, 0)["entries"]
        assert isinstance(entries, np.ndarray)
        want = entries["value"] * 0.5 + (entries["row"] == entries["col"])
        np.testing.assert_allclose(run.outputs["entries"]["value"], want)
        assert (run.outputs["entries"]["row"] == entries["row"]).all()


@needs_gxx
def test_scalar_references_and_bool_vectors_come_back() -> None:
    task = _extract(SUM_REF, "sum_into")
    run = _runs(task)[-1]
    x = generate_inputs(task, run.binding, 0)["x"]
    assert run.outputs["result"].shape == (1,)
    assert run.outputs["result"][0] == pytest.approx(float(np.sum(x)), abs=1e-4)  # type: ignore[arg-type]
    task = _extract(COUNT_REF, "count_above")
    run = _runs(task)[-1]
    values = generate_inputs(task, run.binding, 0)["values"]
    assert run.outputs["count"].tolist() == [int(np.sum(values > 3))]  # type: ignore[operator]
    task = _extract(ACCUMULATE, "accumulate")
    run = _runs(task)[-1]
    x = generate_inputs(task, run.binding, 0)["x"]
    want = 2.5 + float(np.sum(np.asarray(x, dtype=np.float64)))
    assert run.outputs["total"][0] == pytest.approx(want)
    task = _extract(MASK, "masked_fill")
    run = _runs(task)[-1]
    inputs = generate_inputs(task, run.binding, 0)
    mask, x = inputs["mask"], inputs["x"]
    assert isinstance(mask, np.ndarray) and mask.dtype == np.bool_
    assert (run.outputs["positive"] == (x > 0)).all()  # type: ignore[operator]
    np.testing.assert_array_equal(run.outputs["y"], np.where(mask, x, np.float32(3.25)))  # type: ignore[arg-type]


@needs_gxx
def test_returned_vectors_and_structs() -> None:
    relu = _extract(RELU, "leaky_relu")
    assert relu.returns == "vector<float>" and relu.return_length == "n"
    assert suggested_annotation(relu).endswith("; return[n]")
    for run in _runs(relu):
        x = generate_inputs(relu, run.binding, 0)["x"]
        assert isinstance(x, np.ndarray)
        np.testing.assert_array_equal(
            run.outputs["return"], np.where(x > 0, x, np.float32(0.5) * x)
        )
    stats = _extract(STATS, "summarize")
    run = _runs(stats)[-1]
    x = generate_inputs(stats, run.binding, 0)["x"]
    assert isinstance(x, np.ndarray)
    got = run.outputs["return"]
    assert got.dtype == numpy_dtype("Stats", records=stats.records)
    assert (got["lo"][0], got["hi"][0], got["count"][0]) == (x.min(), x.max(), x.size)


APPENDED = """
#include <cmath>
#include <cstddef>
#include <vector>
std::vector<float> softplus(const std::vector<float>& x) {
    std::vector<float> out;
    LOOP
    return out;
}
"""


@pytest.mark.parametrize(
    ("loop", "length"),
    [
        (
            "for (std::size_t i = 0; i < x.size(); ++i) out.push_back(std::log1p(std::exp(x[i])));",
            "n",
        ),
        (
            "out.reserve(x.size());\n    for (std::size_t i = 0; i < x.size(); ++i) {\n"
            "        float e = std::exp(x[i]);\n        out.push_back(std::log1p(e));\n    }",
            "n",
        ),
        (
            "for (std::size_t i = 0; i < x.size(); ++i) out.push_back(x[i]);\n"
            "    for (std::size_t i = 0; i < x.size(); ++i) out.push_back(-x[i]);",
            "2*n",
        ),
        ("for (float v : x) out.push_back(v);", "n"),
        (
            "std::vector<float> y(x.size());\n"
            "    for (std::size_t i = 0; i < x.size(); ++i) y[i] = 2.0f * x[i];\n"
            "    for (const float& v : y) out.push_back(v);",
            "n",
        ),
    ],
    ids=["one-line", "reserved-block", "two-loops", "range-for", "range-for-local"],
)
def test_a_returned_vector_filled_by_push_back_has_the_loops_length(loop: str, length: str) -> None:
    task = _extract(APPENDED.replace("LOOP", loop), "softplus", validate=False)
    assert task.return_length == length
    assert suggested_annotation(task).endswith(f"; return[{length}]")


@pytest.mark.parametrize(
    "loop",
    [
        "for (std::size_t i = 0; i < x.size(); ++i) if (x[i] > 0) out.push_back(x[i]);",
        "for (std::size_t i = 1; i < x.size(); ++i) out.push_back(x[i]);",
        "for (std::size_t i = 0; i < x.size(); ++i) { out.push_back(x[i]); out.push_back(1); }",
        "for (float v : x) { out.push_back(v); if (v > 0) break; }",
        "for (std::size_t i = 0; i < x.size(); ++i)\n"
        "        for (int k = 0; k < 2; ++k) out.push_back(x[i]);",
    ],
    ids=["compaction", "from-one", "twice", "range-for-break", "nested"],
)
def test_other_push_back_loops_leave_the_length_to_the_annotation(loop: str) -> None:
    """A push_back under a condition (a compaction) is refused with the form that runs
    instead (``tests/core/tasks/test_extract.py``)."""
    match = "under a condition" if "if (x[i] > 0)" in loop else "one push_back per iteration"
    with pytest.raises(TaskError, match=match):
        _extract(APPENDED.replace("LOOP", loop), "softplus", validate=False)


FILLED = """
#include <cmath>
#include <cstddef>
#include <vector>
void collect(const std::vector<double>& x, std::vector<double>& out) {
    BODY
}
"""


@needs_gxx
def test_an_output_cleared_then_filled_by_push_back_is_as_long_as_the_loop() -> None:
    """benchmarks/cxx/vec_sqrt_pushback.cpp: the length was taken as 0 (the caller's), so
    the harness's output window at 2^20 elements was too small and the reference itself
    failed there on the H200; the caller's contents never matter once cleared."""
    body = (
        "out.clear();\n    out.reserve(x.size());\n"
        "    for (std::size_t i = 0; i < x.size(); ++i) out.push_back(std::sqrt(std::fabs(x[i])));"
    )
    task = _extract(FILLED.replace("BODY", body), "collect")
    assert [(a.name, a.role, a.length) for a in task.args] == [
        ("x", Role.IN, "n"), ("out", Role.OUT, "n")
    ]  # fmt: skip
    for run in _runs(task):
        x = generate_inputs(task, run.binding, 0)["x"]
        assert isinstance(x, np.ndarray)
        np.testing.assert_allclose(run.outputs["out"], np.sqrt(np.abs(x)))


def test_an_output_grown_by_other_appends_asks_or_is_refused_with_what_to_write() -> None:
    compaction = "out.clear();\n    for (double v : x) if (v > 0) out.push_back(v);"
    with pytest.raises(TaskError, match=r"cleared, then grown by push_back.*annotate the most"):
        _extract(FILLED.replace("BODY", compaction), "collect", validate=False)
    noted = FILLED.replace("BODY", compaction).replace(
        "void", "// regrapht: x[n] in; out[n] out\nvoid"
    )
    assert _extract(noted, "collect", validate=False).arg("out").length == "n"
    appended = "for (double v : x) out.push_back(v);"
    with pytest.raises(TaskError, match="'out' grows by push_back from what the caller passed"):
        _extract(FILLED.replace("BODY", appended), "collect", validate=False)


@needs_gxx
def test_a_push_back_filled_vector_comes_back_whole() -> None:
    loop = "for (std::size_t i = 0; i < x.size(); ++i) out.push_back(std::log1p(std::exp(x[i])));"
    task = _extract(APPENDED.replace("LOOP", loop), "softplus")
    for run in _runs(task):
        x = generate_inputs(task, run.binding, 0)["x"]
        assert isinstance(x, np.ndarray)
        want = np.log1p(np.exp(x.astype(np.float32)))
        np.testing.assert_allclose(run.outputs["return"], want, rtol=1e-5)


@pytest.mark.parametrize(
    ("size", "length"), [("n", "n"), ("n * m", "m*n"), ("n, 0.0f", "n")], ids=["n", "n*m", "n,v"]
)
def test_a_vector_sized_by_names_in_parentheses_is_sized(size: str, length: str) -> None:
    """``std::vector<float> y(n);`` and ``y(n * m)`` read as function declarations to the
    grammar (C++'s most vexing parse); they are vectors of ``n`` and ``n * m`` elements."""
    source = (
        "#include <vector>\nstd::vector<float> ramp(int n, int m, float step) {\n"
        f"    std::vector<float> y({size});\n"
        "    for (int i = 0; i < n; ++i) y[i] = i * step + m;\n"
        "    return y;\n}\n"
    )
    assert _extract(source, "ramp", validate=False).return_length == length


@needs_gxx
def test_std_array_extents_come_from_constants() -> None:
    source = FILTER.replace("#define TAPS 9", "constexpr int TAPS = 3 * 3;")
    task = _extract(source, "fir")
    assert task.arg("w").length == "9"
    assert "const std::array<float, 9>& w" in task.declaration
    bad = FILTER.replace("#define TAPS 9", "").replace("TAPS", "N_TAPS")
    with pytest.raises(
        TaskError, match=r"t\.cpp:\d+ \(fir\): parameter 'w' .*std::array size 'N_TAPS'"
    ):
        _extract(bad, "fir", validate=False)


def test_the_declaration_spells_every_type_out() -> None:
    task = _extract(DOTC, "dotc", validate=False)
    assert task.declaration == (
        "std::complex<double> dotc(const std::vector<std::complex<double>>& a, "
        "const std::vector<std::complex<double>>& b)"
    )
    source = (
        'typedef float real;\nextern "C" void f(const real* x, real* y, int n) {\n'
        "  for (int i = 0; i < n; ++i) y[i] = x[i];\n}\n"
    )
    assert _extract(source, "f", validate=False).declaration == (
        'extern "C" void f(const float* x, float* y, int n)'
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "#include <string>\nstruct Named { float x; std::string name; };\n"
            "void f(Named* p, int n) { for (int i = 0; i < n; ++i) p[i].x = 0; }",
            r"t\.cpp:3 \(f\): parameter 'p' \(Named\* p\): struct 'Named' \(t\.cpp:2\): member "
            r"'name' \(line 2\) is 'std::string'; only numbers",
        ),
        (
            "struct Node { float v; Node* next; };\n"
            "void f(Node* p, int n) { for (int i = 0; i < n; ++i) p[i].v = 0; }",
            r"struct 'Node' .*member 'next' \(line 1\) is a pointer.*an index into another array",
        ),
        (
            "struct Flags { unsigned a : 3; };\n"
            "void f(Flags* p, int n) { for (int i = 0; i < n; ++i) p[i].a = 0; }",
            r"struct 'Flags' .*is a bitfield; use a plain integer member",
        ),
        (
            "struct Shape { virtual float area() const { return 0; } float s; };\n"
            "void f(Shape* p, int n) { for (int i = 0; i < n; ++i) p[i].s = 0; }",
            r"struct 'Shape' .*has virtual functions",
        ),
        (
            "#include <vector>\nstruct Poly { std::vector<float> xs; };\n"
            "void f(Poly* p, int n) { for (int i = 0; i < n; ++i) p[i].xs.clear(); }",
            r"member 'xs' \(line 2\) is 'std::vector<float>'",
        ),
        (
            "#include <tuple>\n#include <vector>\n"
            "void f(const std::vector<std::tuple<float, int>>& t, std::vector<float>& o) {\n"
            "  for (size_t i = 0; i < t.size(); ++i) o[i] = std::get<0>(t[i]);\n}",
            r"parameter 't' .*std::tuple elements .*use a struct or std::pair",
        ),
        (
            "#include <vector>\n"
            "void f(const std::vector<std::vector<float>>& m, std::vector<float>& o) {\n"
            "  for (size_t i = 0; i < m.size(); ++i) o[i] = m[i][0];\n}",
            r"parameter 'm' .*nested containers .*flatten into one std::vector<T>",
        ),
        (
            "#include <complex>\nvoid f(std::complex<long double>* z, int n) {\n"
            "  for (int i = 0; i < n; ++i) z[i] = 0;\n}",
            r"parameter 'z' .*std::complex<long double> has no fixed layout; use float or double",
        ),
        (
            "void f(Unknown* p, int n) { for (int i = 0; i < n; ++i) p[i] = p[i]; }",
            r"parameter 'p' .*element type 'Unknown': it has no numeric mapping; supported:",
        ),
    ],
    ids=[
        "string",
        "pointer",
        "bitfield",
        "virtual",
        "vector member",
        "tuple",
        "nested",
        "long double",
        "unknown",
    ],
)
def test_refusals_name_the_struct_member_and_the_fix(source: str, message: str) -> None:
    with pytest.raises(TaskError, match=message):
        _extract(source, "f", validate=False)


def test_fields_draw_from_their_own_types_unless_the_argument_has_a_dist() -> None:
    task = _extract(TRIPLETS, "scale_coo", validate=False)
    entries = generate_inputs(task, {"n": 4099}, 3)["entries"]
    assert isinstance(entries, np.ndarray)
    assert entries["row"].min() < -100 and entries["row"].max() > 100  # ints: [-1000, 1000]
    assert entries["value"].min() >= -1 and entries["value"].max() <= 1
    assert entries["row"].max() <= 1000 and len(set(entries["value"].tolist())) > 4000
    annotated = TRIPLETS.replace(
        "void scale_coo", "// regrapht: entries ~ uniform(0, 5)\nvoid scale_coo"
    )
    task = _extract(annotated, "scale_coo", validate=False)
    entries = generate_inputs(task, {"n": 4099}, 3)["entries"]
    assert isinstance(entries, np.ndarray)
    for field in ("row", "col", "value"):
        assert entries[field].min() >= 0 and entries[field].max() <= 5
    task = _extract(COMPLEX_MUL, "complex_multiply", validate=False)
    a = generate_inputs(task, {"n": 1000}, 3)["a"]
    assert isinstance(a, np.ndarray)
    assert np.abs(a.real).max() <= 1 and np.abs(a.imag).max() <= 1 and a.imag.std() > 0.3
    task = _extract(DISTANCES, "distances", validate=False)
    center = generate_inputs(task, {"n": 7}, 3)["center"]
    assert isinstance(center, np.ndarray) and center.shape == (1,)
    assert center.dtype.names == ("x", "y")


def test_element_types_compare_by_their_numbers() -> None:
    records = (Record("Point", (RecordField("x", "float"), RecordField("y", "int"))),)
    assert not is_integer("Point", records) and is_integer("pair<int, bool>")
    assert c_type_name("const std::pair< float ,int >") == "pair<float, int>"
    assert cxx_spelling("vector<pair<float, complex<double>>>") == (
        "std::vector<std::pair<float, std::complex<double>>>"
    )


def test_a_vector_size_binds_to_the_annotations_size_variable() -> None:
    """``n = 1<<22`` names the size ``v.size()`` leaves unbound: the vectors get it."""
    source = """
#include <vector>
// regrapht: n = 1<<22
void scale(const std::vector<float>& v, std::vector<float>& out, float a) {
    for (size_t i = 0; i < v.size(); ++i) out[i] = a * v[i];
}
"""
    task = _extract(source, "scale", validate=False)
    assert task.timing_size == {"n": 1 << 22}
    assert task.arg("v").length == "n" and task.arg("out").length == "n"
    assert suggested_annotation(task) == "// regrapht: n = 1<<22; v[n] in; out[n] out; a = 2.5"
    with pytest.raises(TaskError, match=r"annotation: cannot tell which of 'n', 'k' is the size"):
        _extract(source.replace("n = 1<<22", "n = 1<<22; k = 5"), "scale", validate=False)
    with pytest.raises(TaskError, match=r"annotation: 'k' is not a parameter, a size used by any"):
        _extract(source.replace("n = 1<<22", "v[n] in; n = 1<<22; k = 5"), "scale", validate=False)
    with pytest.raises(TaskError, match=r"annotation: 'w' is not a parameter of 'scale'"):
        _extract(source.replace("n = 1<<22", "n = 1<<22; w[n] in"), "scale", validate=False)


def test_an_annotated_vector_length_names_its_size() -> None:
    source = """
#include <vector>
// regrapht: m = 1<<16; y[m] out
void copy_rows(const std::vector<float>& x, std::vector<float>& y) {
    for (size_t r = 0; r < y.size(); ++r) y[r] = x[r];
}
"""
    task = _extract(source, "copy_rows", validate=False)
    assert task.timing_size == {"m": 1 << 16}
    assert task.arg("x").length == "m"


def test_a_struct_task_checks_its_distributions() -> None:
    task = _extract(POINT_SHIFT, "shift_points", validate=False)
    from dataclasses import replace

    from regrapht_core.tasks.check import check_task

    sorted_points = replace(task.args[0], dist=Distribution(kind="sorted"))
    with pytest.raises(TaskError, match=r"a Point element is drawn number by number"):
        check_task(replace(task, args=(sorted_points, *task.args[1:])), "t.cpp")
    dropped = replace(task, records=())
    with pytest.raises(TaskError, match=r"args\[0\] \(pts\)\.ctype: element type 'Point'"):
        check_task(dropped, "t.cpp")
    unwritten = ArgSpec("r", ParamKind.SCALAR, "float", Role.OUT, value="0")
    check_task(replace(task, args=(*task.args, unwritten)), "t.cpp")  # a T& output


def test_ordinary_loops_are_read() -> None:
    """Loop counters reused by sibling loops, ``i + 1 < n`` bounds, ``static_cast`` of a
    size, ``reserve`` and calls to a template of the file."""
    source = """
#include <cstddef>
#include <vector>
template <typename T>
void axpy(T a, const T* x, T* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
void two_passes(const std::vector<float>& x, std::vector<float>& d, std::vector<float>& s) {
    d.reserve(x.size());
    for (int i = 0; i + 1 < static_cast<int>(x.size()); ++i) d[i] = x[i + 1] - x[i];
    for (int i = 0; i < static_cast<int>(x.size()); ++i) s[i] = 2.0f * x[i];
}
void saxpy(float a, const float* x, float* y, int n) { axpy<float>(a, x, y, n); }
"""
    task = _extract(source, "two_passes", validate=False)
    assert suggested_annotation(task) == "// regrapht: n = 1<<20; x[n] in; d[n] inout; s[n] out"
    task = _extract(source, "saxpy", validate=False)
    assert suggested_annotation(task) == "// regrapht: n = 1<<20; a = 1.5; x[n] in; y[n] inout"
