"""Lengths of stencil and clamped-neighbour arrays, validated under AddressSanitizer.

Clamped indices (``if (y < 0) y = 0;``, ``std::min``/``std::max``, ``?:``) carry their
bounds; indices whose maxima cannot be ordered pairwise still have a greatest one (or a
polynomial above all of them).
"""

from __future__ import annotations

import shutil

import pytest

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.errors import TaskError
from regrapht_core.tasks.extract import extract_task
from regrapht_core.tasks.symbolic import Interval, Poly, dominating, greatest
from regrapht_core.tasks.validate import HOST_COMPILER

needs_gxx = pytest.mark.skipif(shutil.which(HOST_COMPILER) is None, reason="needs g++")

CONV_IFS = """#include <vector>
#include <array>

// regrapht: width = 1024; height = 1024
void conv3x3(const std::vector<float>& img, std::vector<float>& out, int width, int height,
             const std::array<float, 9>& k) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; ++dy) {
                int yy = y + dy;
                if (yy < 0) yy = 0;
                if (yy >= height) yy = height - 1;
                for (int dx = -1; dx <= 1; ++dx) {
                    int xx = x + dx;
                    if (xx < 0) xx = 0;
                    if (xx >= width) xx = width - 1;
                    acc += k[(dy + 1) * 3 + (dx + 1)] * img[yy * width + xx];
                }
            }
            int i = y * width + x;
            out[i] = acc;
        }
    }
}
"""

CONV_MIN_MAX = """#include <algorithm>

void conv3x3(const float* img, float* out, int width, int height, const float* k) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; ++dy) {
                int yy = std::min(std::max(y + dy, 0), height - 1);
                for (int dx = -1; dx <= 1; ++dx) {
                    int xx = std::max(0, std::min(x + dx, width - 1));
                    acc += k[(dy + 1) * 3 + (dx + 1)] * img[yy * width + xx];
                }
            }
            out[y * width + x] = acc;
        }
    }
}
"""

CONV_TERNARY = """
void conv3x3(const float* img, float* out, int width, int height, const float* k) {
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            float acc = 0.0f;
            for (int dy = -1; dy <= 1; ++dy) {
                int ys = y + dy;
                int yy = ys < 0 ? 0 : (ys >= height ? height - 1 : ys);
                for (int dx = -1; dx <= 1; ++dx) {
                    int xs = x + dx;
                    int xx = xs > width - 1 ? width - 1 : (xs < 0 ? 0 : xs);
                    acc += k[(dy + 1) * 3 + (dx + 1)] * img[yy * width + xx];
                }
            }
            out[y * width + x] = acc;
        }
    }
}
"""

BOX_BLUR = """// 3x3 box blur of the interior; the one-pixel border of dst is left untouched.
void boxBlur(const float* src, float* dst, int width, int height) {
    for (int y = 1; y < height - 1; y++) {
        for (int x = 1; x < width - 1; x++) {
            int i = y * width + x;
            float s = src[i - width - 1] + src[i - width] + src[i - width + 1]
                    + src[i - 1]         + src[i]         + src[i + 1]
                    + src[i + width - 1] + src[i + width] + src[i + width + 1];
            dst[i] = s * (1.0f / 9.0f);
        }
    }
}
"""

CROSS = """
void cross(const float* src, float* dst, int w, int h) {
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++)
            dst[y * w + x] = src[(y - 1) * w + x] + src[y * w + x - 1]
                           + src[(y + 1) * w + x] + src[y * w + x + 1];
}
"""

STENCIL3 = """#include <cstddef>

// 1-D three-point smoothing; the two end samples are copied through unchanged.
void stencil3(const float* in, float* out, size_t n) {
    if (n == 0) return;
    out[0] = in[0];
    for (size_t i = 1; i + 1 < n; ++i) {
        out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
    }
    if (n > 1) out[n - 1] = in[n - 1];
}
"""

STENCIL3_MINUS = """
void stencil3(const float* in, float* out, int n) {
    out[0] = in[0];
    for (int i = 1; i < n - 1; ++i)
        out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
    out[n - 1] = in[n - 1];
}
"""

CLAMP_AHEAD = """
void ahead(const float* in, float* out, int n) {
    for (int i = 0; i < n; ++i) {
        int j = i + 2;
        if (j > n - 1) j = n - 1;
        out[i] = in[j];
    }
}
"""

TWO_SIZES = """
void both(const float* a, const float* b, float* c, int n, int m) {
    for (int i = 0; i < n; ++i) c[i] = a[i];
    for (int j = 0; j < m; ++j) c[j] += b[j];
}
"""


def _lengths(source: str, function: str) -> dict[str, tuple[str | None, str]]:
    task = extract_task(source, SourceLanguage.CPP, function=function, validate=True)
    return {a.name: (a.length, a.role.value) for a in task.args if a.length is not None}


@needs_gxx
@pytest.mark.parametrize("source", [CONV_IFS, CONV_MIN_MAX, CONV_TERNARY])
def test_clamped_neighbours_bound_the_image(source: str) -> None:
    lengths = _lengths(source, "conv3x3")
    assert lengths["img"] == ("height*width", "in")
    assert lengths["out"] == ("height*width", "out")


@needs_gxx
def test_a_clamp_ahead_of_the_loop_counter() -> None:
    assert _lengths(CLAMP_AHEAD, "ahead") == {"in": ("n", "in"), "out": ("n", "out")}


def test_a_local_changed_after_its_clamp_has_no_bound() -> None:
    source = CLAMP_AHEAD.replace("out[i] = in[j];", "j += i; out[i] = in[j];")
    with pytest.raises(TaskError, match=r"the index in 'in\[j\]' has no bound"):
        extract_task(source, SourceLanguage.CPP, function="ahead", validate=False)


@needs_gxx
def test_box_blur_neighbours_have_a_greatest_index() -> None:
    lengths = _lengths(BOX_BLUR, "boxBlur")
    assert lengths == {"src": ("height*width", "in"), "dst": ("height*width", "inout")}


@needs_gxx
def test_cross_stencil() -> None:
    assert _lengths(CROSS, "cross") == {"src": ("h*w", "in"), "dst": ("h*w", "inout")}


@needs_gxx
@pytest.mark.parametrize("source", [STENCIL3, STENCIL3_MINUS])
def test_three_point_stencil_with_copied_ends(source: str) -> None:
    assert _lengths(source, "stencil3") == {"in": ("n", "in"), "out": ("n", "out")}


@needs_gxx
def test_unordered_sizes_take_a_bound_above_both() -> None:
    lengths = _lengths(TWO_SIZES, "both")
    assert lengths == {"a": ("n", "in"), "b": ("m", "in"), "c": ("m + n", "inout")}


def test_greatest_and_dominating() -> None:
    n, m = Poly.var("n"), Poly.var("m")
    one = Poly.const(1)
    assert greatest([Poly.const(0), n - Poly.const(3), n - one]) == n - one
    assert greatest([n - one, m - one]) is None
    assert dominating([n - one, m - one]) == n + m - one
    joined = Interval(Poly.const(0), n - one).join(Interval.exact(m))
    assert joined == Interval(Poly.const(0), n + m)
