"""The syntax repair of model answers: each fix on a small case, the cases left alone, and
the real answers of the embedded model (``answers/``) before and after repair."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import parse_source
from regrapht_core.model import prompts
from regrapht_core.model.prompts import ParsedCode, answer_code, defined_functions, parse_response
from regrapht_core.model.repair import Repaired, repair
from regrapht_core.verify.device import DEFAULT_ARCH

ANSWERS = Path(__file__).parent / "answers"


def parses(code: str) -> bool:
    return not parse_source(code, SourceLanguage.CUDA).root_node.has_error


def unchanged(code: str, entry: str | None = "f") -> None:
    assert repair(code, entry_name=entry) == Repaired(code)


# --- (a) functions defined inside a function -----------------------------------------------

NESTED = """\
#include <cuda_runtime.h>

// Host wrapper.
void f(int n, float* y) {
    // One thread per element.
    __global__ void fill(int n, float* y) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = 0.0f;
    }
    fill<<<(n + 255) / 256, 256>>>(n, y);
}
"""


def test_a_kernel_defined_in_the_host_function_moves_before_it() -> None:
    fixed = repair(NESTED, entry_name="f")
    assert fixed.fixes == ("moved fill out of f to file scope",)
    assert fixed.code == (
        "#include <cuda_runtime.h>\n"
        "\n"
        "// One thread per element.\n"
        "__global__ void fill(int n, float* y) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = 0.0f;\n"
        "}\n"
        "\n"
        "// Host wrapper.\n"
        "void f(int n, float* y) {\n"
        "    fill<<<(n + 255) / 256, 256>>>(n, y);\n"
        "}\n"
    )


def test_device_functions_and_templates_move_in_order() -> None:
    code = """\
void f(int n, float* y) {
    __device__ float twice(float v) { return 2.0f * v; }
    template <int B>
    __global__ void k(float* y) { y[threadIdx.x] = twice(B); }
    if (n > 0) {
        k<4><<<1, 32>>>(y);
    }
}
"""
    fixed = repair(code, entry_name="f")
    assert fixed.fixes == (
        "moved twice out of f to file scope",
        "moved k out of f to file scope",
    )
    assert fixed.code.startswith(
        "__device__ float twice(float v) { return 2.0f * v; }\n\n"
        "template <int B>\n__global__ void k(float* y) { y[threadIdx.x] = twice(B); }\n\n"
        "void f(int n, float* y) {\n"
    )
    assert parses(fixed.code)


def test_a_nested_function_that_uses_the_host_locals_stays() -> None:
    unchanged(
        """\
void f(int n, float* y) {
    const int scale = 3;
    __global__ void k(float* y) { y[threadIdx.x] = scale; }
    k<<<1, n>>>(y);
}
"""
    )


def test_a_function_defined_inside_a_loop_stays() -> None:
    # Seen in a real answer: the definition stands where a call was meant; moving it out
    # would leave the loop empty.
    unchanged(
        """\
__global__ void f(int n, float* y) {
    for (int i = 0; i < n; ++i) {
        __device__ void g(float* y) { y[0] = 1; }
    }
}
"""
    )


def test_local_classes_and_lambdas_are_not_entered() -> None:
    unchanged(
        """\
void f(int n, float* y) {
    struct Twice { float operator()(float v) const { return 2 * v; } };
    auto g = [](float v) { return v + 1; };
    y[0] = Twice()(g(n));
}
"""
    )


# --- (b) use before definition ----------------------------------------------------------------


EARLY = """\
#include <cuda_runtime.h>

// Entry.
void f(int n, float* y) {
    scale<<<1, 32>>>(y, half(n));
}

__global__ void scale(float* y, float s) { y[threadIdx.x] *= s; }
static float half(int n) { return n * 0.5f; }
"""


def test_functions_called_before_their_definition_are_declared_before_the_caller() -> None:
    fixed = repair(EARLY, entry_name="f")
    assert fixed.fixes == (
        "declared scale before its first use",
        "declared half before its first use",
    )
    assert fixed.code.startswith(
        "#include <cuda_runtime.h>\n\n"
        "__global__ void scale(float* y, float s);\n"
        "static float half(int n);\n\n"
        "// Entry.\nvoid f(int n, float* y) {\n"
    )


TEMPLATE = """\
void f(float* y) { k<8><<<1, 8>>>(y); }
template <int B>
__global__ void k(float* y) { y[threadIdx.x] = B; }
"""


def test_a_template_kernel_is_declared_with_its_parameters() -> None:
    fixed = repair(TEMPLATE, entry_name="f")
    assert fixed.code.startswith("template <int B> __global__ void k(float* y);\n\nvoid f(")


@pytest.mark.parametrize(
    "code",
    [
        pytest.param(
            "__global__ void k(float* y);\nvoid f(float* y) { k<<<1, 1>>>(y); }\n"
            "__global__ void k(float* y) { y[0] = 1; }\n",
            id="declared-already",
        ),
        pytest.param(
            "void f(float* y) { g(y); }\nvoid g(float* y, int n = 1) { y[0] = n; }\n",
            id="default-argument",
        ),
        pytest.param(
            "void f(float* y) { g(y); }\nstruct P { int n; };\nvoid g(float* y, P* p) {}\n",
            id="type-defined-between",
        ),
        pytest.param(
            "void f(float* y) { g<>(y); }\ntemplate <int B = 4> void g(float* y) {}\n",
            id="default-template-argument",
        ),
        pytest.param(
            "void f(float* y) { g(y); }\nvoid g(float* y) {}\nvoid g(int* y) {}\n",
            id="overloaded",
        ),
        pytest.param("void f(float* y) { cudaFree(y); }\n", id="defined-elsewhere"),
    ],
)
def test_no_prototype_where_one_is_not_needed_or_not_safe(code: str) -> None:
    unchanged(code)


# --- (c) echoed definitions -------------------------------------------------------------------


def test_of_two_definitions_of_one_function_the_last_is_kept() -> None:
    code = """\
// The original.
void f(int n, float* y) {
    for (int i = 0; i < n; ++i) y[i] = 0;
}

__global__ void zero(int n, float* y) { y[threadIdx.x] = 0; }

void f(int n, float *y) {
    zero<<<1, n>>>(n, y);
}
"""
    fixed = repair(code, entry_name="f")
    assert fixed.fixes == ("removed an earlier definition of f",)
    assert fixed.code == (
        "\n__global__ void zero(int n, float* y) { y[threadIdx.x] = 0; }\n\n"
        "void f(int n, float *y) {\n    zero<<<1, n>>>(n, y);\n}\n"
    )


def test_an_echoed_kernel_used_before_the_rewrite_gets_a_prototype() -> None:
    code = """\
__global__ void k(float* y) { y[0] = 1; }
void f(float* y) { k<<<1, 1>>>(y); }
__global__ void k(float* y) { y[0] = 2; }
"""
    fixed = repair(code, entry_name="f")
    assert fixed.fixes == (
        "removed an earlier definition of k",
        "declared k before its first use",
    )
    assert fixed.code == (
        "__global__ void k(float* y);\n\nvoid f(float* y) { k<<<1, 1>>>(y); }\n"
        "__global__ void k(float* y) { y[0] = 2; }\n"
    )


def test_a_function_echoed_many_times_is_reported_once_with_a_count() -> None:
    code = "void f() {}\n" * 3
    assert repair(code, entry_name="f") == Repaired(
        "void f() {}\n", ("removed an earlier definition of f (2 times)",)
    )


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("void g(float* y) {}\nvoid g(int* y) {}\nvoid f() {}\n", id="overloads"),
        pytest.param(
            "__host__ float g(float v) { return v; }\n__device__ float g(float v) { return v; }\n",
            id="execution-spaces",
        ),
        pytest.param(
            "template <int B> void g(float* y) {}\nvoid g(float* y) {}\n", id="template-and-plain"
        ),
    ],
)
def test_different_functions_of_one_name_are_not_duplicates(code: str) -> None:
    unchanged(code)


# --- (f) main -------------------------------------------------------------------------------------


def test_the_models_main_is_removed() -> None:
    code = """\
void f(int n, float* y) { y[0] = n; }

// Example usage.
int main(int argc, char** argv) {
    float y[1];
    f(1, y);
    return 0;
}
"""
    fixed = repair(code, entry_name="f")
    assert fixed.fixes == ("removed main: the verifier links its own",)
    assert fixed.code == "void f(int n, float* y) { y[0] = n; }\n\n"


def test_io_includes_are_removed_with_the_main_they_served() -> None:
    code = "#include <iostream>\n#include <cmath>\nvoid f(float* y) { y[0] = sqrtf(2.0f); }\n"
    fixed = repair(code, entry_name="f")
    assert fixed.code == "#include <cmath>\nvoid f(float* y) { y[0] = sqrtf(2.0f); }\n"
    assert fixed.fixes == ("removed #include <iostream>: a candidate does no I/O",)


def test_includes_of_an_examples_names_are_removed() -> None:
    """The 0.5B model's answer for trans_gelu_erf (seed graph, CPU): two names from the
    shown example in angle brackets. Standard, CUDA and library headers stay."""
    code = (
        "#include <cmath>\n#include <kBlockSize>\n#include <DeviceBuffer>\n"
        "#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n"
        "void f(float* y) { y[0] = sqrtf(2.0f); }\n"
    )
    fixed = repair(code, entry_name="f")
    assert fixed.code == (
        "#include <cmath>\n#include <cuda_runtime.h>\n#include <cub/cub.cuh>\n"
        "void f(float* y) { y[0] = sqrtf(2.0f); }\n"
    )
    assert fixed.fixes == (
        "removed #include <kBlockSize>: no such header",
        "removed #include <DeviceBuffer>: no such header",
    )


def test_main_is_kept_when_it_is_the_entry() -> None:
    unchanged("int main() { return 0; }\n", entry="main")


IN_MAIN = """\
void f(float* y) { k<<<1, 1>>>(y); }
int main() {
    __global__ void k(float* y) { y[0] = 1; }
    return 0;
}
"""


def test_a_kernel_defined_inside_main_survives_mains_removal() -> None:
    fixed = repair(IN_MAIN, entry_name="f")
    assert fixed.fixes == (
        "moved k out of main to file scope",
        "removed main: the verifier links its own",
        "declared k before its first use",
    )
    assert fixed.code == (
        "__global__ void k(float* y);\n\nvoid f(float* y) { k<<<1, 1>>>(y); }\n"
        "__global__ void k(float* y) { y[0] = 1; }\n\n"
    )


# --- (e) braces ------------------------------------------------------------------------------


def test_the_missing_brace_of_the_last_function_is_added() -> None:
    code = """\
void f(int n, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = 0;
    }
"""
    fixed = repair(code, entry_name="f")
    assert fixed.fixes == ("added the missing `}` that ends the last function",)
    assert fixed.code == code + "}\n"


@pytest.mark.parametrize(
    "code",
    [
        pytest.param(
            "void f(int n, float* y) {\n    for (int i = 0; i < n; ++i) {\n        y[i] = 0;\n"
            "    y[0] = 1;\n}\n",
            id="brace-missing-in-the-middle",
        ),
        pytest.param("void f(float* y) {\n    y[0] = \n", id="truncated-mid-statement"),
        pytest.param(
            "__global__ void k(float* y) {\n    y[0] = 1;\nvoid f(float* y) {\n"
            "    k<<<1, 1>>>(y);\n}\n",
            id="kernel-swallowed-the-next-function",
        ),
        pytest.param("namespace {\nvoid f(float* y) {\n    y[0] = 1;\n}\n", id="open-namespace"),
    ],
)
def test_a_missing_brace_is_left_alone_unless_it_ends_the_last_function(code: str) -> None:
    unchanged(code)


def test_a_missing_brace_is_not_added_to_a_truncated_answer() -> None:
    code = "void f(float* y) {\n    y[0] = 1;\n"
    assert repair(code, entry_name="f").code == code + "}\n"
    assert repair(code, entry_name="f", truncated=True) == Repaired(code)


def test_the_definition_a_token_limit_cut_is_dropped_after_whole_ones() -> None:
    whole = "__global__ void k(float* y) {\n    y[0] = 1;\n}\n"
    code = whole + "\n" + whole + "\n__global__ void k(float* y) {\n    y[0] ="
    fixed = repair(code, entry_name="f", truncated=True)
    assert fixed.code.strip() == whole.strip()
    assert fixed.fixes == (
        "dropped the last definition, cut off at the token limit",
        "removed an earlier definition of k",
    )
    assert repair(code, entry_name="f") == Repaired(code), "only at the token limit"


def test_an_unmatched_closing_brace_at_file_scope_is_removed() -> None:
    code = """\
template <typename T> void g(T* y) { y[0] = 0; }

}  // namespace

void f(float* y) { g(y); }
"""
    fixed = repair(code, entry_name="f")
    assert fixed.fixes == ("removed an unmatched `}` (line 3)",)
    assert fixed.code == code.replace("}  // namespace", "  // namespace")


# --- what is left alone -------------------------------------------------------------------------


def test_code_that_needs_no_repair_comes_back_as_it_is() -> None:
    unchanged(
        """\
__global__ void k(int n, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0;
}
void f(int n, float* y) { k<<<(n + 255) / 256, 256>>>(n, y); }
"""
    )


def test_includes_are_never_added() -> None:
    code = "void f(int n, float* y) { float* d; cudaMalloc(&d, n); cudaFree(d); }\n"
    unchanged(code)


def test_code_with_another_syntax_error_is_not_touched() -> None:
    unchanged(
        """\
void f(int n, float* y) {
    __global__ void k(float* y) { y[0] = 1 }
    k<<<1, 1>>>(y);
}
"""
    )


def test_the_entry_signature_is_never_changed() -> None:
    code = "void f(float* y) { y[0] = 0; }\nvoid f(float *y) { y[0] = 1; }\n"
    fixed = repair(code, entry_name="f")
    assert fixed.code == "void f(float *y) { y[0] = 1; }\n"
    assert "void f(float *y)" in fixed.code


# --- real answers --------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """One recorded answer (``answers/answers.toml`` says how each was made and measured)."""

    file: str
    entry: str
    finish: str
    compiles_before: bool
    compiles_after: bool
    fixes: list[str]

    @property
    def text(self) -> str:
        return (ANSWERS / self.file).read_text()

    def repaired(self) -> Repaired:
        code = answer_code(self.text, self.entry)
        return repair(code, entry_name=self.entry, truncated=self.finish == "length")


RECORDED = [
    Answer(
        r["file"], r["entry"], r["finish"], r["compiles_before"], r["compiles_after"], r["fixes"]
    )
    for r in tomllib.loads((ANSWERS / "answers.toml").read_text())["answer"]
]


def candidate(text: str, entry: str) -> str | None:
    """What the proposer would send to the verifier: parse_response's code, if any."""
    parsed = parse_response(text, entry_name=entry, host_entry=True)
    return parsed.code if isinstance(parsed, ParsedCode) else None


@pytest.mark.parametrize("answer", RECORDED, ids=[a.file for a in RECORDED])
def test_real_answers_are_repaired_as_recorded(answer: Answer) -> None:
    fixed = answer.repaired()
    assert list(fixed.fixes) == answer.fixes
    if fixed.fixes:
        assert parses(fixed.code)
        had_entry = answer.entry in defined_functions(answer_code(answer.text, answer.entry))
        cut = any("cut off at the token limit" in fix for fix in fixed.fixes)
        # An entry the token limit cut is gone with the cut; any other stays.
        assert (answer.entry in defined_functions(fixed.code)) == had_entry or cut


def nvcc_compiles(code: str, tmp_path: Path) -> bool:
    source = tmp_path / "candidate.cu"
    source.write_text(code)
    flags = [f"-arch={DEFAULT_ARCH}", "-O3", "-lineinfo", "-std=c++17"]
    argv = ["nvcc", "-c", "-o", "/dev/null", "-x", "cu", *flags, str(source)]
    return subprocess.run(argv, capture_output=True, check=False, timeout=300).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("answer", RECORDED, ids=[a.file for a in RECORDED])
def test_real_answers_compile_before_and_after_repair_as_measured(
    answer: Answer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    after = candidate(answer.text, answer.entry)
    # "Before" is what parse_response gave before it repaired answers.
    monkeypatch.setattr(prompts, "repair", lambda code, **_: Repaired(code))
    before = candidate(answer.text, answer.entry)
    assert (before is not None and nvcc_compiles(before, tmp_path)) == answer.compiles_before
    assert (after is not None and nvcc_compiles(after, tmp_path)) == answer.compiles_after


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize(
    "code", [NESTED, EARLY, TEMPLATE, IN_MAIN], ids=["nested", "early", "template", "in-main"]
)
def test_what_nvcc_refuses_compiles_once_repaired(code: str, tmp_path: Path) -> None:
    assert not nvcc_compiles(code, tmp_path)
    assert nvcc_compiles(repair(code, entry_name="f").code, tmp_path)
