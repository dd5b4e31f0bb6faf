"""The result record: rendered as the header people read, parsed back from its record line."""

from __future__ import annotations

import pytest

from regrapht_core.optimize.record import HEADER_MARK, ResultRecord, Step, header_rows
from tests.server.fakes import NOT_RUN, outcome, verified


def record(*, gpu: bool) -> ResultRecord:
    result = outcome([verified(3.2), verified(8.1)] if gpu else [NOT_RUN, NOT_RUN], gpu=gpu)
    answer = result.answer
    assert answer is not None
    return ResultRecord.of(
        result.task, answer, result.search.path, model=result.model, candidates_tried=2
    )


def test_a_verified_header_keeps_its_prose_lines() -> None:
    lines = record(gpu=True).render().splitlines()
    assert lines[:6] == [
        "// ReGraphT: 8.10x faster than the sequential smooth (verified on NVIDIA H100 80GB HBM3)",
        "//   timing: end_to_end, median of 30 runs: 81 ms -> 10 ms",
        "//   driver 580.95, nvcc 13.0",
        "//   checked: 3 sizes x 3 seeds; timed at n=4194304",
        "//   techniques: Parallelization (3.20x) -> Shared-memory tiling (8.10x)",
        "//   model: qwen2.5-coder-0.5b; candidates tried: 2",
    ]
    assert lines[6].startswith('//   record: {"schema":1,') and len(lines) == 7


def test_a_compiled_only_header_says_so() -> None:
    lines = record(gpu=False).render().splitlines()
    assert lines[:2] == [
        "// ReGraphT: compiled only - not run, not timed (no GPU was available)",
        "//   it passed the static checks and compiled; its results are unchecked",
    ]
    assert "faster" not in "\n".join(lines)


@pytest.mark.parametrize("gpu", [True, False])
def test_the_record_reads_back_from_its_header(gpu: bool) -> None:
    written = record(gpu=gpu)
    assert ResultRecord.parse(written.render().splitlines()) == written
    indented = ["    " + line for line in written.render().splitlines()]
    assert ResultRecord.parse(indented) == written


def test_prose_is_never_parsed() -> None:
    lines = record(gpu=True).render().splitlines()
    edited = [line.replace("8.10x faster", "99x faster") for line in lines]
    parsed = ResultRecord.parse(edited)
    assert parsed is not None and parsed.headline.startswith("8.10x faster")


def test_an_older_or_damaged_header_has_no_record() -> None:
    older = [
        "// ReGraphT: 8.10x faster than the sequential f (verified on H100)",
        "//   techniques: Parallelization (3.20x)",
    ]
    assert ResultRecord.parse(older) is None
    line = record(gpu=True).render().splitlines()[-1]
    for damaged in (
        line[:-2],
        line.replace('"schema":1', '"schema":99'),
        line.replace('"runs":30', '"runs":"30"'),
        line.replace('"candidates_tried":2', '"candidates_tried":true'),
    ):
        assert ResultRecord.parse([*older, damaged]) is None, damaged


def test_hover_markdown_comes_from_the_fields() -> None:
    markdown = record(gpu=True).markdown("f.regrapht.cu")
    assert markdown.startswith("**ReGraphT**: 8.10x faster than the sequential smooth")
    assert "in `f.regrapht.cu`" in markdown
    assert "1. Parallelization — 3.20x\n2. Shared-memory tiling — 8.10x" in markdown
    assert "- timing: end_to_end, median of 30 runs: 81 ms -> 10 ms" in markdown
    assert "- driver 580.95, nvcc 13.0" in markdown
    assert "- checked: 3 sizes x 3 seeds; timed at n=4194304" in markdown
    assert "**Model**: qwen2.5-coder-0.5b; candidates tried: 2" in markdown
    assert "record:" not in markdown
    compiled = record(gpu=False).markdown()
    assert compiled.startswith("**ReGraphT**: compiled only - not run, not timed")
    assert "- it passed the static checks and compiled; its results are unchecked" in compiled


def test_steps_without_a_speedup_show_none_and_no_steps_show_no_list() -> None:
    timed = ResultRecord(
        "f", (Step("parallelization", 3.2), Step("loop_unrolling", None)), "m", 1, None
    )
    assert "1. Parallelization — 3.20x\n2. Loop unrolling\n" in timed.markdown()
    assert "techniques: Parallelization (3.20x) -> Loop unrolling" in timed.render()
    bare = ResultRecord("f", (), "m", 1, None)
    assert "Techniques" not in bare.markdown() and "techniques: none" in bare.render()


def test_label_brief_and_description() -> None:
    verified_record, compiled = record(gpu=True), record(gpu=False)
    assert (
        verified_record.label
        == "ReGraphT: 8.1\N{MULTIPLICATION SIGN} faster (NVIDIA H100 80GB HBM3)"
    )
    assert verified_record.brief == "8.10x faster, verified on NVIDIA H100 80GB HBM3"
    assert "techniques: Parallelization (3.20x) -> Shared-memory tiling (8.10x)" in (
        verified_record.description
    )
    assert "record:" not in verified_record.description
    assert compiled.label == "ReGraphT: compiled only — not run, not timed"
    assert compiled.brief == "compiled only - not run, not timed"


def test_the_header_is_found_after_other_comments_and_ends_with_its_lines() -> None:
    lines = ["// regrapht: n = 1<<20", *record(gpu=True).render().splitlines(), "void f() {}"]
    assert header_rows(lines, range(0, 8)) == range(1, 8)
    assert header_rows(lines, range(0, 1)) is None
    assert header_rows([f"{HEADER_MARK} x", "// another comment"], range(0, 2)) == range(0, 1)
