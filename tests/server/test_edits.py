"""The core's text changes as a workspace edit: annotated, versioned, in the client's units."""

from __future__ import annotations

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from regrapht_server.edits import ANNOTATION_ID, Snapshot, workspace_edit
from regrapht_server.positions import to_core, to_lsp, to_range

from regrapht_core import api
from regrapht_core.contracts.task import SourceLanguage

from .conftest import EXAMPLE, apply_text
from .fakes import outcome, verified

CODEC = PositionCodec()


def offer() -> api.Offer:
    made = api.judge(outcome([verified(3.2), verified(8.1)], gpu=True), allow_unverified=False)
    assert isinstance(made, api.Offer)
    return made


def snapshot(text: str, language: SourceLanguage, uri: str, version: int | None) -> Snapshot:
    return Snapshot(uri, version, api.Document(text, language))


def test_every_change_is_annotated_versioned_and_needs_confirmation() -> None:
    text = EXAMPLE.read_text()
    doc = snapshot(text, SourceLanguage.CUDA, "file:///w/smooth.cu", 4)
    smooth = api.locate(doc.document, "smooth")
    assert smooth is not None
    files = api.merge_result(doc.document, smooth, offer())
    edit = workspace_edit(files, {api.Target.DOCUMENT: doc}, offer(), CODEC)
    annotation = (edit.change_annotations or {})[ANNOTATION_ID]
    assert annotation.label == "ReGraphT: 8.1\N{MULTIPLICATION SIGN} faster (NVIDIA H100 80GB HBM3)"
    assert annotation.needs_confirmation
    assert annotation.description is not None and "record:" not in annotation.description
    (change,) = edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit)
    assert change.text_document.version == 4
    assert all(isinstance(e, types.AnnotatedTextEdit) for e in change.edits)
    assert apply_text(text, change.edits).count("// ReGraphT: 8.10x") == 1


def test_a_new_cuda_file_is_created_then_filled_and_the_source_points_at_it() -> None:
    source = snapshot(EXAMPLE.read_text(), SourceLanguage.CPP, "file:///w/smooth.cpp", 2)
    sidecar = snapshot("", SourceLanguage.CUDA, "file:///w/smooth.regrapht.cu", None)
    smooth = api.locate(source.document, "smooth")
    assert smooth is not None
    files = api.merge_result(
        source.document, smooth, offer(), api.Sidecar("smooth.regrapht.cu", None)
    )
    targets = {api.Target.DOCUMENT: source, api.Target.SIDECAR: sidecar}
    create, cuda, pointer = workspace_edit(files, targets, offer(), CODEC).document_changes or []
    assert isinstance(create, types.CreateFile) and create.annotation_id == ANNOTATION_ID
    assert create.uri == sidecar.uri
    assert isinstance(cuda, types.TextDocumentEdit) and cuda.text_document.version is None
    assert isinstance(pointer, types.TextDocumentEdit) and pointer.text_document.version == 2
    assert "// ReGraphT CUDA version: smooth.regrapht.cu" in pointer.edits[0].new_text


def test_positions_count_in_the_clients_units() -> None:
    source = "/* 😋 */ void f(float* a, int n) { for (int i = 0; i < n; ++i) a[i] = 0; }\n"
    document = api.Document(source, SourceLanguage.CPP)
    here = to_core(document, CODEC, types.Position(0, 12))  # UTF-16: the emoji is two units
    assert here == api.Position(0, 11)
    function = api.function_at(document, here)
    assert function is not None and function.name == "f"
    assert to_range(document, CODEC, function.span).start == types.Position(0, 9)
    utf8 = PositionCodec(types.PositionEncodingKind.Utf8)
    assert to_lsp(document, utf8, function.span.start) == types.Position(0, 11)
    assert to_lsp(document, CODEC, document.end()) == types.Position(1, 0)
    assert to_lsp(document, CODEC, api.Position(5, 0)) == types.Position(2, 0)
    assert to_core(document, CODEC, types.Position(9, 3)) == api.Position(1, 0)
