"""Merging a CUDA unit: in place without redefinitions, or beside C/C++ files with a pointer."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path, PurePath

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.document import Document, Function, FunctionKind
from regrapht_core.cxx.merge import (
    FileChanges,
    Sidecar,
    Target,
    TextChange,
    Unit,
    merge_unit,
    pointer_comment,
    pointer_target,
    sidecar_path,
)
from regrapht_core.cxx.parse import node_text
from regrapht_core.optimize.record import ResultRecord, header_rows
from tests.server.conftest import EXAMPLE, SOURCES
from tests.server.fakes import CANDIDATE, KERNEL, outcome, verified


def unit(code: str = CANDIDATE, entry: str = "smooth") -> Unit:
    result = outcome([verified(3.2), verified(8.1)], gpu=True, code=code)
    answer = result.answer
    assert answer is not None
    record = ResultRecord.of(
        result.task, answer, result.search.path, model=result.model, candidates_tried=2
    )
    return Unit(entry, code, record.render(), header_rows, record.brief)


def apply(text: str, changes: Sequence[TextChange]) -> str:
    """What an editor does with one file's changes (rows, code-point columns)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(row: int, column: int) -> int:
        return min(starts[min(row, len(lines))] + column, len(text))

    for change in sorted(changes, key=lambda c: c.span.start, reverse=True):
        start, end = offset(*change.span.start), offset(*change.span.end)
        text = text[:start] + change.text + text[end:]
    return text


def function(document: Document, name: str) -> Function:
    """The only definition of ``name``, eligible or not (an optimized one has no loop)."""
    (node,) = document.definitions(name)
    span = document.span(node)
    return Function(name, name, FunctionKind.LOOP, span, span, node_text(node))


def in_place(text: str, name: str, merged: Unit) -> str:
    document = Document(text, SourceLanguage.CUDA)
    (changes,) = merge_unit(document, function(document, name), merged, None)
    assert changes.target is Target.DOCUMENT and not changes.create
    return apply(text, changes.changes)


def test_the_sidecar_is_named_after_the_source() -> None:
    assert sidecar_path(PurePath("/w/foo.cpp")) == PurePath("/w/foo.regrapht.cu")
    assert sidecar_path(PurePath("/w/bar.c")) == PurePath("/w/bar.regrapht.cu")


def test_in_place_keeps_what_the_file_has_and_puts_the_header_above_the_function() -> None:
    result = in_place(EXAMPLE.read_text(), "smooth", unit())
    assert result.count("constexpr int RADIUS = 16;") == 1
    assert result.count("#include <cstddef>") == 1
    assert "#include <cstddef>\n#include <cuda_runtime.h>\n" in result
    assert result.count("__global__ void smooth_kernel") == 1
    head, _, tail = result.partition("void smooth(int n")
    assert head.splitlines()[-2].endswith("candidates tried: 2")
    assert head.splitlines()[-1].startswith("//   record: ")
    assert "// regrapht: n = 1<<22; x[n] in; y[n] out\n// ReGraphT: 8.10x" in head
    assert head.index("smooth_kernel") < head.index("// regrapht: n = 1<<22")
    assert "smooth_kernel<<<" in tail and "acc +=" not in tail


def test_optimizing_again_replaces_the_old_header_and_kernel() -> None:
    once = in_place(EXAMPLE.read_text(), "smooth", unit())
    faster_kernel = KERNEL.replace("y[i] = x[i];", "y[i] = __ldg(&x[i]);")
    twice = in_place(once, "smooth", unit(CANDIDATE.replace(KERNEL, faster_kernel)))
    assert twice.count("// ReGraphT:") == 1 and twice.count("//   record:") == 1
    assert twice.count("__global__ void smooth_kernel") == 1 and "__ldg" in twice


def test_a_header_of_an_older_version_is_replaced_too() -> None:
    once = in_place(EXAMPLE.read_text(), "smooth", unit())
    older = "\n".join(line for line in once.split("\n") if "//   record:" not in line)
    again = in_place(older, "smooth", unit())
    assert again.count("// ReGraphT:") == 1 and again.count("//   record:") == 1


def test_a_kernel_is_replaced_without_redefining_its_neighbours(tmp_path: Path) -> None:
    text = (SOURCES / "kernels.cu").read_text()
    start = text.index("__global__ void fused_kernel")
    end = text.index("__global__ void transpose_kernel")
    helper = "__device__ __forceinline__ float fused(float a, float b) { return a * b + a; }"
    faster = text[start:end].replace("int i =", "const int i =")
    candidate = f"#include <cuda_runtime.h>\n\n#define BLOCK 256\n\n{helper}\n\n{faster}"
    result = in_place(text, "fused_kernel", unit(candidate, "fused_kernel"))
    assert result.count("#define BLOCK") == 1 and result.count("float fused(") == 1
    assert "const int i =" in result and result.count("void fused_kernel(") == 1
    assert "transpose_kernel" in result and "scale_cpu" in result
    (tmp_path / "kernels.cu").write_text(result)
    compiled = subprocess.run(
        ["nvcc", "-c", "-std=c++17", "kernels.cu", "-o", "kernels.o"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr


def test_a_changed_helper_is_replaced_where_it_stands() -> None:
    text = (SOURCES / "kernels.cu").read_text()
    helper = "__device__ __forceinline__ float fused(float a, float b) { return fmaf(a, b, a); }"
    kernel = text[
        text.index("__global__ void fused_kernel") : text.index("__global__ void transpose")
    ]
    result = in_place(text, "fused_kernel", unit(f"{helper}\n\n{kernel}", "fused_kernel"))
    assert result.count("float fused(") == 1 and "fmaf(a, b, a)" in result
    assert result.index("#define BLOCK") < result.index("fmaf") < result.index("fused_kernel")


GAIN = """\
#include <cmath>

class GainStage {
public:
    explicit GainStage(float db) : gain_(std::pow(10.0f, db / 20.0f)) {}
    void apply(const float* in, float* out, int n) const {
        for (int i = 0; i < n; ++i) out[i] = in[i] * gain_;
    }
private:
    float gain_;
};

int main() { return 0; }
"""
GAIN_IMPL = "static void apply_impl(const float* in, float* out, int n, float gain_) {}"


def test_a_member_defined_in_its_class_replaces_the_class_with_helpers_above_it() -> None:
    """The unit has the class with the member changed, and the implementation before it:
    merged member by member, the helper would land inside the class."""
    changed = GAIN[GAIN.index("class") : GAIN.index("int main")].replace(
        "for (int i = 0; i < n; ++i) out[i] = in[i] * gain_;", "apply_impl(in, out, n, gain_);"
    )
    result = in_place(GAIN, "apply", unit(f"#include <cmath>\n\n{GAIN_IMPL}\n\n{changed}", "apply"))
    assert result.count("class GainStage") == 1 and result.count("apply_impl(") == 2
    assert result.index(GAIN_IMPL) < result.index("// ReGraphT: ") < result.index("class Gain")
    assert "    float gain_;\n};\n" in result and ";;" not in result
    assert result.endswith("\n\nint main() { return 0; }\n")


def test_changes_are_one_per_start_in_order() -> None:
    text = EXAMPLE.read_text()
    document = Document(text, SourceLanguage.CUDA)
    (changes,) = merge_unit(document, function(document, "smooth"), unit(), None)
    starts = [change.span.start for change in changes.changes]
    assert starts == sorted(set(starts))


def beside(text: str, merged: Unit, cuda: Document | None) -> tuple[FileChanges, FileChanges]:
    source = Document(text, SourceLanguage.CPP)
    sidecar = Sidecar("smooth.regrapht.cu", cuda)
    cuda_changes, pointer = merge_unit(source, function(source, "smooth"), merged, sidecar)
    assert (cuda_changes.target, pointer.target) == (Target.SIDECAR, Target.DOCUMENT)
    assert cuda_changes.create is (cuda is None) and not pointer.create
    return cuda_changes, pointer


def test_beside_creates_the_cuda_file_from_the_source_and_points_at_it() -> None:
    text = EXAMPLE.read_text() + "\nint main() { return 0; }\n"
    cuda, pointer = beside(text, unit(), None)
    (whole,) = cuda.changes
    assert whole.text == in_place(text, "smooth", unit()), "the whole file, merged"
    assert whole.text.startswith(text[: text.index("#include")])
    assert "#include <cstddef>\n#include <cuda_runtime.h>\n" in whole.text
    assert "// regrapht: n = 1<<22; x[n] in; y[n] out\n// ReGraphT: 8.10x" in whole.text
    assert "candidates tried: 2\n//   record: " in whole.text
    assert whole.text.endswith("}\n\nint main() { return 0; }\n")
    result = apply(text, pointer.changes)
    lines = result.splitlines()
    row = lines.index("void smooth(int n, const float* x, float* y) {")
    assert lines[row - 2].startswith("// regrapht: n = 1<<22")
    assert lines[row - 1] == (
        "// ReGraphT CUDA version: smooth.regrapht.cu "
        "(8.10x faster, verified on NVIDIA H100 80GB HBM3)"
    )
    created = apply("", cuda.changes)
    cuda_again, pointer_again = beside(result, unit(), Document(created, SourceLanguage.CUDA))
    assert apply(result, pointer_again.changes).count("// ReGraphT CUDA version") == 1
    assert apply(created, cuda_again.changes).count("// ReGraphT:") == 1


def test_a_second_function_of_the_same_file_joins_the_cuda_file() -> None:
    existing = "#include <cuda_runtime.h>\n\nconstexpr int RADIUS = 16;\n\nvoid other() {}\n"
    cuda, _ = beside(EXAMPLE.read_text(), unit(), Document(existing, SourceLanguage.CUDA))
    result = apply(existing, cuda.changes)
    assert result.startswith("#include <cuda_runtime.h>\n#include <cstddef>\n")
    assert result.count("RADIUS = 16") == 1 and "void other() {}" in result
    assert result.index("void other") < result.index("smooth_kernel") < result.index("// ReGraphT")


def test_a_pointer_comment_names_its_file_and_is_not_a_header() -> None:
    line = pointer_comment("my file.regrapht.cu", "8.10x faster, verified on H100")
    assert not line.startswith("// ReGraphT:")
    assert pointer_target(line) == "my file.regrapht.cu"
    assert pointer_target("  " + pointer_comment("smooth.regrapht.cu", "x")) == "smooth.regrapht.cu"
    assert pointer_target("// ReGraphT CUDA version: smooth.regrapht.cu") == "smooth.regrapht.cu"
    assert pointer_target("// ReGraphT CUDA version: notes.txt") is None
    assert pointer_target("// ReGraphT CUDA version: ../x.regrapht.cu (y)") is None
    assert pointer_target("// something else") is None
