"""Neighbourhood and dense linear-algebra families: 1-D, 2-D and 3-D stencils, image
filters, matrix-vector and matrix-matrix products, transposes and layout changes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import product

from regrapht_core.tasks.generate.base import (
    ELEMENTS,
    Array,
    Container,
    Element,
    Family,
    Generated,
    length,
    literal,
    task,
)

__all__ = ["FAMILIES"]

_F32 = ELEMENTS["float"]
_F64 = ELEMENTS["double"]
_I32 = ELEMENTS["int"]
_U8 = ELEMENTS["unsigned char"]
_PTR = Container.POINTER
_VEC = Container.VECTOR
_TOL = (("atol", "1e-3"), ("rtol", "1e-3"))
"""Float outputs summed straight into memory across a long loop: a parallel sum reorders."""


def _clamp(expr: str, hi: str) -> str:
    return f"std::min(std::max({expr}, 0), {hi})"


# ---------------------------------------------------------------------------------------
# stencil1d
# ---------------------------------------------------------------------------------------

_BINOMIAL: dict[int, tuple[float, ...]] = {
    3: (0.5, 0.25),
    5: (0.375, 0.25, 0.0625),
    7: (0.3125, 0.234375, 0.09375, 0.015625),
    9: (0.2734375, 0.21875, 0.109375, 0.03125, 0.00390625),
}


def _sym1d(points: int, boundary: str, e: Element, c: Container) -> Generated:
    r = points // 2
    half = _BINOMIAL[points]
    x = Array("x", e, "n", "in", "uniform(-1, 1)")
    y = Array("y", e, "n", "inout" if boundary == "interior" else "out")
    lead, pro = length(c, "x")
    params: list[str | Array] = [*lead, x, y]
    fn = f"smooth{points}" + ("_clamped" if boundary == "clamp" else "")
    weights = [*reversed(half[1:]), *half]
    helpers = f"constexpr int kRadius = {r};"
    if boundary == "interior":
        terms = [f"{literal(half[0], e)} * x[i]"]
        terms += [f"{literal(w, e)} * (x[i - {k}] + x[i + {k}])" for k, w in enumerate(half) if k]
        expr = "\n               + ".join(terms)
        body = (
            f"{pro}"
            f"    for (int i = kRadius; i < n - kRadius; ++i) {{\n"
            f"        y[i] = {expr};\n"
            f"    }}"
        )
        what = "over the interior; the first and last kRadius elements of y keep their values"
        includes: tuple[str, ...] = ()
    else:
        table = ", ".join(literal(w, e) for w in weights)
        helpers += f"\nconstexpr {e.ctype} kWeights[2 * kRadius + 1] = {{{table}}};"
        body = (
            f"{pro}"
            f"    for (int i = 0; i < n; ++i) {{\n"
            f"        {e.ctype} acc = {literal(0, e)};\n"
            f"        for (int k = -kRadius; k <= kRadius; ++k) {{\n"
            f"            const int j = {_clamp('i + k', 'n - 1')};\n"
            f"            acc += kWeights[k + kRadius] * x[j];\n"
            f"        }}\n"
            f"        y[i] = acc;\n"
            f"    }}"
        )
        what = "everywhere, clamping indices at the ends"
        includes = ("algorithm",)
    comment = (
        f"1-D stencil: {points}-point binomial smoothing (radius {r}, symmetric weights) "
        f"{what}; {e.ctype}."
    )
    return task(
        "stencil1d",
        f"sym{points}_{boundary}_{e.tag}_{c}",
        fn,
        comment,
        includes=includes,
        container=c,
        sizes=[("n", "1<<22" if boundary == "clamp" else ("1<<25" if c is _PTR else "1<<24"))],
        items=params,
        body=body,
        helpers=helpers,
    )


def _movavg1d(radius: int, boundary: str, e: Element, c: Container) -> Generated:
    x = Array("x", e, "n", "in", "uniform(-1, 1)")
    y = Array("y", e, "n", "inout" if boundary == "interior" else "out")
    lead, pro = length(c, "x")
    params: list[str | Array] = [*lead, x, y]
    fn = "moving_average" + ("_clamped" if boundary == "clamp" else "")
    helpers = f"#define WINDOW_RADIUS {radius}"
    scale = f"    const {e.ctype} scale = {literal(1, e)} / (2 * WINDOW_RADIUS + 1);\n"
    if boundary == "interior":
        loop = (
            f"    for (int i = WINDOW_RADIUS; i < n - WINDOW_RADIUS; ++i) {{\n"
            f"        {e.ctype} sum = {literal(0, e)};\n"
            f"        for (int k = i - WINDOW_RADIUS; k <= i + WINDOW_RADIUS; ++k) {{\n"
            f"            sum += x[k];\n"
            f"        }}\n"
        )
        includes: tuple[str, ...] = ()
        what = "over the interior (the ends of y keep their values)"
    else:
        loop = (
            f"    for (int i = 0; i < n; ++i) {{\n"
            f"        {e.ctype} sum = {literal(0, e)};\n"
            f"        for (int k = -WINDOW_RADIUS; k <= WINDOW_RADIUS; ++k) {{\n"
            f"            sum += x[{_clamp('i + k', 'n - 1')}];\n"
            f"        }}\n"
        )
        includes = ("algorithm",)
        what = "with the window clamped at the ends"
    body = f"{pro}{scale}{loop}        y[i] = sum * scale;\n    }}"
    comment = f"1-D stencil: centred moving average of width {2 * radius + 1} {what}; {e.ctype}."
    n = "1<<22" if radius < 8 else "1<<21"
    return task(
        "stencil1d",
        f"movavg_r{radius}_{boundary}_{e.tag}_{c}",
        fn,
        comment,
        includes=includes,
        container=c,
        sizes=[("n", n)],
        items=params,
        body=body,
        helpers=helpers,
    )


def _radius1d(boundary: str, e: Element, c: Container) -> Generated:
    w = Array("w", e, "2*r+1", "in", "uniform(-0.5, 0.5)")
    x = Array("x", e, "n", "in", "uniform(-1, 1)")
    y = Array("y", e, "n", "inout" if boundary == "interior" else "out")
    lead, pro = length(c, "x")
    params: list[str | Array] = [*lead, "int r", w, x, y]
    fn = "weighted_stencil" + ("_clamped" if boundary == "clamp" else "")
    if boundary == "interior":
        head = "    for (int i = r; i < n - r; ++i) {\n"
        read = "x[i + k]"
        includes: tuple[str, ...] = ()
        what = "over the interior i in [r, n - r)"
    else:
        head = "    for (int i = 0; i < n; ++i) {\n"
        read = f"x[{_clamp('i + k', 'n - 1')}]"
        includes = ("algorithm",)
        what = "clamping indices at the ends"
    body = (
        f"{pro}{head}"
        f"        {e.ctype} acc = {literal(0, e)};\n"
        f"        for (int k = -r; k <= r; ++k) {{\n"
        f"            acc += w[k + r] * {read};\n"
        f"        }}\n"
        f"        y[i] = acc;\n"
        f"    }}"
    )
    comment = (
        f"1-D stencil: radius r given at run time, 2r+1 weights from an array, {what}; {e.ctype}."
    )
    return task(
        "stencil1d",
        f"radius_{boundary}_{e.tag}_{c}",
        fn,
        comment,
        includes=includes,
        container=c,
        sizes=[("n", "1<<22"), ("r", "4")],
        items=params,
        body=body,
    )


def _fir1d(form: str, e: Element, c: Container) -> Generated:
    h = Array("h", e, "taps", "in", "uniform(-0.1, 0.1)")
    if form == "valid":
        x = Array("x", e, "n+taps-1", "in", "uniform(-1, 1)")
        y = Array("y", e, "n", "out")
        head = "    for (int i = 0; i < n; ++i) {\n"
        read = "x[i + k]"
        what = "'valid' correlation: y[i] = sum_k h[k] * x[i + k], x holding n + taps - 1 samples"
    else:
        x = Array("x", e, "n", "in", "uniform(-1, 1)")
        y = Array("y", e, "n", "inout")
        head = "    for (int i = taps - 1; i < n; ++i) {\n"
        read = "x[i - k]"
        what = "causal: y[i] = sum_k h[k] * x[i - k] for i >= taps - 1 (earlier y kept)"
    if c is _PTR:
        params: list[str | Array] = ["int n", "int taps", h, x, y]
        pro = ""
    else:
        params = [h, x, y]
        pro = (
            "    const int taps = static_cast<int>(h.size());\n"
            "    const int n = static_cast<int>(y.size());\n"
        )
    fn = f"fir_{form}"
    body = (
        f"{pro}{head}"
        f"        {e.ctype} acc = {literal(0, e)};\n"
        f"        for (int k = 0; k < taps; ++k) {{\n"
        f"            acc += h[k] * {read};\n"
        f"        }}\n"
        f"        y[i] = acc;\n"
        f"    }}"
    )
    comment = f"1-D FIR filter with taps from an input array h[taps], {what}; {e.ctype}."
    return task(
        "stencil1d",
        f"fir_{form}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=[("n", "1<<21"), ("taps", "32")],
        items=params,
        body=body,
    )


def _stencil1d() -> Iterator[Generated]:
    for points, boundary in product((3, 5, 7, 9), ("interior", "clamp")):
        yield _sym1d(points, boundary, _F32, _PTR)
    for points, boundary in ((3, "interior"), (5, "clamp"), (7, "interior"), (9, "clamp")):
        yield _sym1d(points, boundary, _F64, _VEC)
    yield _movavg1d(4, "interior", _F32, _PTR)
    yield _movavg1d(4, "clamp", _F64, _VEC)
    yield _movavg1d(16, "clamp", _F32, _PTR)
    yield _movavg1d(16, "interior", _F64, _VEC)
    yield _radius1d("interior", _F32, _PTR)
    yield _radius1d("interior", _F64, _VEC)
    yield _radius1d("clamp", _F32, _PTR)
    yield _fir1d("valid", _F32, _PTR)
    yield _fir1d("valid", _F64, _VEC)
    yield _fir1d("causal", _F32, _PTR)
    yield _fir1d("causal", _F64, _PTR)


# ---------------------------------------------------------------------------------------
# stencil2d
# ---------------------------------------------------------------------------------------

_NB2 = {
    "c": "in[i * cols + j]",
    "n": "in[(i - 1) * cols + j]",
    "s": "in[(i + 1) * cols + j]",
    "w": "in[i * cols + j - 1]",
    "e": "in[i * cols + j + 1]",
    "nw": "in[(i - 1) * cols + j - 1]",
    "ne": "in[(i - 1) * cols + j + 1]",
    "sw": "in[(i + 1) * cols + j - 1]",
    "se": "in[(i + 1) * cols + j + 1]",
}


def _point2d(kind: str, e: Element) -> tuple[str, list[str], str, tuple[str, ...]]:
    """A single-point 2-D update: the statement(s), extra scalar names, a description and
    the includes."""
    indexed = kind in {"ninept", "laplace9", "heat", "sobel"}
    g = _NB2_IDX if indexed else _NB2
    lead = "const int idx = i * cols + j;\n            " if indexed else ""
    dst = "out[idx]" if indexed else "out[i * cols + j]"

    def lit(v: float) -> str:
        return literal(v, e)

    star = f"{g['n']} + {g['s']}\n                + {g['w']} + {g['e']}"
    if kind == "jacobi5":
        stmt = f"{lead}{dst} = {lit(0.2)} * ({g['c']} + {star});"
        return stmt, [], "5-point Jacobi step (average of a cell and its 4 neighbours)", ()
    if kind == "ninept":
        stmt = (
            f"{lead}{dst} = {lit(0.25)} * {g['c']}\n"
            f"            + {lit(0.125)} * ({star})\n"
            f"            + {lit(0.0625)} * ({g['nw']} + {g['ne']}\n"
            f"                + {g['sw']} + {g['se']});"
        )
        return stmt, [], "9-point smoothing (weights 4/2/1 over 16)", ()
    if kind == "laplace5":
        stmt = f"{lead}{dst} = inv_h2 * ({star}\n                - {lit(4)} * {g['c']});"
        return stmt, ["inv_h2"], "5-point Laplacian scaled by 1/h^2", ()
    if kind == "laplace9":
        stmt = (
            f"{lead}const {e.ctype} edges = {star};\n"
            f"            const {e.ctype} corners = {g['nw']} + {g['ne']}\n"
            f"                + {g['sw']} + {g['se']};\n"
            f"            {dst} = inv_h2 / {lit(6)}"
            f" * ({lit(4)} * edges + corners - {lit(20)} * {g['c']});"
        )
        return stmt, ["inv_h2"], "isotropic 9-point Laplacian scaled by 1/h^2", ()
    if kind == "heat":
        stmt = (
            f"{lead}const {e.ctype} center = {g['c']};\n"
            f"            {dst} = center + alpha * ({star}\n"
            f"                - {lit(4)} * center);"
        )
        return stmt, ["alpha"], "explicit heat-equation step with coefficient alpha", ()
    # sobel
    stmt = (
        f"{lead}const {e.ctype} gx = ({g['ne']} + {lit(2)} * {g['e']} + {g['se']})\n"
        f"                - ({g['nw']} + {lit(2)} * {g['w']} + {g['sw']});\n"
        f"            const {e.ctype} gy = ({g['sw']} + {lit(2)} * {g['s']} + {g['se']})\n"
        f"                - ({g['nw']} + {lit(2)} * {g['n']} + {g['ne']});\n"
        f"            {dst} = std::sqrt(gx * gx + gy * gy);"
    )
    return stmt, [], "Sobel gradient magnitude", ("cmath",)


_NB2_IDX = {
    "c": "in[idx]",
    "n": "in[idx - cols]",
    "s": "in[idx + cols]",
    "w": "in[idx - 1]",
    "e": "in[idx + 1]",
    "nw": "in[idx - cols - 1]",
    "ne": "in[idx - cols + 1]",
    "sw": "in[idx + cols - 1]",
    "se": "in[idx + cols + 1]",
}
_SCALAR2 = {"inv_h2": "0.25", "alpha": "0.2"}


def _pointwise2d(kind: str, e: Element, c: Container, rows: str, cols: str) -> Generated:
    stmt, scalars, what, includes = _point2d(kind, e)
    a_in = Array("in", e, "rows*cols", "in", "uniform(-1, 1)")
    a_out = Array("out", e, "rows*cols", "inout")
    params: list[str | Array] = ["int rows", "int cols", *(f"{e.ctype} {s}" for s in scalars)]
    params += [a_in, a_out]
    fn = f"{kind}_2d"
    body = (
        f"    for (int i = 1; i < rows - 1; ++i) {{\n"
        f"        for (int j = 1; j < cols - 1; ++j) {{\n"
        f"            {stmt}\n"
        f"        }}\n"
        f"    }}"
    )
    comment = (
        f"2-D stencil: {what} over the interior of a rows x cols row-major grid; the border "
        f"of out keeps its values; {e.ctype}."
    )
    sizes = [("rows", rows), ("cols", cols), *((s, _SCALAR2[s]) for s in scalars)]
    return task(
        "stencil2d",
        f"{kind}_{e.tag}_{c}",
        fn,
        comment,
        includes=includes,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _box2d(radius: int | None, e: Element, c: Container) -> Generated:
    a_in = Array("in", e, "rows*cols", "in", "uniform(-1, 1)")
    a_out = Array("out", e, "rows*cols", "inout")
    params: list[str | Array] = ["int rows", "int cols"]
    sizes = [("rows", "2048"), ("cols", "2048")]
    if radius is None:
        params.append("int r")
        sizes.append(("r", "2"))
        rad, helpers, tag = "r", "", "boxr"
        scale = f"    const {e.ctype} scale = {literal(1, e)} / ((2 * r + 1) * (2 * r + 1));\n"
        what = "box blur of run-time radius r"
    else:
        rad, helpers, tag = "R", f"constexpr int R = {radius};", f"box{radius}"
        side = 2 * radius + 1
        scale = f"    const {e.ctype} scale = {literal(1.0 / (side * side), e)};\n"
        what = f"{side}x{side} box blur"
    params += [a_in, a_out]
    fn = f"box_blur{'' if radius is None else radius}"
    body = (
        f"{scale}"
        f"    for (int i = {rad}; i < rows - {rad}; ++i) {{\n"
        f"        for (int j = {rad}; j < cols - {rad}; ++j) {{\n"
        f"            {e.ctype} acc = {literal(0, e)};\n"
        f"            for (int di = -{rad}; di <= {rad}; ++di) {{\n"
        f"                for (int dj = -{rad}; dj <= {rad}; ++dj) {{\n"
        f"                    acc += in[(i + di) * cols + (j + dj)];\n"
        f"                }}\n"
        f"            }}\n"
        f"            out[i * cols + j] = acc * scale;\n"
        f"        }}\n"
        f"    }}"
    )
    comment = (
        f"2-D stencil: {what} over the interior of a rows x cols row-major grid (the border "
        f"of out keeps its values); {e.ctype}."
    )
    return task(
        "stencil2d",
        f"{tag}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
        helpers=helpers,
    )


def _stencil2d() -> Iterator[Generated]:
    big, mid = "4096", "2048"
    yield _pointwise2d("jacobi5", _F32, _PTR, big, big)
    yield _pointwise2d("jacobi5", _F64, _PTR, mid, big)
    yield _pointwise2d("jacobi5", _F32, _VEC, mid, "3000")
    yield _pointwise2d("jacobi5", _F64, _VEC, "3000", mid)
    yield _pointwise2d("ninept", _F32, _PTR, big, mid)
    yield _pointwise2d("ninept", _F64, _VEC, mid, mid)
    yield _pointwise2d("laplace5", _F32, _PTR, big, big)
    yield _pointwise2d("laplace5", _F64, _VEC, mid, big)
    yield _pointwise2d("laplace9", _F32, _VEC, mid, big)
    yield _pointwise2d("laplace9", _F64, _PTR, mid, mid)
    yield _pointwise2d("heat", _F32, _PTR, big, big)
    yield _pointwise2d("heat", _F64, _VEC, mid, big)
    yield _pointwise2d("sobel", _F32, _PTR, mid, big)
    yield _pointwise2d("sobel", _F64, _VEC, mid, mid)
    yield _box2d(1, _F32, _PTR)
    yield _box2d(1, _F64, _VEC)
    yield _box2d(2, _F32, _VEC)
    yield _box2d(2, _F64, _PTR)
    yield _box2d(None, _F32, _PTR)


# ---------------------------------------------------------------------------------------
# stencil3d
# ---------------------------------------------------------------------------------------

_NB3 = (
    "in[idx - 1] + in[idx + 1]\n"
    "                    + in[idx - nx] + in[idx + nx]\n"
    "                    + in[idx - plane] + in[idx + plane]"
)


def _grid3d(
    kind: str,
    e: Element,
    c: Container,
    dims: tuple[str, str, str],
    *,
    inner: str,
    what: str,
    scalars: Sequence[tuple[str, str]] = (),
    extra: Sequence[Array] = (),
    helpers: str = "",
) -> Generated:
    a_in = Array("in", e, "nx*ny*nz", "in", "uniform(-1, 1)")
    a_out = Array("out", e, "nx*ny*nz", "inout")
    arrays = [a_in, *extra, a_out]
    params: list[str | Array] = [
        "int nx",
        "int ny",
        "int nz",
        *(f"{e.ctype} {s}" for s, _ in scalars),
    ]
    params += arrays
    fn = f"{kind}_3d"
    body = (
        f"    const int plane = nx * ny;\n"
        f"    for (int z = 1; z < nz - 1; ++z) {{\n"
        f"        for (int y = 1; y < ny - 1; ++y) {{\n"
        f"            for (int x = 1; x < nx - 1; ++x) {{\n"
        f"                const int idx = z * plane + y * nx + x;\n"
        f"{inner}"
        f"            }}\n"
        f"        }}\n"
        f"    }}"
    )
    comment = (
        f"3-D stencil: {what} over the interior of an nx x ny x nz grid (x fastest); the "
        f"boundary of out keeps its values; {e.ctype}."
    )
    sizes = [("nx", dims[0]), ("ny", dims[1]), ("nz", dims[2]), *scalars]
    return task(
        "stencil3d",
        f"{kind}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
        helpers=helpers,
    )


def _seven3d(e: Element, c: Container, dims: tuple[str, str, str]) -> Generated:
    inner = (
        f"                out[idx] = {literal(0.4, e)} * in[idx]\n"
        f"                    + {literal(0.1, e)} * ({_NB3});\n"
    )
    return _grid3d(
        "sevenpt", e, c, dims, inner=inner, what="7-point smoothing (centre 0.4, faces 0.1)"
    )


def _heat3d(e: Element, c: Container, dims: tuple[str, str, str]) -> Generated:
    inner = (
        f"                const {e.ctype} lap = {_NB3}\n"
        f"                    - {literal(6, e)} * in[idx];\n"
        f"                out[idx] = in[idx] + alpha * lap;\n"
    )
    what = "explicit heat-equation step out = in + alpha * (7-point Laplacian)"
    return _grid3d("heat", e, c, dims, inner=inner, what=what, scalars=[("alpha", "0.1")])


def _kheat3d(e: Element, c: Container, dims: tuple[str, str, str]) -> Generated:
    kappa = Array("kappa", e, "nx*ny*nz", "in", "uniform(0, 1)")
    inner = (
        f"                const {e.ctype} lap = {_NB3}\n"
        f"                    - {literal(6, e)} * in[idx];\n"
        f"                out[idx] = in[idx] + dt * kappa[idx] * lap;\n"
    )
    what = "heat-equation step with a per-cell conductivity kappa and time step dt"
    return _grid3d(
        "kheat", e, c, dims, inner=inner, what=what, scalars=[("dt", "0.1")], extra=[kappa]
    )


def _aniso3d(e: Element, c: Container, dims: tuple[str, str, str]) -> Generated:
    inner = (
        f"                const {e.ctype} two_c = {literal(2, e)} * in[idx];\n"
        f"                out[idx] = cx * (in[idx - 1] + in[idx + 1] - two_c)\n"
        f"                    + cy * (in[idx - nx] + in[idx + nx] - two_c)\n"
        f"                    + cz * (in[idx - plane] + in[idx + plane] - two_c);\n"
    )
    what = "anisotropic 7-point Laplacian with per-axis coefficients cx, cy, cz"
    scalars = [("cx", "1.0"), ("cy", "0.5"), ("cz", "0.25")]
    return _grid3d("aniso", e, c, dims, inner=inner, what=what, scalars=scalars)


def _box3d(weighted: bool, e: Element, c: Container, dims: tuple[str, str, str]) -> Generated:
    acc = f"                {e.ctype} acc = {literal(0, e)};\n"
    loops = (
        "                for (int dz = -1; dz <= 1; ++dz) {\n"
        "                    for (int dy = -1; dy <= 1; ++dy) {\n"
        "                        for (int dx = -1; dx <= 1; ++dx) {\n"
    )
    read = "in[idx + dz * plane + dy * nx + dx]"
    close = "                        }\n                    }\n                }\n"
    if weighted:
        table = ", ".join(literal(w, e) for w in (0.25, 0.0625, 0.03125, 0.015625))
        helpers = (
            "// Weights by how many of the three offsets are nonzero: centre, face, edge, "
            f"corner.\nconstexpr {e.ctype} kWeight[4] = {{{table}}};"
        )
        inner = (
            f"{acc}{loops}"
            "                            const int d = (dz != 0) + (dy != 0) + (dx != 0);\n"
            f"                            acc += kWeight[d] * {read};\n"
            f"{close}                out[idx] = acc;\n"
        )
        what = "27-point stencil with weights by distance class (centre, face, edge, corner)"
        kind = "twentyseven"
    else:
        helpers = ""
        inner = (
            f"{acc}{loops}"
            f"                            acc += {read};\n"
            f"{close}                out[idx] = acc * ({literal(1, e)} / {literal(27, e)});\n"
        )
        what = "27-point box average"
        kind = "box27"
    return _grid3d(kind, e, c, dims, inner=inner, what=what, helpers=helpers)


def _stencil3d() -> Iterator[Generated]:
    cube, half, small = ("256", "256", "256"), ("256", "256", "128"), ("160", "160", "160")
    yield _seven3d(_F32, _PTR, cube)
    yield _seven3d(_F64, _PTR, half)
    yield _seven3d(_F32, _VEC, ("256", "128", "256"))
    yield _seven3d(_F64, _VEC, half)
    yield _heat3d(_F32, _PTR, cube)
    yield _heat3d(_F64, _PTR, half)
    yield _heat3d(_F64, _VEC, ("128", "256", "256"))
    yield _kheat3d(_F32, _PTR, cube)
    yield _kheat3d(_F64, _VEC, half)
    yield _aniso3d(_F32, _PTR, cube)
    yield _aniso3d(_F64, _VEC, half)
    yield _box3d(True, _F32, _PTR, small)
    yield _box3d(True, _F64, _PTR, ("192", "160", "128"))
    yield _box3d(True, _F32, _VEC, ("128", "192", "160"))
    yield _box3d(False, _F32, _PTR, small)
    yield _box3d(False, _F64, _VEC, ("160", "128", "192"))


# ---------------------------------------------------------------------------------------
# image_filters
# ---------------------------------------------------------------------------------------


def _image_arrays(e: Element, border: str, channels: int = 1) -> tuple[Array, Array]:
    length = "height*width" if channels == 1 else f"height*width*{channels}"
    dist = f"image(width=width, height=height, channels={channels})"
    src = Array("src", e, length, "in", dist)
    if border == "interior":
        return src, Array("dst", e, length, "inout", dist)
    return src, Array("dst", e, length, "out")


def _window(border: str, radius: str) -> tuple[str, str, str, str]:
    """Loop heads over the image and the row/column index expressions of a neighbour."""
    if border == "interior":
        return (
            f"    for (int y = {radius}; y < height - {radius}; ++y) {{\n",
            f"        for (int x = {radius}; x < width - {radius}; ++x) {{\n",
            "y + dy",
            "x + dx",
        )
    return (
        "    for (int y = 0; y < height; ++y) {\n",
        "        for (int x = 0; x < width; ++x) {\n",
        _clamp("y + dy", "height - 1"),
        _clamp("x + dx", "width - 1"),
    )


def _gauss_img(size: int, border: str, e: Element, c: Container) -> Generated:
    r = size // 2
    taps = (1, 2, 1) if size == 3 else (1, 4, 6, 4, 1)
    norm = sum(taps) ** 2
    src, dst = _image_arrays(e, border)
    params: list[str | Array] = ["int width", "int height", src, dst]
    fn = f"gaussian{size}x{size}"
    helpers = (
        f"constexpr int R = {r};\n"
        f"constexpr int kTaps[2 * R + 1] = {{{', '.join(map(str, taps))}}};  // sum {sum(taps)}"
    )
    ys, xs, yy, xx = _window(border, "R")
    if e.floating:
        acc_t, fin = e.ctype, f"acc * {literal(1.0 / norm, e)}"
        term = f"static_cast<{e.ctype}>(kTaps[dy + R] * kTaps[dx + R])"
    else:
        acc_t, fin = "int", f"static_cast<unsigned char>((acc + {norm // 2}) / {norm})"
        term = "kTaps[dy + R] * kTaps[dx + R]"
    body = (
        f"{ys}{xs}"
        f"            {acc_t} acc = 0;\n"
        f"            for (int dy = -R; dy <= R; ++dy) {{\n"
        f"                const int yy = {yy};\n"
        f"                for (int dx = -R; dx <= R; ++dx) {{\n"
        f"                    const int xx = {xx};\n"
        f"                    acc += {term} * src[yy * width + xx];\n"
        f"                }}\n"
        f"            }}\n"
        f"            dst[y * width + x] = {fin};\n"
        f"        }}\n"
        f"    }}"
    )
    how = (
        "clamping coordinates at the borders"
        if border == "clamp"
        else "over the interior (the border of dst keeps its values)"
    )
    comment = (
        f"Image filter: {size}x{size} Gaussian blur with integer binomial weights normalised "
        f"by {norm}, {how}; single-channel {e.ctype} image, width x height row-major."
    )
    dim = "2048" if size == 3 else "1536"
    return task(
        "image_filters",
        f"gauss{size}_{border}_{e.tag}_{c}",
        fn,
        comment,
        includes=("algorithm",) if border == "clamp" else (),
        container=c,
        sizes=[("width", dim), ("height", "2048")],
        items=params,
        body=body,
        helpers=helpers,
    )


def _morph_img(op: str, border: str, e: Element, c: Container) -> Generated:
    src, dst = _image_arrays(e, border)
    params: list[str | Array] = ["int width", "int height", src, dst]
    fn = op
    pick = "std::min" if op == "erode" else "std::max"
    if e.floating:
        start = "1e30f" if op == "erode" else "-1e30f"
    else:
        start = "255" if op == "erode" else "0"
    ys, xs, yy, xx = _window(border, "1")
    body = (
        f"{ys}{xs}"
        f"            {e.ctype} m = {start};\n"
        f"            for (int dy = -1; dy <= 1; ++dy) {{\n"
        f"                const int yy = {yy};\n"
        f"                for (int dx = -1; dx <= 1; ++dx) {{\n"
        f"                    const int xx = {xx};\n"
        f"                    m = {pick}(m, src[yy * width + xx]);\n"
        f"                }}\n"
        f"            }}\n"
        f"            dst[y * width + x] = m;\n"
        f"        }}\n"
        f"    }}"
    )
    how = (
        "clamping coordinates at the borders"
        if border == "clamp"
        else "over the interior (the border of dst keeps its values)"
    )
    what = "erosion (minimum" if op == "erode" else "dilation (maximum"
    comment = (
        f"Image filter: 3x3 {what} over the neighbourhood), {how}; single-channel {e.ctype} "
        "image, width x height row-major."
    )
    return task(
        "image_filters",
        f"{op}3_{border}_{e.tag}_{c}",
        fn,
        comment,
        includes=("algorithm",),
        container=c,
        sizes=[("width", "2048"), ("height", "2048")],
        items=params,
        body=body,
    )


def _gradient_img() -> Generated:
    src, dst = _image_arrays(_U8, "clamp")
    params: list[str | Array] = ["int width", "int height", src, dst]
    fn = "morph_gradient"
    ys, xs, yy, xx = _window("clamp", "1")
    body = (
        f"{ys}{xs}"
        "            unsigned char lo = 255, hi = 0;\n"
        "            for (int dy = -1; dy <= 1; ++dy) {\n"
        f"                const int yy = {yy};\n"
        "                for (int dx = -1; dx <= 1; ++dx) {\n"
        f"                    const int xx = {xx};\n"
        "                    const unsigned char v = src[yy * width + xx];\n"
        "                    lo = std::min(lo, v);\n"
        "                    hi = std::max(hi, v);\n"
        "                }\n"
        "            }\n"
        "            dst[y * width + x] = static_cast<unsigned char>(hi - lo);\n"
        "        }\n"
        "    }"
    )
    comment = (
        "Image filter: 3x3 morphological gradient (dilation minus erosion), clamping "
        "coordinates at the borders; single-channel unsigned char image."
    )
    return task(
        "image_filters",
        "mgrad3_clamp_u8_ptr",
        fn,
        comment,
        includes=("algorithm",),
        container=_PTR,
        sizes=[("width", "2048"), ("height", "2048")],
        items=params,
        body=body,
    )


def _gauss_rgb() -> Generated:
    src, dst = _image_arrays(_U8, "clamp", 3)
    params: list[str | Array] = ["int width", "int height", src, dst]
    fn = "gaussian3x3_rgb"
    ys, xs, yy, xx = _window("clamp", "1")
    body = (
        f"{ys}{xs}"
        "            for (int ch = 0; ch < 3; ++ch) {\n"
        "                int acc = 0;\n"
        "                for (int dy = -1; dy <= 1; ++dy) {\n"
        f"                    const int yy = {yy};\n"
        "                    for (int dx = -1; dx <= 1; ++dx) {\n"
        f"                        const int xx = {xx};\n"
        "                        const int w = (2 - std::abs(dy)) * (2 - std::abs(dx));\n"
        "                        acc += w * src[(yy * width + xx) * 3 + ch];\n"
        "                    }\n"
        "                }\n"
        "                dst[(y * width + x) * 3 + ch] =\n"
        "                    static_cast<unsigned char>((acc + 8) / 16);\n"
        "            }\n"
        "        }\n"
        "    }"
    )
    comment = (
        "Image filter: 3x3 Gaussian blur (weights 1 2 1, normalised by 16) of an interleaved "
        "RGB unsigned char image, clamping coordinates at the borders."
    )
    return task(
        "image_filters",
        "gauss3_clamp_rgb_u8_vec",
        fn,
        comment,
        includes=("algorithm", "cstdlib"),
        container=_VEC,
        sizes=[("width", "1024"), ("height", "1024")],
        items=params,
        body=body,
    )


def _image_filters() -> Iterator[Generated]:
    for kind, border, e in product(
        ("gauss3", "gauss5", "erode", "dilate"), ("clamp", "interior"), (_U8, _F32)
    ):
        vec = (border == "clamp") == (e is _U8)
        c = _VEC if vec else _PTR
        if kind.startswith("gauss"):
            yield _gauss_img(int(kind[-1]), border, e, c)
        else:
            yield _morph_img(kind, border, e, c)
    yield _gradient_img()
    yield _gauss_rgb()


# ---------------------------------------------------------------------------------------
# gemv
# ---------------------------------------------------------------------------------------


def _gemv_n(e: Element, c: Container, scaled: bool) -> Generated:
    a = Array("A", e, "m*n", "in", "uniform(-1, 1)")
    x = Array("x", e, "n", "in", "uniform(-1, 1)")
    y = Array("y", e, "m", "inout" if scaled else "out", "uniform(-1, 1)" if scaled else "")
    scal = [f"{e.ctype} alpha", f"{e.ctype} beta"] if scaled else []
    params: list[str | Array] = ["int m", "int n", *scal, a, x, y]
    fn = "gemv_scaled" if scaled else "gemv"
    store = "alpha * acc + beta * y[i]" if scaled else "acc"
    body = (
        f"    for (int i = 0; i < m; ++i) {{\n"
        f"        {e.ctype} acc = {literal(0, e)};\n"
        f"        for (int j = 0; j < n; ++j) {{\n"
        f"            acc += A[i * n + j] * x[j];\n"
        f"        }}\n"
        f"        y[i] = {store};\n"
        f"    }}"
    )
    what = "y = alpha * A x + beta * y" if scaled else "y = A x"
    comment = f"Dense matrix-vector product {what}, A row-major m x n; {e.ctype}."
    sizes = [("m", "8192" if e is _F32 else "4096"), ("n", "4096")]
    if scaled:
        sizes += [("alpha", "1.5"), ("beta", "-0.5")]
    tag = "axpby" if scaled else "n"
    return task(
        "gemv",
        f"{tag}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _gemv_t(e: Element, c: Container, order: str) -> Generated:
    a = Array("A", e, "m*n", "in", "uniform(-1, 1)")
    x = Array("x", e, "m", "in", "uniform(-1, 1)")
    y = Array("y", e, "n", "out")
    params: list[str | Array] = ["int m", "int n", a, x, y]
    tol: tuple[tuple[str, str], ...] = ()
    if order == "col":
        fn = "gemv_t"
        body = (
            f"    for (int j = 0; j < n; ++j) {{\n"
            f"        {e.ctype} acc = {literal(0, e)};\n"
            f"        for (int i = 0; i < m; ++i) {{\n"
            f"            acc += A[i * n + j] * x[i];\n"
            f"        }}\n"
            f"        y[j] = acc;\n"
            f"    }}"
        )
        how = "one column of A per output (strided reads)"
    else:
        fn = "gemv_t_rows"
        body = (
            f"    for (int j = 0; j < n; ++j) {{\n"
            f"        y[j] = {literal(0, e)};\n"
            f"    }}\n"
            f"    for (int i = 0; i < m; ++i) {{\n"
            f"        const {e.ctype} xi = x[i];\n"
            f"        for (int j = 0; j < n; ++j) {{\n"
            f"            y[j] += A[i * n + j] * xi;\n"
            f"        }}\n"
            f"    }}"
        )
        how = "sweeping the rows of A and accumulating into y"
        tol = _TOL if e is _F32 else ()
    comment = f"Transposed matrix-vector product y = A^T x, A row-major m x n, {how}; {e.ctype}."
    sizes = [("m", "8192" if e is _F32 else "4096"), ("n", "4096"), *tol]
    return task(
        "gemv",
        f"t{order}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _gemv_band(e: Element, c: Container) -> Generated:
    band = Array("band", e, "n*(2*b+1)", "in", "uniform(-1, 1)")
    x = Array("x", e, "n", "in", "uniform(-1, 1)")
    y = Array("y", e, "n", "out")
    params: list[str | Array] = ["int n", "int b", band, x, y]
    fn = "band_gemv"
    body = (
        f"    const int width = 2 * b + 1;\n"
        f"    for (int i = 0; i < n; ++i) {{\n"
        f"        const int lo = std::max(0, i - b);\n"
        f"        const int hi = std::min(n - 1, i + b);\n"
        f"        {e.ctype} acc = {literal(0, e)};\n"
        f"        for (int j = lo; j <= hi; ++j) {{\n"
        f"            acc += band[i * width + (j - i + b)] * x[j];\n"
        f"        }}\n"
        f"        y[i] = acc;\n"
        f"    }}"
    )
    comment = (
        "Banded matrix-vector product y = A x: A is n x n with half-bandwidth b, stored by "
        f"rows as 2b+1 diagonals (band[i*(2b+1) + (j-i+b)] = A[i][j]); {e.ctype}."
    )
    sizes = [("n", "1<<22"), ("b", "8")]
    return task(
        "gemv",
        f"band_{e.tag}_{c}",
        fn,
        comment,
        includes=("algorithm",),
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _gemv_tridiag(e: Element, c: Container) -> Generated:
    lower = Array("lower", e, "n", "in", "uniform(-1, 1)")
    diag = Array("diag", e, "n", "in", "uniform(-1, 1)")
    upper = Array("upper", e, "n", "in", "uniform(-1, 1)")
    x = Array("x", e, "n", "in", "uniform(-1, 1)")
    y = Array("y", e, "n", "out")
    arrays = [lower, diag, upper, x, y]
    params: list[str | Array] = ["int n", *arrays]
    fn = "tridiag_gemv"
    body = (
        f"    for (int i = 0; i < n; ++i) {{\n"
        f"        {e.ctype} acc = diag[i] * x[i];\n"
        f"        if (i > 0) acc += lower[i] * x[i - 1];\n"
        f"        if (i + 1 < n) acc += upper[i] * x[i + 1];\n"
        f"        y[i] = acc;\n"
        f"    }}"
    )
    comment = (
        "Tridiagonal matrix-vector product y = A x with the three diagonals in separate "
        f"arrays (lower[0] and upper[n-1] unused); {e.ctype}."
    )
    return task(
        "gemv",
        f"tridiag_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=[("n", "1<<24" if e is _F32 else "1<<23")],
        items=params,
        body=body,
    )


def _gemv_batched(e: Element, c: Container) -> Generated:
    a = Array("A", e, "batch*m*n", "in", "uniform(-1, 1)")
    x = Array("x", e, "batch*n", "in", "uniform(-1, 1)")
    y = Array("y", e, "batch*m", "out")
    params: list[str | Array] = ["int batch", "int m", "int n", a, x, y]
    fn = "batched_gemv"
    body = (
        f"    for (int b = 0; b < batch; ++b) {{\n"
        f"        for (int i = 0; i < m; ++i) {{\n"
        f"            {e.ctype} acc = {literal(0, e)};\n"
        f"            for (int j = 0; j < n; ++j) {{\n"
        f"                acc += A[(b * m + i) * n + j] * x[b * n + j];\n"
        f"            }}\n"
        f"            y[b * m + i] = acc;\n"
        f"        }}\n"
        f"    }}"
    )
    comment = (
        "Batched matrix-vector products y_b = A_b x_b over batch row-major m x n matrices "
        f"stored back to back; {e.ctype}."
    )
    sizes = [("batch", "256"), ("m", "256"), ("n", "256")]
    return task(
        "gemv",
        f"batched_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _gemv() -> Iterator[Generated]:
    for e, c in product((_F32, _F64), (_PTR, _VEC)):
        yield _gemv_n(e, c, scaled=False)
    for e, c in product((_F32, _F64), (_PTR, _VEC)):
        yield _gemv_n(e, c, scaled=True)
    yield _gemv_t(_F32, _PTR, "col")
    yield _gemv_t(_F64, _VEC, "col")
    yield _gemv_t(_F32, _VEC, "row")
    yield _gemv_t(_F64, _PTR, "row")
    yield _gemv_band(_F32, _PTR)
    yield _gemv_band(_F64, _VEC)
    yield _gemv_tridiag(_F32, _PTR)
    yield _gemv_batched(_F32, _PTR)
    yield _gemv_batched(_F64, _VEC)


# ---------------------------------------------------------------------------------------
# gemm
# ---------------------------------------------------------------------------------------

_GEMM_SHAPES = {
    # shape: (A's length, B's length, A index, B index, description)
    "nn": ("m*k", "k*n", "A[i * k + p]", "B[p * n + j]", "A B|A m x k, B k x n"),
    "tn": ("k*m", "k*n", "A[p * m + i]", "B[p * n + j]", "A^T B|A stored k x m, B k x n"),
    "nt": ("m*k", "n*k", "A[i * k + p]", "B[j * k + p]", "A B^T|A m x k, B stored n x k"),
}


def _gemm_ijk(
    shape: str, e: Element, c: Container, dims: tuple[str, str, str], epilogue: str
) -> Generated:
    la, lb, ia, ib, spec = _GEMM_SHAPES[shape]
    prod, shapes = spec.split("|")
    a = Array("A", e, la, "in", "uniform(-1, 1)")
    b = Array("B", e, lb, "in", "uniform(-1, 1)")
    if epilogue == "plain":
        cc = Array("C", e, "m*n", "out")
    else:
        cc = Array("C", e, "m*n", "inout", "uniform(-1, 1)")
    scal = [f"{e.ctype} alpha", f"{e.ctype} beta"] if epilogue == "alphabeta" else []
    square = len(set(dims)) == 1 and shape == "nn" and epilogue == "plain"
    if square:
        a = Array("A", e, "n*n", "in", "uniform(-1, 1)")
        b = Array("B", e, "n*n", "in", "uniform(-1, 1)")
        cc = Array("C", e, "n*n", "out")
        params: list[str | Array] = ["int n", a, b, cc]
        ia, ib, m, k = "A[i * n + p]", "B[p * n + j]", "n", "n"
        sizes: list[tuple[str, str]] = [("n", dims[0])]
        prod, shapes = "A B", "all n x n"
    else:
        params = ["int m", "int n", "int k", *scal]
        params += [a, b, cc]
        m, k = "m", "k"
        sizes = [("m", dims[0]), ("n", dims[1]), ("k", dims[2])]
    store = {
        "plain": "acc",
        "alphabeta": "alpha * acc + beta * C[i * n + j]",
        "acc": "acc",
    }[epilogue]
    if epilogue == "alphabeta":
        sizes += [("alpha", "1.5"), ("beta", "-0.5")]
        what = f"C = alpha * {prod} + beta * C ({shapes})"
    elif epilogue == "acc":
        what = f"C += {prod} ({shapes})"
    else:
        what = f"C = {prod} ({shapes})"
    fn = {"plain": "gemm", "alphabeta": "gemm_scaled", "acc": "gemm_acc"}[epilogue]
    if shape != "nn":
        fn += f"_{shape}"
    body = (
        f"    for (int i = 0; i < {m}; ++i) {{\n"
        f"        for (int j = 0; j < n; ++j) {{\n"
        f"            {e.ctype} acc = {literal(0, e)};\n"
        f"            for (int p = 0; p < {k}; ++p) {{\n"
        f"                acc += {ia} * {ib};\n"
        f"            }}\n"
        f"            C[i * n + j] {'+=' if epilogue == 'acc' else '='} {store};\n"
        f"        }}\n"
        f"    }}"
    )
    comment = f"Dense matrix-matrix product, naive triple loop: {what}, row-major; {e.ctype}."
    tag = f"{shape}_{'square' if square else epilogue}"
    return task(
        "gemm",
        f"{tag}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _gemm_ikj(e: Element, c: Container, accumulate: bool) -> Generated:
    a = Array("A", e, "m*k", "in", "uniform(-1, 1)")
    b = Array("B", e, "k*n", "in", "uniform(-1, 1)")
    if accumulate:
        cc = Array("C", e, "m*n", "inout", "uniform(-1, 1)")
    else:
        cc = Array("C", e, "m*n", "out")
    params: list[str | Array] = ["int m", "int n", "int k", a, b, cc]
    fn = "gemm_accumulate" if accumulate else "gemm_ikj"
    zero = (
        ""
        if accumulate
        else (f"    for (int i = 0; i < m * n; ++i) {{\n        C[i] = {literal(0, e)};\n    }}\n")
    )
    body = (
        f"{zero}"
        f"    for (int i = 0; i < m; ++i) {{\n"
        f"        for (int p = 0; p < k; ++p) {{\n"
        f"            const {e.ctype} a = A[i * k + p];\n"
        f"            for (int j = 0; j < n; ++j) {{\n"
        f"                C[i * n + j] += a * B[p * n + j];\n"
        f"            }}\n"
        f"        }}\n"
        f"    }}"
    )
    what = "C += A B" if accumulate else "C = A B (C zeroed first)"
    comment = (
        f"Dense matrix-matrix product {what} in i-k-j loop order (rows of B streamed into "
        f"rows of C), A m x k, B k x n, row-major; {e.ctype}."
    )
    sizes = [("m", "512"), ("n", "512"), ("k", "384" if e is _F64 else "512")]
    sizes += _TOL if e is _F32 else ()
    return task(
        "gemm",
        f"ikj_{'acc' if accumulate else 'plain'}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _gemm_batched(e: Element, c: Container, fixed: bool) -> Generated:
    if fixed:
        a = Array("A", e, "batch*16*16", "in", "uniform(-1, 1)")
        b = Array("B", e, "batch*16*16", "in", "uniform(-1, 1)")
        cc = Array("C", e, "batch*16*16", "out")
        params: list[str | Array] = ["int batch", a, b, cc]
        s, helpers = "S", "#define S 16"
        sizes = [("batch", "16384")]
        what = "16 x 16 (a compile-time size)"
    else:
        a = Array("A", e, "batch*s*s", "in", "uniform(-1, 1)")
        b = Array("B", e, "batch*s*s", "in", "uniform(-1, 1)")
        cc = Array("C", e, "batch*s*s", "out")
        params = ["int batch", "int s", a, b, cc]
        s, helpers = "s", ""
        sizes = [("batch", "2048"), ("s", "32")]
        what = "s x s"
    fn = "batched_gemm"
    body = (
        f"    for (int b = 0; b < batch; ++b) {{\n"
        f"        const int base = b * {s} * {s};\n"
        f"        for (int i = 0; i < {s}; ++i) {{\n"
        f"            for (int j = 0; j < {s}; ++j) {{\n"
        f"                {e.ctype} acc = {literal(0, e)};\n"
        f"                for (int p = 0; p < {s}; ++p) {{\n"
        f"                    acc += A[base + i * {s} + p] * B[base + p * {s} + j];\n"
        f"                }}\n"
        f"                C[base + i * {s} + j] = acc;\n"
        f"            }}\n"
        f"        }}\n"
        f"    }}"
    )
    comment = (
        f"Batched small matrix products C_b = A_b B_b over batch {what} row-major matrices "
        f"stored back to back; {e.ctype}."
    )
    tag = "batched_fixed" if fixed else "batched"
    return task(
        "gemm",
        f"{tag}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
        helpers=helpers,
    )


def _gemm() -> Iterator[Generated]:
    yield _gemm_ijk("nn", _F32, _PTR, ("512", "512", "512"), "plain")
    yield _gemm_ijk("nn", _F64, _PTR, ("384", "384", "384"), "plain")
    yield _gemm_ijk("nn", _F32, _VEC, ("512", "512", "512"), "plain")
    yield _gemm_ijk("nn", _F64, _VEC, ("384", "384", "384"), "plain")
    yield _gemm_ijk("nn", _F32, _PTR, ("512", "256", "384"), "acc")
    yield _gemm_ijk("nn", _F64, _VEC, ("384", "512", "256"), "acc")
    yield _gemm_ijk("nn", _F32, _VEC, ("512", "384", "512"), "alphabeta")
    yield _gemm_ijk("nn", _F64, _PTR, ("256", "384", "512"), "alphabeta")
    yield _gemm_ijk("tn", _F32, _PTR, ("384", "512", "384"), "plain")
    yield _gemm_ijk("tn", _F64, _VEC, ("384", "256", "384"), "plain")
    yield _gemm_ijk("nt", _F32, _PTR, ("512", "384", "512"), "plain")
    yield _gemm_ijk("nt", _F64, _VEC, ("384", "384", "256"), "plain")
    yield _gemm_ijk("nt", _F32, _VEC, ("384", "512", "512"), "alphabeta")
    yield _gemm_ikj(_F32, _PTR, accumulate=False)
    yield _gemm_ikj(_F64, _VEC, accumulate=False)
    yield _gemm_ikj(_F32, _VEC, accumulate=True)
    yield _gemm_ikj(_F64, _PTR, accumulate=True)
    yield _gemm_batched(_F32, _PTR, fixed=True)
    yield _gemm_batched(_F64, _VEC, fixed=False)
    yield _gemm_batched(_F32, _VEC, fixed=False)


# ---------------------------------------------------------------------------------------
# transpose_layout
# ---------------------------------------------------------------------------------------


def _dist(e: Element) -> str:
    return "uniform(-1, 1)" if e.floating else ""


def _transpose(e: Element, c: Container, square: bool) -> Generated:
    if square:
        a_in = Array("in", e, "n*n", "in", _dist(e))
        a_out = Array("out", e, "n*n", "out")
        params: list[str | Array] = ["int n", a_in, a_out]
        m, sizes = "n", [("n", "2048" if e is _F64 else "3072")]
        what = "out = in^T for an n x n matrix"
    else:
        a_in = Array("in", e, "m*n", "in", _dist(e))
        a_out = Array("out", e, "n*m", "out")
        params = ["int m", "int n", a_in, a_out]
        m = "m"
        sizes = [("m", "2048" if e is _F64 else "4096"), ("n", "3072" if e is _F64 else "2048")]
        what = "out (n x m) = in (m x n)^T"
    fn = "transpose"
    body = (
        f"    for (int i = 0; i < {m}; ++i) {{\n"
        f"        for (int j = 0; j < n; ++j) {{\n"
        f"            out[j * {m} + i] = in[i * n + j];\n"
        f"        }}\n"
        f"    }}"
    )
    comment = (
        f"Matrix transpose: {what}, row-major, looping over the rows of the input "
        f"(contiguous reads, strided writes); {e.ctype}."
    )
    tag = "square" if square else "rect"
    return task(
        "transpose_layout",
        f"{tag}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _transpose_tiled(e: Element, c: Container) -> Generated:
    a_in = Array("in", e, "m*n", "in", _dist(e))
    a_out = Array("out", e, "n*m", "out")
    params: list[str | Array] = ["int m", "int n", a_in, a_out]
    fn = "transpose_tiled"
    body = (
        "    for (int ii = 0; ii < m; ii += TILE) {\n"
        "        for (int jj = 0; jj < n; jj += TILE) {\n"
        "            const int i_end = std::min(ii + TILE, m);\n"
        "            const int j_end = std::min(jj + TILE, n);\n"
        "            for (int i = ii; i < i_end; ++i) {\n"
        "                for (int j = jj; j < j_end; ++j) {\n"
        "                    out[j * m + i] = in[i * n + j];\n"
        "                }\n"
        "            }\n"
        "        }\n"
        "    }"
    )
    comment = (
        "Matrix transpose out (n x m) = in (m x n)^T, cache-blocked in TILE x TILE tiles, "
        f"row-major; {e.ctype}."
    )
    return task(
        "transpose_layout",
        f"tiled_{e.tag}_{c}",
        fn,
        comment,
        includes=("algorithm",),
        container=c,
        sizes=[("m", "2048"), ("n", "4096")],
        items=params,
        body=body,
        helpers="#define TILE 32",
    )


def _transpose_inplace(e: Element, c: Container) -> Generated:
    a = Array("a", e, "n*n", "inout", _dist(e))
    params: list[str | Array] = ["int n", a]
    fn = "transpose_inplace"
    body = (
        f"    for (int i = 0; i < n; ++i) {{\n"
        f"        for (int j = i + 1; j < n; ++j) {{\n"
        f"            const {e.ctype} t = a[i * n + j];\n"
        f"            a[i * n + j] = a[j * n + i];\n"
        f"            a[j * n + i] = t;\n"
        f"        }}\n"
        f"    }}"
    )
    comment = (
        "In-place transpose of a square n x n row-major matrix (swapping across the "
        f"diagonal); {e.ctype}."
    )
    return task(
        "transpose_layout",
        f"inplace_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=[("n", "3072")],
        items=params,
        body=body,
    )


def _aos_soa(e: Element, c: Container, to_soa: bool) -> Generated:
    xyz = Array("xyz", e, "3*n", "in" if to_soa else "out", _dist(e) if to_soa else "")
    comps = [Array(v, e, "n", "out" if to_soa else "in", "" if to_soa else _dist(e)) for v in "xyz"]
    arrays = [xyz, *comps] if to_soa else [*comps, xyz]
    params: list[str | Array] = ["int n", *arrays]
    if to_soa:
        fn = "aos_to_soa"
        loop = "            x[i] = xyz[3 * i];\n            y[i] = xyz[3 * i + 1];\n" + (
            "            z[i] = xyz[3 * i + 2];\n"
        )
        what = "split interleaved xyz triples into three arrays (AoS to SoA)"
    else:
        fn = "soa_to_aos"
        loop = "            xyz[3 * i] = x[i];\n            xyz[3 * i + 1] = y[i];\n" + (
            "            xyz[3 * i + 2] = z[i];\n"
        )
        what = "interleave three coordinate arrays into xyz triples (SoA to AoS)"
    loop = loop.replace("            ", "        ")
    body = f"    for (int i = 0; i < n; ++i) {{\n{loop}    }}"
    comment = f"Layout change: {what}; {e.ctype}."
    tag = "aos2soa" if to_soa else "soa2aos"
    return task(
        "transpose_layout",
        f"{tag}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=[("n", "1<<24" if e is _F32 else "1<<23")],
        items=params,
        body=body,
    )


def _aos_struct() -> Generated:
    particle = Element("Particle", "particle", "", False)
    pts = Array("pts", particle, "n", "in", "uniform(-1, 1)")
    xs = [Array(v, _F32, "n", "out") for v in ("px", "py", "pz", "pw")]
    params: list[str | Array] = ["int n", pts, *xs]
    fn = "particles_to_soa"
    body = (
        "    for (int i = 0; i < n; ++i) {\n"
        "        px[i] = pts[i].x;\n"
        "        py[i] = pts[i].y;\n"
        "        pz[i] = pts[i].z;\n"
        "        pw[i] = pts[i].mass;\n"
        "    }"
    )
    helpers = "struct Particle {\n    float x, y, z;\n    float mass;\n};"
    comment = "Layout change: an array of Particle structs split into four component arrays."
    sizes = [("n", "1<<23")]
    return task(
        "transpose_layout",
        "aos2soa_struct_f32_ptr",
        fn,
        comment,
        container=_PTR,
        sizes=sizes,
        items=params,
        body=body,
        helpers=helpers,
    )


def _add_transposed(e: Element, c: Container) -> Generated:
    a = Array("A", e, "m*n", "in", _dist(e))
    b = Array("B", e, "n*m", "in", _dist(e))
    cc = Array("C", e, "m*n", "out")
    params: list[str | Array] = ["int m", "int n", a, b, cc]
    fn = "add_transposed"
    body = (
        "    for (int i = 0; i < m; ++i) {\n"
        "        for (int j = 0; j < n; ++j) {\n"
        "            C[i * n + j] = A[i * n + j] + B[j * m + i];\n"
        "        }\n"
        "    }"
    )
    comment = (
        f"Matrix add with one operand transposed: C = A + B^T, A and C m x n, B n x m, "
        f"row-major; {e.ctype}."
    )
    sizes = [("m", "2048" if e is _F64 else "4096"), ("n", "3072" if e is _F64 else "2048")]
    return task(
        "transpose_layout",
        f"addt_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _pitched(e: Element, c: Container, pack: bool) -> Generated:
    dense = Array("src" if pack else "dst", e, "rows*cols", "in" if pack else "out", "")
    pitched = Array("dst" if pack else "src", e, "rows*pitch", "out" if pack else "in", "")
    if e.floating:
        dense = Array(dense.name, e, dense.length, dense.role, _dist(e) if pack else "")
        pitched = Array(pitched.name, e, pitched.length, pitched.role, "" if pack else _dist(e))
    arrays = [dense, pitched] if pack else [pitched, dense]
    params: list[str | Array] = ["int rows", "int cols", "int pitch", *arrays]
    if pack:
        fn = "copy_to_pitched"
        inner = (
            "        for (int j = 0; j < cols; ++j) {\n"
            "            dst[i * pitch + j] = src[i * cols + j];\n"
            "        }\n"
            "        for (int j = cols; j < pitch; ++j) {\n"
            f"            dst[i * pitch + j] = {literal(0, e)};\n"
            "        }\n"
        )
        what = "into rows of pitch elements, zero-filling each row's padding"
    else:
        fn = "copy_from_pitched"
        inner = (
            "        for (int j = 0; j < cols; ++j) {\n"
            "            dst[i * cols + j] = src[i * pitch + j];\n"
            "        }\n"
        )
        what = "out of rows of pitch elements (padding skipped) into a dense array"
    body = f"    for (int i = 0; i < rows; ++i) {{\n{inner}    }}"
    comment = (
        f"2-D copy with padded rows: a rows x cols {e.ctype} array {what}; pitch is cols "
        "rounded up to a multiple of 64."
    )
    rows, cols = ("8192", "8000") if e.ctype != "double" else ("4096", "4000")
    sizes = [("rows", rows), ("cols", cols), ("pitch", "(cols + 63) / 64 * 64")]
    tag = "pitch_pack" if pack else "pitch_unpack"
    return task(
        "transpose_layout",
        f"{tag}_{e.tag}_{c}",
        fn,
        comment,
        container=c,
        sizes=sizes,
        items=params,
        body=body,
    )


def _transpose_layout() -> Iterator[Generated]:
    yield _transpose(_F32, _PTR, square=False)
    yield _transpose(_F64, _VEC, square=False)
    yield _transpose(_I32, _PTR, square=False)
    yield _transpose(_F32, _VEC, square=True)
    yield _transpose(_F64, _PTR, square=True)
    yield _transpose(_I32, _VEC, square=True)
    yield _transpose_tiled(_F32, _PTR)
    yield _transpose_inplace(_F32, _PTR)
    yield _transpose_inplace(_I32, _VEC)
    yield _aos_soa(_F32, _PTR, to_soa=True)
    yield _aos_soa(_F64, _VEC, to_soa=True)
    yield _aos_soa(_F32, _VEC, to_soa=False)
    yield _aos_soa(_F64, _PTR, to_soa=False)
    yield _aos_struct()
    yield _add_transposed(_F32, _PTR)
    yield _add_transposed(_F64, _VEC)
    yield _add_transposed(_I32, _PTR)
    yield _pitched(_F32, _PTR, pack=True)
    yield _pitched(_U8, _VEC, pack=True)
    yield _pitched(_F32, _VEC, pack=False)
    yield _pitched(_F64, _PTR, pack=False)


FAMILIES = (
    Family(
        "stencil1d",
        "1-D stencils: 3/5/7/9-point binomial smoothing, moving averages, run-time radius "
        "with a weight array, FIR filters with input taps; interior-only and clamped, "
        "float and double, pointers or vectors",
        _stencil1d,
    ),
    Family(
        "stencil2d",
        "2-D interior stencils on rows x cols grids: 5-point Jacobi, 9-point smoothing, 5- "
        "and 9-point Laplacians, heat step, box blurs of radius 1, 2 and r, Sobel magnitude",
        _stencil2d,
    ),
    Family(
        "stencil3d",
        "3-D interior stencils on nx x ny x nz grids: 7-point smoothing, heat steps with a "
        "constant or per-cell coefficient, anisotropic Laplacian, 27-point weighted and box",
        _stencil3d,
    ),
    Family(
        "image_filters",
        "3x3 and 5x5 Gaussian blurs, 3x3 erosion, dilation and morphological gradient on "
        "unsigned char and float images, clamped borders or interior-only, and an RGB blur",
        _image_filters,
    ),
    Family(
        "gemv",
        "matrix-vector products: y = A x, y = A^T x (two loop orders), y = alpha A x + "
        "beta y, banded and tridiagonal, batched; float and double, pointers or vectors",
        _gemv,
    ),
    Family(
        "gemm",
        "naive matrix products: square and rectangular C = A B, A^T B and A B^T, alpha/beta "
        "epilogue, accumulate into C, i-k-j order, batched small matrices; float and double",
        _gemm,
    ),
    Family(
        "transpose_layout",
        "transposes (rectangular, square, tiled, in place), AoS <-> SoA, C = A + B^T and "
        "copies into and out of pitched rows; float, double, int and unsigned char",
        _transpose_layout,
    ),
)
