"""Member functions as entries (issue 17): extraction with the class, the object the
wrapper makes, refusals, the gate, and the harness (host build run against the validation
driver; the candidate build compiled and linked with nvcc)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.contracts.task import SourceLanguage, Task
from regrapht_core.errors import TaskError
from regrapht_core.tasks.extract import extract_task
from regrapht_core.tasks.signature import MEMBER_ENTRY, member_wrapper
from regrapht_core.tasks.validate import driver_source, validate_task
from regrapht_core.verify.compare import first_mismatch
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.gate import check
from regrapht_core.verify.harness import (
    LINK_WRAPS,
    HarnessKind,
    entry_symbol,
    entry_unit,
    harness_source,
)
from regrapht_core.verify.objects import inspect_object
from tests.core.verify.host_harness import HostRun

CORPUS = Path(__file__).resolve().parents[3] / "benchmarks" / "cxx"
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


def _extract(source: str, function: str, *, validate: bool = False) -> Task:
    return extract_task(source, SourceLanguage.CPP, function=function, validate=validate)


def _corpus(file: str, function: str, *, validate: bool = False) -> Task:
    return _extract((CORPUS / file).read_text(encoding="utf-8"), function, validate=validate)


# extraction ---------------------------------------------------------------------------------


@needs_gxx
@pytest.mark.parametrize(
    ("file", "function", "owner", "owner_args"),
    [
        ("member_gain.cpp", "apply", "GainStage", ("1.5f",)),
        ("member_fir.cpp", "process", "FirFilter", ("1.5f", "0.5f", "2.5f", "-0.75f")),
        ("member_clamp.cpp", "run", "Clamper", ()),
    ],
)
def test_corpus_member_entries_extract_and_validate(
    file: str, function: str, owner: str, owner_args: tuple[str, ...]
) -> None:
    task = _corpus(file, function, validate=True)
    assert (task.owner, task.owner_args, task.owner_static) == (owner, owner_args, False)
    assert (task.name, task.entry) == (function, function)
    assert f"{owner} {{" in task.source and task.source.rstrip().endswith("};")
    assert task.signature.endswith(") const")
    assert f" {function}(" in task.declaration and "const" not in task.declaration.split(")")[-1]
    made = f"({', '.join(owner_args)})" if owner_args else "{}"
    assert f"{owner} regrapht_object{made};" in member_wrapper(task)
    assert f"{MEMBER_ENTRY}(" in driver_source(task)


def test_the_gain_reference_unit_keeps_the_include_and_the_class() -> None:
    task = _corpus("member_gain.cpp", "apply")
    assert task.source.startswith("#include <cmath>")
    assert "private:\n    float gain_;\n};" in task.source


CONSTRUCTORS = """
#include <vector>
struct Helper { static float twice(float x) { return 2 * x; } };
constexpr int K = 3;

class Scaler {
public:
    Scaler(const std::vector<float>& table);
    Scaler(double a, const long& b, unsigned c, bool d = true) : k_(a * b + c) {}
    void go(const float* x, float* y, int n) const {
        for (int i = 0; i < n; ++i) y[i] = Helper::twice(x[i]) * k_ + K;
    }
private:
    double k_;
};

struct Defaulted {
    explicit Defaulted(int scale = 2) : scale_(scale) {}
    void bump(int* v, int n) { for (int i = 0; i < n; ++i) v[i] *= scale_++; }
    int scale_;
};

struct Counter {
    static int doubled(int* v, int n) {
        int s = 0;
        for (int i = 0; i < n; ++i) s += v[i] *= 2;
        return s;
    }
};

class Split {
public:
    Split() = default;
    void scale(float* v, int n) const;
private:
    float f_ = 3.0f;
};

void Split::scale(float* v, int n) const {
    for (int i = 0; i < n; ++i) v[i] *= f_;
}
"""


@needs_gxx
def test_constructor_choice_static_members_and_definitions_after_the_class() -> None:
    # the first public constructor taking only numbers (by value or const&), as typed
    # literals; a defaulted parameter is left to its default
    task = _extract(CONSTRUCTORS, "go", validate=True)
    assert task.owner == "Scaler" and task.owner_args == ("1.5", "3", "4u")
    assert "struct Helper" in task.source and "constexpr int K" in task.source
    assert "class Split" not in task.source and "struct Defaulted" not in task.source
    # every constructor parameter defaulted: value-initialized; a non-const method that
    # changes members starts each call from a fresh object
    defaulted = _extract(CONSTRUCTORS, "bump", validate=True)
    assert defaulted.owner == "Defaulted" and defaulted.owner_args == ()
    assert "Defaulted regrapht_object{};" in member_wrapper(defaulted)
    counter = _extract(CONSTRUCTORS, "doubled", validate=True)
    assert counter.owner == "Counter" and counter.owner_static and counter.owner_args == ()
    assert "return Counter::doubled(v, n);" in member_wrapper(counter)
    split = _extract(CONSTRUCTORS, "scale", validate=True)
    assert split.owner == "Split" and split.owner_args == ()
    assert "class Split" in split.source and "void Split::scale" in split.source


@pytest.mark.parametrize(
    ("source", "function", "message"),
    [
        (
            "class Table { public: explicit Table(const float* t) : t_(t) {}\n"
            "  void f(float* y, int n) const { for (int i = 0; i < n; ++i) y[i] = t_[i]; }\n"
            "  private: const float* t_; };",
            "f",
            "cannot make a Table object to call the entry on: Table has no public default "
            "constructor and no public constructor taking only numbers; add one",
        ),
        (
            "class Hidden { Hidden() {} public: void f(float* y, int n) const "
            "{ for (int i = 0; i < n; ++i) y[i] = 1; } };",
            "f",
            "cannot make a Hidden object",
        ),
        (
            "class P { void f(float* y, int n) { for (int i = 0; i < n; ++i) y[i] = 1; } };",
            "f",
            "P::f is not public; make it public",
        ),
        (
            "namespace q { struct N { void f(float* y, int n) "
            "{ for (int i = 0; i < n; ++i) y[i] = 1; } }; }",
            "f",
            "'N' is not defined at file scope",
        ),
        (
            "struct O { struct I { void f(float* y, int n) "
            "{ for (int i = 0; i < n; ++i) y[i] = 1; } }; };",
            "f",
            "'I' is not defined at file scope",
        ),
        (
            "struct C { C(float* y, int n) { for (int i = 0; i < n; ++i) y[i] = 1; } };",
            "C",
            "a constructor cannot be an entry",
        ),
    ],
)
def test_member_entries_that_cannot_be_called_are_refused(
    source: str, function: str, message: str
) -> None:
    with pytest.raises(TaskError) as raised:
        _extract(source, function)
    assert message in str(raised.value)


# the gate ------------------------------------------------------------------------------------

GAIN_CANDIDATE = """
#include <cmath>
#include <cuda_runtime.h>

__global__ void apply_kernel(const float* in, float* out, int n, float g) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * g;
}

static void apply_impl(const float* in, float* out, int n, float g) {
    float *d_in = nullptr, *d_out = nullptr;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, in, n * sizeof(float), cudaMemcpyHostToDevice);
    apply_kernel<<<(n + 255) / 256, 256>>>(d_in, d_out, n, g);
    cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
}

class GainStage {
public:
    explicit GainStage(float db) : gain_(std::pow(10.0f, db / 20.0f)) {}

    void apply(const float* in, float* out, int n) const { apply_impl(in, out, n, gain_); }

private:
    float gain_;
};
"""

GAIN_HOST = """
#include <cmath>
static void apply_impl(const float* in, float* out, int n, float g) {
    for (int i = 0; i < n; ++i) out[i] = in[i] * g;
}
class GainStage {
public:
    explicit GainStage(float db) : gain_(std::pow(10.0f, db / 20.0f)) {}
    void apply(const float* in, float* out, int n) const { apply_impl(in, out, n, gain_); }
private:
    float gain_;
};
"""


def test_the_gate_finds_the_entry_in_its_class() -> None:
    task = _corpus("member_gain.cpp", "apply")
    assert check(GAIN_CANDIDATE, task).violations == ()
    assert check(task.source, task).violations == ()
    declared = (
        GAIN_HOST.replace("{ apply_impl(in, out, n, gain_); }", ";")
        + "void GainStage::apply(const float* in, float* out, int n) const "
        "{ apply_impl(in, out, n, gain_); }\n"
    )
    assert check(declared, task).violations == ()
    free = "void apply(const float* in, float* out, int n) { out[0] = in[0]; }"
    assert "no definition of the entry `GainStage::apply`" in str(check(free, task))
    wrong = GAIN_HOST.replace("int n) const {", "long n) const {")
    assert "the task requires" in str(check(wrong, task))
    wrapped = "namespace q {\n" + GAIN_HOST + "}\n"
    assert "must be at file scope" in str(check(wrapped, task))
    sneaky = GAIN_HOST + "void regrapht_member_entry(const float*, float*, int) {}\n"
    assert "belongs to the harness" in str(check(sneaky, task))


# the harness ---------------------------------------------------------------------------------


@pytest.mark.slow
@needs_gxx
@pytest.mark.parametrize(
    ("file", "function", "candidate"),
    [
        ("member_gain.cpp", "apply", None),
        ("member_gain.cpp", "apply", GAIN_HOST),
        ("member_fir.cpp", "process", None),
        ("member_clamp.cpp", "run", None),
    ],
)
def test_the_host_harness_calls_the_member_entry_as_the_driver_does(
    tmp_path: Path, file: str, function: str, candidate: str | None
) -> None:
    task = _corpus(file, function)
    declared = harness_source(task, HarnessKind.REFERENCE)
    assert f"{MEMBER_ENTRY}(" in declared and task.owner not in declared
    started = HostRun(
        Compiler(tmp_path / "objects", "sm_90"),
        task,
        candidate or task.source,
        tmp_path / "run",
        sizes=task.correctness_sizes[:2],
        seed=5,
    )
    try:
        expected = validate_task(task, sizes=started.sizes, seed=5)
        for k, want in enumerate(expected):
            for _ in range(2):  # a fresh object and restored in-place arguments each call
                started.harness.load(f"case{k}")
                started.harness.call(flush=False)
                dumped = started.harness.dump()
                assert dumped.modified is None
                assert sorted(dumped.outputs) == sorted(want.outputs)
                for name, array in want.outputs.items():
                    assert first_mismatch(name, array, dumped.outputs[name], task.tolerance) is None
        started.harness.quit()
    finally:
        started.close()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_a_member_candidate_compiles_passes_the_object_check_and_links(tmp_path: Path) -> None:
    task = _corpus("member_gain.cpp", "apply")
    assert entry_symbol(task) == MEMBER_ENTRY
    compiler = Compiler(tmp_path, "sm_90")
    harness = compiler.cuda_object(harness_source(task, HarnessKind.CANDIDATE))
    assert harness.ok and harness.path is not None, harness.log
    candidate = compiler.cuda_object(entry_unit(task, GAIN_CANDIDATE))
    assert candidate.ok and candidate.path is not None, candidate.log
    assert inspect_object(candidate.path, entry=entry_symbol(task)) is None
    linked = compiler.link([harness.path, candidate.path], tmp_path / "candidate", wraps=LINK_WRAPS)
    assert linked.ok, linked.log
