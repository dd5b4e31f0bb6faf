"""A pointer stepped once per iteration (``*dst++ = *src++ * g``) is written as a subscript
of the loop's counter (``dst[i] = src[i] * g``), so the analysis reads what it walks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht_core.cxx.walks import index_pointer_walks
from tests.core.cxx.support import each_rewritten, printed_by, renamed, rewritten
from tests.core.rewrite.support import (
    first_step_computes,
    requires_nvcc,
    run_on_gpu,
    unvalidated_task,
)


def _source(body: str) -> str:
    return f"void f(float* dst, const float* src, int n, float g) {{\n{body}\n}}\n"


@pytest.mark.parametrize(
    ("body", "written"),
    [
        (
            "for (int i = 0; i < n; ++i) *dst++ = *src++ * g;",
            "for (int i = 0; i < n; ++i) dst[i] = src[i] * g;",
        ),
        (
            "for (int i = 0; i < n; i++) { float v = *src++; *dst++ = v > g ? g : v; }",
            "for (int i = 0; i < n; i++) { float v = src[i]; dst[i] = v > g ? g : v; }",
        ),
        (  # dst moves every iteration, src only when g > 0: src stays a walk
            "for (int i = 0; i < n; ++i) *dst++ = g > 0 ? *src++ : 0;",
            "for (int i = 0; i < n; ++i) dst[i] = g > 0 ? *src++ : 0;",
        ),
    ],
    ids=["copy-scaled", "statements", "one-of-two-under-a-condition"],
)
def test_a_pointer_walk_is_a_subscript_of_the_counter(body: str, written: str) -> None:
    assert rewritten(_source(body), index_pointer_walks).splitlines()[1] == written


@pytest.mark.parametrize(
    "body",
    [
        "for (int i = 0; i < n; ++i) if (src[i] > 0) *dst++ = src[i];",
        "for (int i = 0; i < n; ++i) { *dst++ = 0; *dst++ = 0; }",
        "for (int i = 0; i < n; ++i) { *dst++ = 0; dst += 1; }",
        "for (int i = 1; i < n; ++i) *dst++ = 0;",
        "for (int i = 0; i < n; ++i) *dst++ = 0;\n*dst = 0;",
        "for (int i = 0; i < n; ++i) for (int j = 0; j < 2; ++j) *dst++ = 0;",
        "for (int i = 0; i < n; ++i) { *dst++ = 0; i += 0; }",
        "for (int i = 0; i < n; ++i) { float v = 0 < g && *dst++ > 0; }",
    ],
    ids=[
        "under-a-condition",
        "twice-an-iteration",
        "stepped-otherwise",
        "counter-from-one",
        "read-after-the-loop",
        "inner-loop-run-again",
        "counter-changed",
        "short-circuit",
    ],
)
def test_other_pointer_walks_are_left_as_written(body: str) -> None:
    """A walk whose subscript would not be where the pointer is."""
    source = _source(body)
    assert rewritten(source, index_pointer_walks) == source


WALKS = (
    "#include <cstdio>\n"
    "void gain(float* dst, const float* src, int n, float g) {\n"
    "  for (int i = 0; i < n; ++i) *dst++ = *src++ * g; }\n"
    "long mix(const int* a, const int* b, int n) { long s = 0;\n"
    "  for (int i = 0; i < n; ++i) { int x = *a++; s = s * 3 + x - *b++; } return s; }\n"
)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_subscripts_compute_what_the_walks_do(tmp_path: Path) -> None:
    names = ("gain", "mix")
    written = each_rewritten(WALKS, names, index_pointer_walks)
    assert "++" not in written.replace("++i", "")
    main = (
        "int main() { int bad = 0; float s[40], p[40], q[40]; int a[40], b[40];\n"
        "  for (int k = 0; k < 40; ++k) { s[k] = k * 0.5f - 7; a[k] = k % 9; b[k] = k % 4; }\n"
        "  for (int n = 0; n <= 40; ++n) {\n"
        "    for (int k = 0; k < 40; ++k) p[k] = q[k] = -1;\n"
        "    gain(p, s, n, 1.5f); x_gain(q, s, n, 1.5f);\n"
        "    for (int k = 0; k < 40; ++k) bad += p[k] != q[k];\n"
        "    bad += mix(a, b, n) != x_mix(a, b, n);\n"
        "  }\n"
        '  std::printf("%d\\n", bad); return bad != 0; }\n'
    )
    program = WALKS + renamed(written, names).split("\n", 1)[1] + main
    assert printed_by(program, tmp_path) == "0"


SCALE = """// regrapht: n = 4099; data[n] inout
void scale_ptr(float* data, int n, float k) {
    float* p = data;
    for (int i = 0; i < n; ++i) *p++ *= k;
}
"""


@requires_nvcc
def test_a_pointer_walk_over_a_local_alias_gets_a_kernel_that_computes_it(tmp_path: Path) -> None:
    """It was refused: "the loop writes through a pointer (`*p++ *= k`)"; the walk becomes
    ``p[i]``, and the alias ``p`` of ``data`` then ``data[(0) + (i)]``."""
    assert "__global__" in first_step_computes(unvalidated_task(SCALE, "scale_ptr"), tmp_path)


@pytest.mark.gpu
@requires_nvcc
def test_the_pointer_walk_kernel_agrees_with_the_loop_on_the_gpu(tmp_path: Path) -> None:
    first_step_computes(unvalidated_task(SCALE, "scale_ptr"), tmp_path, run=run_on_gpu)
