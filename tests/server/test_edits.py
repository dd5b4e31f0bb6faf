"""Edits: merged into CUDA files without redefinitions, or beside C/C++ files with a pointer."""

from __future__ import annotations

import subprocess
from pathlib import Path

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from regrapht_server.edits import ANNOTATION_ID, Document, beside, in_place, sidecar_path
from regrapht_server.outcomes import Offer, judge
from regrapht_server.regions import Parsed

from regrapht_core.contracts.task import SourceLanguage

from .conftest import EXAMPLE, SOURCES, apply_text
from .fakes import CANDIDATE, KERNEL, outcome, verified

CODEC = PositionCodec()


def offer(code: str = CANDIDATE, entry: str = "smooth") -> Offer:
    made = judge(
        outcome([verified(3.2), verified(8.1)], gpu=True, code=code), allow_unverified=False
    )
    assert isinstance(made, Offer)
    return Offer(entry, code, made.header, made.label, made.description, made.summary)


def document(text: str, language: SourceLanguage, uri: str = "file:///w/smooth.cu") -> Document:
    return Document(uri, 4, Parsed(text, language, CODEC))


def merged(text: str, edit: types.WorkspaceEdit, index: int = 0) -> str:
    change = (edit.document_changes or [])[index]
    assert isinstance(change, types.TextDocumentEdit)
    return apply_text(text, change.edits)


def smooth_region(doc: Document) -> object:
    region = doc.parsed.locate("smooth")
    assert region is not None
    return region


def test_the_sidecar_is_named_after_the_source() -> None:
    assert sidecar_path(Path("/w/foo.cpp")) == Path("/w/foo.regrapht.cu")
    assert sidecar_path(Path("/w/bar.c")) == Path("/w/bar.regrapht.cu")


def test_every_change_is_annotated_and_needs_confirmation() -> None:
    doc = document(EXAMPLE.read_text(), SourceLanguage.CUDA)
    region = doc.parsed.locate("smooth")
    assert region is not None
    edit = in_place(doc, region, offer())
    annotation = (edit.change_annotations or {})[ANNOTATION_ID]
    assert annotation.label == "ReGraphT: 8.1\N{MULTIPLICATION SIGN} faster (NVIDIA H100 80GB HBM3)"
    assert annotation.needs_confirmation
    (change,) = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 4
    assert all(isinstance(e, types.AnnotatedTextEdit) for e in change.edits)


def test_in_place_keeps_what_the_file_has_and_puts_the_header_above_the_function() -> None:
    text = EXAMPLE.read_text()
    doc = document(text, SourceLanguage.CUDA)
    region = doc.parsed.locate("smooth")
    assert region is not None
    result = merged(text, in_place(doc, region, offer()))
    assert result.count("constexpr int RADIUS = 16;") == 1
    assert result.count("#include <cstddef>") == 1
    assert "#include <cstddef>\n#include <cuda_runtime.h>\n" in result
    assert result.count("__global__ void smooth_kernel") == 1
    head, _, tail = result.partition("void smooth(int n")
    assert head.endswith("candidates tried: 2\n")
    assert "// regrapht: n = 1<<22; x[n] in; y[n] out\n// ReGraphT: 8.10x" in head
    assert head.index("smooth_kernel") < head.index("// regrapht: n = 1<<22")
    assert "smooth_kernel<<<" in tail and "acc +=" not in tail


def test_optimizing_again_replaces_the_old_header_and_kernel() -> None:
    text = EXAMPLE.read_text()
    doc = document(text, SourceLanguage.CUDA)
    region = doc.parsed.locate("smooth")
    assert region is not None
    once = merged(text, in_place(doc, region, offer()))
    faster_kernel = KERNEL.replace("y[i] = x[i];", "y[i] = __ldg(&x[i]);")
    again_doc = document(once, SourceLanguage.CUDA)
    smooth = once[once.index("void smooth(int n") :]
    again_region = again_doc.parsed.find("smooth", smooth.rstrip("\n"))
    assert again_region is not None
    twice = merged(
        once, in_place(again_doc, again_region, offer(CANDIDATE.replace(KERNEL, faster_kernel)))
    )
    assert twice.count("// ReGraphT:") == 1
    assert twice.count("__global__ void smooth_kernel") == 1 and "__ldg" in twice


def test_a_kernel_is_replaced_without_redefining_its_neighbours(tmp_path: Path) -> None:
    text = (SOURCES / "kernels.cu").read_text()
    doc = document(text, SourceLanguage.CUDA)
    region = doc.parsed.locate("fused_kernel")
    assert region is not None
    start = text.index("__global__ void fused_kernel")
    end = text.index("__global__ void transpose_kernel")
    helper = "__device__ __forceinline__ float fused(float a, float b) { return a * b + a; }"
    faster = text[start:end].replace("int i =", "const int i =")
    candidate = f"#include <cuda_runtime.h>\n\n#define BLOCK 256\n\n{helper}\n\n{faster}"
    result = merged(text, in_place(doc, region, offer(candidate, "fused_kernel")))
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
    doc = document(text, SourceLanguage.CUDA)
    region = doc.parsed.locate("fused_kernel")
    assert region is not None
    helper = "__device__ __forceinline__ float fused(float a, float b) { return fmaf(a, b, a); }"
    kernel = text[
        text.index("__global__ void fused_kernel") : text.index("__global__ void transpose")
    ]
    result = merged(text, in_place(doc, region, offer(f"{helper}\n\n{kernel}", "fused_kernel")))
    assert result.count("float fused(") == 1 and "fmaf(a, b, a)" in result
    assert result.index("#define BLOCK") < result.index("fmaf") < result.index("fused_kernel")


def test_beside_creates_the_cuda_file_and_points_at_it() -> None:
    text = EXAMPLE.read_text()
    source = document(text, SourceLanguage.CPP, "file:///w/smooth.cpp")
    region = source.parsed.locate("smooth")
    assert region is not None
    edit = beside(source, region, "file:///w/smooth.regrapht.cu", None, offer())
    create, cuda, _ = edit.document_changes or []
    assert isinstance(create, types.CreateFile) and create.annotation_id == ANNOTATION_ID
    assert isinstance(cuda, types.TextDocumentEdit) and cuda.text_document.version is None
    (unit,) = cuda.edits
    assert unit.new_text.startswith("#include <cuda_runtime.h>")
    assert "}\n\n// ReGraphT: 8.10x" in unit.new_text
    assert "candidates tried: 2\nvoid smooth(" in unit.new_text
    result = merged(text, edit, 2)
    lines = result.splitlines()
    row = lines.index("void smooth(int n, const float* x, float* y) {")
    assert lines[row - 2].startswith("// regrapht: n = 1<<22")
    assert lines[row - 1] == (
        "// ReGraphT CUDA version: smooth.regrapht.cu "
        "(8.10x faster, verified on NVIDIA H100 80GB HBM3)"
    )
    again = document(result, SourceLanguage.CPP, "file:///w/smooth.cpp")
    again_region = again.parsed.locate("smooth")
    assert again_region is not None
    sidecar = document(
        apply_text("", cuda.edits), SourceLanguage.CUDA, "file:///w/smooth.regrapht.cu"
    )
    second = beside(again, again_region, sidecar.uri, sidecar, offer())
    assert [type(c) for c in second.document_changes or []] == [types.TextDocumentEdit] * 2
    assert merged(result, second, 1).count("// ReGraphT CUDA version") == 1
    assert merged(sidecar.parsed.source, second, 0).count("// ReGraphT:") == 1


def test_a_second_function_of_the_same_file_joins_the_cuda_file() -> None:
    existing = "#include <cuda_runtime.h>\n\nconstexpr int RADIUS = 16;\n\nvoid other() {}\n"
    sidecar = document(existing, SourceLanguage.CUDA, "file:///w/smooth.regrapht.cu")
    text = EXAMPLE.read_text()
    source = document(text, SourceLanguage.CPP, "file:///w/smooth.cpp")
    region = source.parsed.locate("smooth")
    assert region is not None
    result = merged(existing, beside(source, region, sidecar.uri, sidecar, offer()), 0)
    assert result.startswith("#include <cuda_runtime.h>\n#include <cstddef>\n")
    assert result.count("RADIUS = 16") == 1 and "void other() {}" in result
    assert result.index("void other") < result.index("smooth_kernel") < result.index("// ReGraphT")
