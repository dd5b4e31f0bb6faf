from __future__ import annotations

import time

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.tasks.targets import Target, TargetKind, find_targets

from .conftest import source_path


def _summary(targets: tuple[Target, ...]) -> list[tuple[str, str, int]]:
    return [(t.kind.value, t.function, t.start[0]) for t in targets]


def test_kernels_functions_and_outermost_loops() -> None:
    targets = find_targets(source_path("kernels.cu").read_text(), SourceLanguage.CUDA)
    assert _summary(targets) == [
        ("kernel", "fused_kernel", 7),
        ("kernel", "transpose_kernel", 15),
        ("function", "scale_cpu", 37),
        ("loop", "scale_cpu", 38),
    ]


def test_only_outermost_loops_and_functions_with_loops() -> None:
    targets = find_targets(source_path("helpers.cpp").read_text(), SourceLanguage.CPP)
    assert [(t.kind, t.function) for t in targets] == [
        (TargetKind.FUNCTION, "unused_helper"),
        (TargetKind.LOOP, "unused_helper"),
        (TargetKind.FUNCTION, "apply_smoothstep"),
        (TargetKind.LOOP, "apply_smoothstep"),
    ]
    jacobi = find_targets(source_path("stencil.c").read_text(), SourceLanguage.CPP)
    loops = [t for t in jacobi if t.kind is TargetKind.LOOP and t.function == "jacobi2d"]
    assert len(loops) == 1 and loops[0].end[0] > loops[0].start[0] + 3


def test_tolerates_syntax_errors_elsewhere() -> None:
    text = source_path("broken.cpp").read_text() + "\nvoid ok(int n, float* v) { for (;;) {} }\n"
    assert "ok" in {t.function for t in find_targets(text, SourceLanguage.CPP)}


def test_fast_on_a_five_thousand_line_file() -> None:
    unit = source_path("stencil.c").read_text() + source_path("saxpy.c").read_text()
    copies = 5000 // unit.count("\n") + 1
    text = "\n".join(
        unit.replace("blur3", f"blur3_{i}")
        .replace("jacobi2d", f"jacobi_{i}")
        .replace("saxpy", f"saxpy_{i}")
        for i in range(copies)
    )
    assert text.count("\n") >= 5000
    start = time.perf_counter()
    targets = find_targets(text, SourceLanguage.CPP)
    elapsed = time.perf_counter() - start
    assert len([t for t in targets if t.kind is TargetKind.FUNCTION]) == 3 * copies
    assert elapsed < 0.5, f"find_targets took {elapsed:.3f}s on {text.count(chr(10))} lines"
