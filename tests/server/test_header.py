"""The header the core writes, read back: what hover shows after a restart."""

from __future__ import annotations

from regrapht_server.header import (
    header_rows,
    parse_header,
    pointer_comment,
    pointer_target,
)

from regrapht_core.optimize.header import render_header

from .fakes import NOT_RUN, outcome, smooth_task, verified


def rendered(*, gpu: bool) -> list[str]:
    result = outcome([verified(3.2), verified(8.1)] if gpu else [NOT_RUN, NOT_RUN], gpu=gpu)
    answer = result.answer
    assert answer is not None
    header = render_header(
        smooth_task(), answer, result.search.path, model=result.model, candidates_tried=2
    )
    return header.splitlines()


def test_a_verified_header_reads_back_with_its_measurements() -> None:
    record = parse_header(rendered(gpu=True))
    assert record.summary == (
        "8.10x faster than the sequential smooth (verified on NVIDIA H100 80GB HBM3)"
    )
    assert record.field("timing") == "end_to_end, median of 30 runs: 81 ms -> 10 ms"
    assert record.field("checked") == "3 sizes x 3 seeds; timed at n=4194304"
    assert record.field("model") == "smollm2-135m-instruct; candidates tried: 2"
    assert record.notes == ("driver 580.95, nvcc 13.0",)
    assert [(step.technique, step.speedup) for step in record.steps] == [
        ("Parallelization", "3.20x"),
        ("Shared-memory tiling", "8.10x"),
    ]


def test_a_compiled_only_header_says_so() -> None:
    record = parse_header(rendered(gpu=False))
    assert record.summary == "compiled only - not run, not timed (no GPU was available)"
    assert record.field("timing") is None
    markdown = record.markdown()
    assert markdown.startswith("**ReGraphT**: compiled only - not run, not timed")
    assert "- it passed the static checks and compiled; its results are unchecked" in markdown


def test_per_step_speedups_are_shown_when_the_header_has_them() -> None:
    record = parse_header(
        [
            "// ReGraphT: 8.10x faster than the sequential f (verified on H100)",
            "//   techniques: Parallelization (3.20x) -> Loop unrolling -> Tiling (8.10x)",
        ]
    )
    assert [(s.technique, s.speedup) for s in record.steps] == [
        ("Parallelization", "3.20x"),
        ("Loop unrolling", None),
        ("Tiling", "8.10x"),
    ]
    markdown = record.markdown("f.regrapht.cu")
    assert "1. Parallelization — 3.20x\n2. Loop unrolling\n3. Tiling — 8.10x" in markdown
    assert "in `f.regrapht.cu`" in markdown


def test_no_techniques_means_no_steps() -> None:
    record = parse_header(["// ReGraphT: compiled only", "//   techniques: none"])
    assert record.steps == ()
    assert "Techniques" not in record.markdown()


def test_the_header_is_found_after_other_comments_and_ends_with_its_lines() -> None:
    lines = [
        "// regrapht: n = 1<<20",
        *rendered(gpu=True),
        "void smooth(int n) {}",
    ]
    assert header_rows(lines, range(0, 7)) == range(1, 7)
    assert header_rows(lines, range(0, 1)) is None
    assert header_rows(["// ReGraphT: x", "// another comment"], range(0, 2)) == range(0, 1)


def test_a_pointer_comment_names_its_file_and_is_not_a_header() -> None:
    line = pointer_comment("my file.regrapht.cu", "8.10x faster, verified on H100")
    assert not line.startswith("// ReGraphT:")
    assert pointer_target("  " + pointer_comment("smooth.regrapht.cu", "x")) == "smooth.regrapht.cu"
    assert pointer_target("// ReGraphT CUDA version: notes.txt") is None
    assert pointer_target("// something else") is None
