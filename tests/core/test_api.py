"""The facade editors call: plain values in and out, one call per question."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path, PurePath

import pytest

from regrapht_core import api
from regrapht_core.contracts.evaluation import Evaluation, Status
from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.errors import TaskError
from regrapht_core.graph.paths import snapshot_path
from regrapht_core.graph.snapshot import load_snapshot
from regrapht_core.optimize.record import ResultRecord, Step
from tests.core.cxx.test_merge import apply
from tests.server.conftest import EXAMPLE
from tests.server.fakes import CANDIDATE, NOT_RUN, outcome, verified

# -- documents ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language_id", "path", "expected"),
    [
        ("cpp", "/x/a.txt", SourceLanguage.CPP),
        ("c", "/x/a.c", SourceLanguage.CPP),
        ("cuda-cpp", "/x/a.cpp", SourceLanguage.CUDA),
        ("python", "/x/a.cu", None),
        (None, "/x/a.cuh", SourceLanguage.CUDA),
        (None, "/x/a.hpp", SourceLanguage.CPP),
        (None, "/x/a.py", None),
    ],
)
def test_the_language_id_decides_and_the_suffix_is_the_fallback(
    language_id: str | None, path: str, expected: SourceLanguage | None
) -> None:
    assert api.document_language(path, language_id) is expected


def example() -> api.Document:
    return api.Document(EXAMPLE.read_text(), SourceLanguage.CPP)


def test_functions_are_found_listed_and_extracted() -> None:
    document = example()
    (smooth,) = api.eligible_functions(document)
    assert (smooth.name, smooth.kind) == ("smooth", api.FunctionKind.LOOP)
    inside = api.Position(smooth.span.start.row + 3, 8)
    assert api.function_at(document, inside) == smooth
    assert api.locate(document, "smooth", smooth.span.start.row) == smooth
    task = api.extract(document, smooth, origin="smooth.cpp")
    assert task.entry == "smooth"


def test_a_result_still_fits_only_the_same_function_and_task() -> None:
    document = example()
    smooth = api.locate(document, "smooth")
    assert smooth is not None
    task = api.extract(document, smooth)
    moved = api.Document("// a new line\n" + document.text, SourceLanguage.CPP)
    found = api.relocate(moved, smooth, task)
    assert found is not None and found.span.start.row == smooth.span.start.row + 1
    changed_size = document.text.replace("1<<22", "1<<20")
    assert api.relocate(api.Document(changed_size, SourceLanguage.CPP), smooth, task) is None
    edited = document.text.replace("acc += x[j]", "acc += 2 * x[j]")
    assert api.relocate(api.Document(edited, SourceLanguage.CPP), smooth, task) is None


TWO_LOOPS = """\
// regrapht: n = 1<<10; x[n] in; y[n] out
void two(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) y[i] = x[i];
    for (int i = 0; i < n; ++i) y[i] += 1.0f;
}
"""


def test_a_row_in_a_loop_selects_it_and_a_result_for_it_follows_the_function() -> None:
    document = api.Document(TWO_LOOPS, SourceLanguage.CPP)
    two = api.locate(document, "two")
    assert two is not None
    whole = api.extract(document, two, validate=False)
    second = api.extract(document, two, loop=3, validate=False)
    assert whole.loop is None and second.loop == api.LoopSelection(
        1, 2, "for (int i = 0; i < n; ++i)"
    )
    assert api.extract(document, two, loop=99, validate=False) == whole, "outside: the whole"
    moved = api.Document("// a new line\n" + TWO_LOOPS, SourceLanguage.CPP)
    found = api.relocate(moved, two, second)
    assert found is not None and api.loop_row(moved, found, second.loop) == 4
    fewer = api.Document(
        TWO_LOOPS.replace("    for (int i = 0; i < n; ++i) y[i] = x[i];\n", ""), SourceLanguage.CPP
    )
    changed = api.locate(fewer, "two")
    assert changed is not None and api.loop_row(fewer, changed, second.loop) is None


def test_a_pointer_comment_naming_a_file_that_is_no_text_says_why() -> None:
    def unreadable(name: str) -> str | None:
        raise TaskError(f"/w/{name}: contains NUL bytes; expected C, C++ or CUDA source text")

    document = api.Document(CPP, SourceLanguage.CPP)
    text = api.hover_record(document, api.Position(1, 5), unreadable)
    assert text == (
        "**ReGraphT**: the CUDA version is in `f.regrapht.cu`, which cannot be read: "
        "/w/f.regrapht.cu: contains NUL bytes; expected C, C++ or CUDA source text"
    )


def test_a_function_that_is_no_task_says_why() -> None:
    source = "void f(int n, float* v) { for (int i = 0; i < n; ++i) v[i] = ; }\n"
    document = api.Document(source, SourceLanguage.CPP)
    function = api.locate(document, "f")
    assert function is not None
    with pytest.raises(TaskError, match="fix the syntax first"):
        api.extract(document, function)


def test_importing_the_facade_leaves_the_heavy_parts_for_later() -> None:
    probe = (
        "import sys, regrapht_core.api; print('numpy' in sys.modules, 'networkx' in sys.modules)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == ["False", "False"]
    assert api.OptimizeOutcome.__name__ == "OptimizeOutcome"
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        api.Nothing  # noqa: B018


# -- a finished job -------------------------------------------------------------------------


def test_verified_faster_code_is_offered_with_its_speedup_and_device() -> None:
    offer = api.judge(outcome([verified(3.2), verified(8.1)], gpu=True), allow_unverified=False)
    assert isinstance(offer, api.Offer)
    assert offer.label == "ReGraphT: 8.1\N{MULTIPLICATION SIGN} faster (NVIDIA H100 80GB HBM3)"
    assert offer.record.brief == "8.10x faster, verified on NVIDIA H100 80GB HBM3"
    assert offer.entry == "smooth" and offer.code == CANDIDATE
    assert offer.header.startswith("// ReGraphT: 8.10x faster") and offer.header.endswith("\n")
    assert (
        "techniques: Parallelization (3.20x) -> Shared-memory tiling (8.10x)" in offer.description
    )
    assert offer.record.steps == (Step("parallelization", 3.2), Step("shared_memory_tiling", 8.1))


def test_the_offered_edit_makes_the_file_the_job_writes() -> None:
    """The editor's document after the edit is what ``regrapht optimize`` writes: the whole
    file with the result in place of the function, the header directly above it."""
    result = outcome([verified(3.2), verified(8.1)], gpu=True)
    offer = api.judge(result, allow_unverified=False)
    assert isinstance(offer, api.Offer) and offer.record == result.record()
    text = EXAMPLE.read_text()
    document = api.Document(text, SourceLanguage.CUDA)
    smooth = api.locate(document, "smooth")
    assert smooth is not None
    (changes,) = api.merge_result(document, smooth, offer)
    written = result.annotated_file(text)
    assert written == apply(text, changes.changes)
    assert f"{offer.header}void smooth(int n" in written


def test_without_a_gpu_compiled_code_needs_permission() -> None:
    result = outcome([NOT_RUN, NOT_RUN], gpu=False)
    refusal = api.judge(result, allow_unverified=False)
    assert isinstance(refusal, api.Refusal)
    assert "allowUnverified" in refusal.message and "2 candidates" in refusal.message
    assert refusal.diagnostic == (
        "ReGraphT: nothing verified (no GPU): 2 not_run; first problem: "
        "no GPU on this machine: compiled, not run"
    )
    offer = api.judge(result, allow_unverified=True)
    assert isinstance(offer, api.Offer)
    assert offer.label == "ReGraphT: compiled only — not run, not timed"
    assert offer.record.brief == "compiled only - not run, not timed"
    assert "faster" not in offer.header


def test_slower_or_failed_candidates_are_no_answer() -> None:
    failed = Evaluation(Status.WRONG_OUTPUT, "h", feedback="y[3]: want 1 got 2")
    refusal = api.judge(outcome([verified(0.7), failed], gpu=True), allow_unverified=True)
    assert isinstance(refusal, api.Refusal)
    assert "no verified faster version of smooth" in refusal.message
    assert refusal.diagnostic is not None and "1 verified, 1 wrong_output" in refusal.diagnostic


def test_a_cancel_before_anything_compiled_is_not_a_finding() -> None:
    refusal = api.judge(outcome([], gpu=True, cancelled=True), allow_unverified=True)
    assert refusal == api.Refusal("ReGraphT: cancelled smooth after 0 candidates.", None)


def test_a_cancelled_job_keeps_its_best_result() -> None:
    assert isinstance(
        api.judge(outcome([verified(2.0)], gpu=True, cancelled=True), allow_unverified=False),
        api.Offer,
    )


def offer() -> api.Offer:
    made = api.judge(outcome([verified(3.2), verified(8.1)], gpu=True), allow_unverified=False)
    assert isinstance(made, api.Offer)
    return made


def test_a_cuda_document_is_merged_in_place() -> None:
    text = EXAMPLE.read_text()
    document = api.Document(text, SourceLanguage.CUDA)
    smooth = api.locate(document, "smooth")
    assert smooth is not None
    assert api.sidecar_path(PurePath("/w/smooth.cu"), SourceLanguage.CUDA) is None
    (changes,) = api.merge_result(document, smooth, offer())
    assert changes.target is api.Target.DOCUMENT
    result = apply(text, changes.changes)
    assert result.count("void smooth(") == 1 and "smooth_kernel<<<" in result


def test_a_cpp_document_gets_a_sidecar_and_a_pointer() -> None:
    document = example()
    smooth = api.locate(document, "smooth")
    assert smooth is not None
    path = api.sidecar_path(PurePath("/w/smooth.cpp"), SourceLanguage.CPP)
    assert path == PurePath("/w/smooth.regrapht.cu")
    sidecar = api.Sidecar(path.name, None)
    create, pointer = api.merge_result(document, smooth, offer(), sidecar)
    assert (create.target, create.create) == (api.Target.SIDECAR, True)
    result = apply(document.text, pointer.changes)
    assert "// ReGraphT CUDA version: smooth.regrapht.cu (8.10x faster" in result
    assert apply("", create.changes) == outcome(
        [verified(3.2), verified(8.1)], gpu=True
    ).annotated_file(document.text), "the sidecar is the file `regrapht optimize` writes"


def test_learning_merges_an_applied_verified_chain_into_the_snapshot(tmp_path: Path) -> None:
    snapshot = Path(shutil.copy(snapshot_path(), tmp_path / "g.msgpack"))
    before = load_snapshot(snapshot).graph.example_count
    message = api.learn(outcome([verified(2.0), verified(3.0)], gpu=True), snapshot)
    assert message == f"ReGraphT learned 2 verified step(s) into {snapshot}"
    after = load_snapshot(snapshot)
    assert after.graph.example_count == before + 2
    examples = after.graph.examples("sequential", "parallelization")
    assert any(e.task == "smooth" and e.speedup == 2.0 for e in examples)


def test_compile_only_results_are_never_learned(tmp_path: Path) -> None:
    snapshot = Path(shutil.copy(snapshot_path(), tmp_path / "g.msgpack"))
    message = api.learn(outcome([NOT_RUN], gpu=False), snapshot)
    assert "learned nothing" in message
    assert snapshot.read_bytes() == snapshot_path().read_bytes()


# -- hover ----------------------------------------------------------------------------------

HEADER = ResultRecord("f", (Step("parallelization", None),), "m", 1, None).render()
OLDER_HEADER = "\n".join(line for line in HEADER.split("\n") if "record:" not in line)
CUDA = f"// regrapht: n = 1<<20; v[n] inout\n{HEADER}void f(int n, float* v) {{\n    g(v);\n}}\n"
CPP = (
    "// regrapht: n = 1<<20; v[n] inout\n"
    "// ReGraphT CUDA version: f.regrapht.cu (compiled only - not run, not timed)\n"
    "void f(int n, float* v) {\n"
    "    for (int i = 0; i < n; ++i) v[i] = 0;\n"
    "}\n"
)


def hover(source: str, line: int, files: dict[str, str] | None = None) -> str | None:
    language = SourceLanguage.CPP if files is not None else SourceLanguage.CUDA
    document = api.Document(source, language)
    return api.hover_record(document, api.Position(line, 5), (files or {}).get)


def test_the_function_below_a_header_and_the_whole_comment_block_show_it() -> None:
    for line in range(7):
        text = hover(CUDA, line)
        assert text is not None and "1. Parallelization" in text, line
        assert "compiled only" in text, line
    assert hover(CUDA + "\nvoid h() {}\n", 8) is None


def test_a_pointer_comment_shows_the_record_of_the_same_function_in_its_file() -> None:
    other = "void other() {}\n"
    files = {"f.regrapht.cu": f"{other}{CUDA}"}
    for line in (1, 3):
        text = hover(CPP, line, files)
        assert text is not None and "in `f.regrapht.cu`" in text, line
    assert hover(CPP, 0, files) is None  # the annotation is not the record
    assert "cannot be read" in (hover(CPP, 1, {}) or "")
    assert "no single definition of `f`" in (hover(CPP, 1, {"f.regrapht.cu": other}) or "")


def test_a_header_without_a_record_line_is_from_an_older_version() -> None:
    older = CUDA.replace(HEADER, OLDER_HEADER + "\n")
    text = hover(older, 2)
    assert text is not None and "written by an older ReGraphT" in text
    assert "Parallelization" not in text
