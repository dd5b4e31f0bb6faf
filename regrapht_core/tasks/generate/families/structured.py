"""Structured families: sparse matrices, row-wise matrix work, all-pairs interactions,
naive transforms and graph steps, whose indices come from data or span whole rows."""

from __future__ import annotations

from collections.abc import Iterator

from regrapht_core.tasks.generate.base import (
    ELEMENTS,
    Array,
    Container,
    Element,
    Family,
    Generated,
    alternate,
    fill,
    literal,
    task,
)

__all__ = ["FAMILIES"]

_F32 = ELEMENTS["float"]
_F64 = ELEMENTS["double"]
_FLOATS = (_F32, _F64)
_INT = ELEMENTS["int"]


def _fn(e: Element, name: str) -> str:
    """The C math function for ``e``: ``expf`` for float, ``exp`` for double."""
    return f"{name}f" if e.ctype == "float" else name


def _std(e: Element, name: str, container: Container) -> str:
    """``cosf`` for float pointers (C style), ``std::cos`` otherwise (C++ style)."""
    if container is Container.POINTER and e.ctype == "float":
        return f"{name}f"
    return f"std::{name}"


# --------------------------------------------------------------------------------------
# sparse: SpMV in CSR, ELL and COO, CSR row reductions, scaled SpMV


def _sparse() -> Iterator[Generated]:
    fam = "sparse"
    for e in _FLOATS:
        t, z = e.ctype, literal(0, e)
        tol = [("atol", "1e-3"), ("rtol", "1e-3")] if e is _F32 else []
        csr_sizes = [("m", "1<<19"), ("n", "1<<19"), ("nnz", "m*16")]
        rp = Array("row_ptr", _INT, "m+1", "in", "csr(col=col_idx, cols=n)")
        ci = Array("col_idx", _INT, "nnz", "in")
        va = Array("vals", e, "nnz", "in", "normal(0, 1)")
        x = Array("x", e, "n", "in")
        y = Array("y", e, "m", "out")
        spmv = fill(
            """
    for (int i = 0; i < m; ++i) {
        {t} acc = {z};
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            acc += vals[p] * x[col_idx[p]];
        }
        y[i] = acc;
    }
""",
            t=t,
            z=z,
        )
        c = Container.POINTER
        yield task(
            fam,
            f"csr_nnz_{e.tag}_{c}",
            "spmv_csr",
            f"Sparse matrix-vector product y = A x, CSR, {t}; the nonzero count is a "
            "parameter, as in cuSPARSE.",
            c,
            sizes=csr_sizes,
            items=["int m", "int n", "int nnz", rp, ci, va, x, y],
            body=spmv,
        )
        c = Container.VECTOR
        yield task(
            fam,
            f"csr_{e.tag}_{c}",
            "spmv_csr",
            f"Sparse matrix-vector product y = A x, CSR in std::vectors, {t}.",
            c,
            sizes=csr_sizes,
            items=["int m", "int n", rp, ci, va, x, y],
            body=spmv,
        )
        # ELLPACK, column-major and row-major slots; indices a permutation of n = K*m.
        for layout, c, slot in (
            ("colmajor", Container.POINTER, "k * m + i"),
            ("rowmajor", Container.VECTOR, "i * K + k"),
        ):
            idx = Array("idx", _INT, "16*m", "in", "permutation")
            ev = Array("vals", e, "16*m", "in")
            yield task(
                fam,
                f"ell_{layout}_{e.tag}_{c}",
                "spmv_ell",
                f"Sparse matrix-vector product, ELLPACK with K = 16 slots per row stored "
                f"{layout.replace('major', '-major')}, {t}.",
                c,
                sizes=[("m", "1<<20"), ("n", "16*m")],
                items=["int m", "int n", idx, ev, Array("x", e, "n", "in"), y],
                body=fill(
                    """
    for (int i = 0; i < m; ++i) {
        {t} acc = {z};
        for (int k = 0; k < K; ++k) {
            acc += vals[{slot}] * x[idx[{slot}]];
        }
        y[i] = acc;
    }
""",
                    t=t,
                    z=z,
                    slot=slot,
                ),
                helpers="#define K 16",
            )
        # COO on a fixed 65536 x 131072 matrix: index ranges are constants of the file.
        for order, c, dist in (
            ("unsorted", Container.POINTER, "int(0, 65535)"),
            ("sorted", Container.VECTOR, "sorted(0, 65535)"),
        ):
            arrays = [
                Array("row", _INT, "nnz", "in", dist),
                Array("col", _INT, "nnz", "in", "int(0, 131071)"),
                Array("val", e, "nnz", "in", "normal(0, 1)"),
                Array("x", e, "131072", "in"),
                Array("y", e, "65536", "out"),
            ]
            what = "row-sorted" if order == "sorted" else "unordered"
            yield task(
                fam,
                f"coo_{order}_{e.tag}_{c}",
                "spmv_coo",
                f"Sparse matrix-vector product, COO with {what} triplets, on a fixed "
                f"NROWS x NCOLS matrix, {t}.",
                c,
                sizes=[("nnz", "1<<23"), *tol],
                items=["int nnz", *arrays],
                body=fill(
                    """
    for (int i = 0; i < NROWS; ++i) {
        y[i] = {z};
    }
    for (int k = 0; k < nnz; ++k) {
        y[row[k]] += val[k] * x[col[k]];
    }
""",
                    z=z,
                ),
                helpers="#define NROWS 65536\n#define NCOLS 131072",
            )
        # Gershgorin radii: row sums of |a_ij| off the diagonal.
        c = Container.POINTER
        yield task(
            fam,
            f"rowsum_offdiag_{e.tag}_{c}",
            "gershgorin_radii",
            f"CSR row sums of the absolute off-diagonal values (Gershgorin radii), {t}.",
            c,
            sizes=[("m", "1<<21"), ("nnz", "m*16")],
            items=[
                "int m",
                Array("row_ptr", _INT, "m+1", "in", "csr(col=col_idx)"),
                ci,
                va,
                Array("radius", e, "m", "out"),
            ],
            body=fill(
                """
    for (int i = 0; i < m; ++i) {
        {t} sum = {z};
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            if (col_idx[p] != i) {
                sum += {fabs}(vals[p]);
            }
        }
        radius[i] = sum;
    }
""",
                t=t,
                z=z,
                fabs=_fn(e, "fabs"),
            ),
            includes=("cmath",),
        )
        c = Container.VECTOR
        yield task(
            fam,
            f"rowmax_{e.tag}_{c}",
            "csr_row_max",
            f"CSR row maximum and the column holding it (first on ties); empty rows give 0 "
            f"and column -1, {t}.",
            c,
            sizes=[("m", "1<<21"), ("n", "1<<21"), ("nnz", "m*16")],
            items=[
                "int m",
                "int n",
                rp,
                ci,
                va,
                Array("mx", e, "m", "out"),
                Array("where", _INT, "m", "out"),
            ],
            body=fill(
                """
    for (int i = 0; i < m; ++i) {
        {t} best = {z};
        int at = -1;
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            if (at < 0 || vals[p] > best) {
                best = vals[p];
                at = col_idx[p];
            }
        }
        mx[i] = best;
        where[i] = at;
    }
""",
                t=t,
                z=z,
            ),
        )
        c = Container.POINTER
        yield task(
            fam,
            f"scaled_{e.tag}_{c}",
            "spmv_csr_scaled",
            f"Scaled sparse matrix-vector product y = alpha A x + beta y, CSR, {t}.",
            c,
            sizes=[*csr_sizes, ("alpha", "1.5"), ("beta", "-0.5")],
            items=[
                "int m",
                "int n",
                f"{t} alpha",
                f"{t} beta",
                rp,
                ci,
                va,
                x,
                Array("y", e, "m", "inout"),
            ],
            body=fill(
                """
    for (int i = 0; i < m; ++i) {
        {t} acc = {z};
        for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
            acc += vals[p] * x[col_idx[p]];
        }
        y[i] = alpha * acc + beta * y[i];
    }
""",
                t=t,
                z=z,
            ),
        )


# --------------------------------------------------------------------------------------
# rows: row-wise softmax, normalisations and reductions over a rows x cols matrix

_ROW_OPS = (
    "softmax",
    "softmax_online",
    "logsoftmax",
    "logsumexp",
    "layernorm",
    "rmsnorm",
    "l2norm",
    "max",
    "argmax",
)

_ROW_COUNT = {op: "16384" for op in ("layernorm", "rmsnorm", "l2norm", "argmax")}
"""The memory-bound passes get more rows, to run for more than 10 ms."""


def _row_body(op: str, e: Element) -> tuple[str, str, list[tuple[str, str]], list[str | Array]]:
    """The comment, body, extra annotation items and parameters after ``rows, cols``."""
    t = e.ctype
    x = Array("x", e, "rows*cols", "in", "normal(0, 3)")
    y = Array("y", e, "rows*cols", "out")
    per_row = Array("out", e, "rows", "out")
    gamma = Array("gamma", e, "cols", "in", "uniform(0.5, 1.5)")
    beta = Array("beta", e, "cols", "in", "uniform(-0.5, 0.5)")
    eps = [("eps", "0.00001")]
    max_loop = """
        {t} mx = -INFINITY;
        for (int k = 0; k < cols; ++k) {
            mx = {fmax}(mx, x[r * cols + k]);
        }"""
    if op == "softmax":
        body = (
            max_loop
            + """
        {t} sum = {z};
        for (int c = 0; c < cols; ++c) {
            {t} v = {exp}(x[r * cols + c] - mx);
            y[r * cols + c] = v;
            sum += v;
        }
        {t} inv = {one} / sum;
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] *= inv;
        }"""
        )
        return "Row-wise softmax (max-subtracted)", body, [], [x, y]
    if op == "softmax_online":
        body = """
        {t} mx = -INFINITY;
        {t} sum = {z};
        for (int k = 0; k < cols; ++k) {
            {t} v = x[r * cols + k];
            if (v > mx) {
                sum = sum * {exp}(mx - v) + {one};
                mx = v;
            } else {
                sum += {exp}(v - mx);
            }
        }
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = {exp}(x[r * cols + j] - mx) / sum;
        }"""
        return "Row-wise softmax with a one-pass running max and sum", body, [], [x, y]
    if op == "logsoftmax":
        body = (
            max_loop
            + """
        {t} sum = {z};
        for (int c = 0; c < cols; ++c) {
            sum += {exp}(x[r * cols + c] - mx);
        }
        {t} lse = mx + {log}(sum);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = x[r * cols + j] - lse;
        }"""
        )
        return "Row-wise log-softmax", body, [], [x, y]
    if op == "logsumexp":
        body = (
            max_loop
            + """
        {t} sum = {z};
        for (int c = 0; c < cols; ++c) {
            sum += {exp}(x[r * cols + c] - mx);
        }
        out[r] = mx + {log}(sum);"""
        )
        return "Row-wise log-sum-exp (max-subtracted)", body, [], [x, per_row]
    if op == "layernorm":
        x = Array("x", e, "rows*cols", "in", "normal(1, 2)")
        body = """
        {t} mean = {z};
        for (int k = 0; k < cols; ++k) {
            mean += x[r * cols + k];
        }
        mean /= ({t})cols;
        {t} var = {z};
        for (int c = 0; c < cols; ++c) {
            {t} d = x[r * cols + c] - mean;
            var += d * d;
        }
        var /= ({t})cols;
        {t} inv = {one} / {sqrt}(var + eps);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = (x[r * cols + j] - mean) * inv * gamma[j] + beta[j];
        }"""
        return (
            "Row-wise layer normalisation with learned scale and shift",
            body,
            eps,
            [f"{t} eps", x, gamma, beta, y],
        )
    if op == "rmsnorm":
        x = Array("x", e, "rows*cols", "in", "normal(0, 2)")
        body = """
        {t} ss = {z};
        for (int k = 0; k < cols; ++k) {
            ss += x[r * cols + k] * x[r * cols + k];
        }
        {t} inv = {one} / {sqrt}(ss / ({t})cols + eps);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = x[r * cols + j] * inv * gamma[j];
        }"""
        return (
            "Row-wise RMS normalisation with a learned scale",
            body,
            eps,
            [
                f"{t} eps",
                x,
                gamma,
                y,
            ],
        )
    if op == "l2norm":
        body = """
        {t} ss = {z};
        for (int k = 0; k < cols; ++k) {
            ss += x[r * cols + k] * x[r * cols + k];
        }
        {t} inv = {one} / {fmax}({sqrt}(ss), eps);
        for (int j = 0; j < cols; ++j) {
            y[r * cols + j] = x[r * cols + j] * inv;
        }"""
        return (
            "Row-wise L2 normalisation, x / max(||x||, eps)",
            body,
            [("eps", "1e-6")],
            [
                f"{t} eps",
                x,
                y,
            ],
        )
    if op == "max":
        body = (
            max_loop
            + """
        out[r] = mx;"""
        )
        return "Row-wise maximum", body, [], [x, per_row]
    body = """
        {t} best = x[r * cols];
        int at = 0;
        for (int k = 1; k < cols; ++k) {
            if (x[r * cols + k] > best) {
                best = x[r * cols + k];
                at = k;
            }
        }
        idx[r] = at;"""
    return "Row-wise argmax (first index on ties)", body, [], [x, Array("idx", _INT, "rows", "out")]


def _rows() -> Iterator[Generated]:
    for i, op in enumerate(_ROW_OPS):
        for j, e in enumerate(_FLOATS):
            c = alternate(i + j)
            what, inner, extra, items = _row_body(op, e)
            body = "    for (int r = 0; r < rows; ++r) {" + inner + "\n    }"
            fm = {
                "t": e.ctype,
                "z": literal(0, e),
                "one": literal(1, e),
                "exp": _fn(e, "exp"),
                "log": _fn(e, "log"),
                "sqrt": _fn(e, "sqrt"),
                "fmax": _fn(e, "fmax"),
            }
            yield task(
                "rows",
                f"{op}_{e.tag}_{c}",
                f"{op}_rows",
                f"{what} over a rows x cols matrix, {e.ctype}.",
                c,
                sizes=[("rows", _ROW_COUNT.get(op, "8192")), ("cols", "1024"), *extra],
                items=["int rows", "int cols", *items],
                body=fill(body, **fm),
                includes=() if op == "argmax" else ("cmath",),
            )


# --------------------------------------------------------------------------------------
# nbody_allpairs: O(n^2) interactions between every pair of points


def _nbody() -> Iterator[Generated]:
    fam = "nbody_allpairs"
    for e, c in ((_F32, Container.POINTER), (_F64, Container.POINTER), (_F32, Container.VECTOR)):
        t = e.ctype
        tol = [("atol", "2e-2"), ("rtol", "1e-3")] if e is _F32 else []
        pos = [Array(f"p{a}", e, "n", "in") for a in "xyz"]
        acc = [Array(f"a{a}", e, "n", "out") for a in "xyz"]
        yield task(
            fam,
            f"accel_soa_{e.tag}_{c}",
            "nbody_accel",
            f"N-body accelerations with Plummer softening, positions and masses as separate "
            f"arrays, {t}.",
            c,
            sizes=[("n", "4096"), ("eps2", "0.01"), *tol],
            items=["int n", f"{t} eps2", *pos, Array("mass", e, "n", "in", "uniform(0, 1)"), *acc],
            body=fill(
                """
    for (int i = 0; i < n; ++i) {
        {t} sx = {z}, sy = {z}, sz = {z};
        for (int j = 0; j < n; ++j) {
            {t} dx = px[j] - px[i];
            {t} dy = py[j] - py[i];
            {t} dz = pz[j] - pz[i];
            {t} r2 = dx * dx + dy * dy + dz * dz + eps2;
            {t} inv = {one} / {sqrt}(r2);
            {t} s = mass[j] * inv * inv * inv;
            sx += dx * s;
            sy += dy * s;
            sz += dz * s;
        }
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
    }
""",
                t=t,
                z=literal(0, e),
                one=literal(1, e),
                sqrt=_fn(e, "sqrt"),
            ),
            includes=("cmath",),
        )
    for e, c in ((_F32, Container.POINTER), (_F64, Container.VECTOR)):
        t = e.ctype
        tol = [("atol", "2e-2"), ("rtol", "1e-3")] if e is _F32 else []
        body_t = Element("Body", "body", "", False)
        accel_t = Element("Accel", "accel", "", False)
        helpers = (
            f"struct Body {{\n    {t} x, y, z, mass;\n}};\n\nstruct Accel {{\n    {t} x, y, z;\n}};"
        )
        yield task(
            fam,
            f"accel_aos_{e.tag}_{c}",
            "nbody_accel_aos",
            f"N-body accelerations with Plummer softening, bodies as an array of structs, {t}.",
            c,
            sizes=[("n", "4096"), ("eps2", "0.01"), *tol],
            items=[
                "int n",
                f"{t} eps2",
                Array("bodies", body_t, "n", "in", "uniform(0, 1)"),
                Array("acc", accel_t, "n", "out"),
            ],
            body=fill(
                """
    for (int i = 0; i < n; ++i) {
        Accel a = {{z}, {z}, {z}};
        for (int j = 0; j < n; ++j) {
            {t} dx = bodies[j].x - bodies[i].x;
            {t} dy = bodies[j].y - bodies[i].y;
            {t} dz = bodies[j].z - bodies[i].z;
            {t} r2 = dx * dx + dy * dy + dz * dz + eps2;
            {t} inv = {one} / {sqrt}(r2);
            {t} s = bodies[j].mass * inv * inv * inv;
            a.x += dx * s;
            a.y += dy * s;
            a.z += dz * s;
        }
        acc[i] = a;
    }
""",
                t=t,
                z=literal(0, e),
                one=literal(1, e),
                sqrt=_fn(e, "sqrt"),
            ),
            includes=("cmath",),
            helpers=helpers,
        )
    for i, e in enumerate(_FLOATS):
        t, z = e.ctype, literal(0, e)
        c = alternate(i)
        yield task(
            fam,
            f"kde1d_{e.tag}_{c}",
            "kde",
            f"1-D Gaussian kernel density estimate of m query points against n samples, {t}.",
            c,
            sizes=[("m", "4096"), ("n", "4096"), ("inv2h2", "50.0")],
            items=[
                "int m",
                "int n",
                f"{t} inv2h2",
                Array("q", e, "m", "in"),
                Array("s", e, "n", "in"),
                Array("dens", e, "m", "out"),
            ],
            body=fill(
                """
    for (int i = 0; i < m; ++i) {
        {t} acc = {z};
        for (int j = 0; j < n; ++j) {
            {t} d = q[i] - s[j];
            acc += {exp}(-d * d * inv2h2);
        }
        dens[i] = acc / ({t})n;
    }
""",
                t=t,
                z=z,
                exp=_fn(e, "exp"),
            ),
            includes=("cmath",),
        )
        c = alternate(i + 1)
        yield task(
            fam,
            f"kde2d_{e.tag}_{c}",
            "kde2d",
            f"2-D Gaussian kernel density estimate of m query points against n samples, {t}.",
            c,
            sizes=[("m", "4096"), ("n", "8192"), ("inv2h2", "20.0")],
            items=[
                "int m",
                "int n",
                f"{t} inv2h2",
                Array("qx", e, "m", "in"),
                Array("qy", e, "m", "in"),
                Array("sx", e, "n", "in"),
                Array("sy", e, "n", "in"),
                Array("dens", e, "m", "out"),
            ],
            body=fill(
                """
    const {t} norm = inv2h2 / ({pi} * ({t})n);
    for (int i = 0; i < m; ++i) {
        {t} acc = {z};
        for (int j = 0; j < n; ++j) {
            {t} dx = qx[i] - sx[j];
            {t} dy = qy[i] - sy[j];
            acc += {exp}(-(dx * dx + dy * dy) * inv2h2);
        }
        dens[i] = acc * norm;
    }
""",
                t=t,
                z=z,
                exp=_fn(e, "exp"),
                pi=literal(3.141592653589793, e),
            ),
            includes=("cmath",),
        )
        c = alternate(i)
        yield task(
            fam,
            f"distsum_{e.tag}_{c}",
            "distance_sums",
            f"Sum of Euclidean distances from every 3-D point to all points, {t}.",
            c,
            sizes=[("n", "8192")],
            items=[
                "int n",
                *(Array(f"p{a}", e, "n", "in") for a in "xyz"),
                Array("total", e, "n", "out"),
            ],
            body=fill(
                """
    for (int i = 0; i < n; ++i) {
        {t} acc = {z};
        for (int j = 0; j < n; ++j) {
            {t} dx = px[i] - px[j];
            {t} dy = py[i] - py[j];
            {t} dz = pz[i] - pz[j];
            acc += {sqrt}(dx * dx + dy * dy + dz * dz);
        }
        total[i] = acc;
    }
""",
                t=t,
                z=z,
                sqrt=_fn(e, "sqrt"),
            ),
            includes=("cmath",),
        )
        c = alternate(i + 1)
        tol = [("atol", "2e-2"), ("rtol", "1e-3")] if e is _F32 else []
        yield task(
            fam,
            f"coulomb_{e.tag}_{c}",
            "coulomb_potential",
            f"Softened Coulomb potential at every charge from all the others, {t}.",
            c,
            sizes=[("n", "4096"), ("eps", "0.0001"), *tol],
            items=[
                "int n",
                f"{t} eps",
                *(Array(f"p{a}", e, "n", "in") for a in "xyz"),
                Array("q", e, "n", "in"),
                Array("phi", e, "n", "out"),
            ],
            body=fill(
                """
    for (int i = 0; i < n; ++i) {
        {t} acc = {z};
        for (int j = 0; j < n; ++j) {
            if (j == i) {
                continue;
            }
            {t} dx = px[i] - px[j];
            {t} dy = py[i] - py[j];
            {t} dz = pz[i] - pz[j];
            acc += q[j] / {sqrt}(dx * dx + dy * dy + dz * dz + eps);
        }
        phi[i] = q[i] * acc;
    }
""",
                t=t,
                z=z,
                sqrt=_fn(e, "sqrt"),
            ),
            includes=("cmath",),
        )
        for dims, c in ((2, alternate(i)), (3, alternate(i + 1))):
            axes = "xyz"[:dims]
            diffs = "\n".join(f"            {t} d{a} = p{a}[i] - p{a}[j];" for a in axes)
            d2 = " + ".join(f"d{a} * d{a}" for a in axes)
            big = "FLT_MAX" if e is _F32 else "DBL_MAX"
            yield task(
                fam,
                f"nearest{dims}d_{e.tag}_{c}",
                "nearest_distance",
                f"Brute-force distance from every {dims}-D point to its nearest other point, "
                f"{t} (a lone point gets sqrt({big})).",
                c,
                sizes=[("n", "8192")],
                items=[
                    "int n",
                    *(Array(f"p{a}", e, "n", "in") for a in axes),
                    Array("nn", e, "n", "out"),
                ],
                body=f"""
    for (int i = 0; i < n; ++i) {{
        {t} best = {big};
        for (int j = 0; j < n; ++j) {{
            if (j == i) {{
                continue;
            }}
{diffs}
            {t} d2 = {d2};
            if (d2 < best) {{
                best = d2;
            }}
        }}
        nn[i] = {_fn(e, "sqrt")}(best);
    }}
""",
                includes=("cfloat", "cmath"),
            )


# --------------------------------------------------------------------------------------
# dft: naive O(n^2) transforms and correlations


def _dft() -> Iterator[Generated]:
    fam = "dft"
    for i, e in enumerate(_FLOATS):
        t, z = e.ctype, literal(0, e)
        tol = [("atol", "1e-2"), ("rtol", "1e-3")] if e is _F32 else []
        two_pi = literal(6.283185307179586, e)
        pi = literal(3.141592653589793, e)
        # Real DFT, the angle reduced exactly as (k*j mod n) / n.
        c = alternate(i)
        cos, sin = _std(e, "cos", c), _std(e, "sin", c)
        yield task(
            fam,
            f"real_{e.tag}_{c}",
            "dft_real",
            f"Naive DFT of a real signal into real and imaginary parts, {t}.",
            c,
            sizes=[("n", "2048"), *tol],
            items=[
                "int n",
                Array("x", e, "n", "in"),
                Array("re", e, "n", "out"),
                Array("im", e, "n", "out"),
            ],
            body=fill(
                """
    for (int k = 0; k < n; ++k) {
        {t} sr = {z};
        {t} si = {z};
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            {t} angle = {two_pi} * ({t})r / ({t})n;
            sr += x[j] * {cos}(angle);
            si -= x[j] * {sin}(angle);
        }
        re[k] = sr;
        im[k] = si;
    }
""",
                t=t,
                z=z,
                two_pi=two_pi,
                cos=cos,
                sin=sin,
            ),
            includes=("cmath",),
        )
        if e is _F64:
            c = Container.POINTER
            yield task(
                fam,
                f"real_direct_{e.tag}_{c}",
                "dft_real",
                "Naive DFT of a real signal, the angle 2 pi k j / n computed directly, double.",
                c,
                sizes=[("n", "2048")],
                items=[
                    "int n",
                    Array("x", e, "n", "in"),
                    Array("re", e, "n", "out"),
                    Array("im", e, "n", "out"),
                ],
                body="""
    const double pi = 3.141592653589793;
    for (int k = 0; k < n; ++k) {
        double sr = 0.0;
        double si = 0.0;
        for (int j = 0; j < n; ++j) {
            double angle = 2.0 * pi * k * j / n;
            sr += x[j] * cos(angle);
            si -= x[j] * sin(angle);
        }
        re[k] = sr;
        im[k] = si;
    }
""",
                includes=("cmath",),
            )
        c = alternate(i + 1)
        cos, sin = _std(e, "cos", c), _std(e, "sin", c)
        yield task(
            fam,
            f"inverse_{e.tag}_{c}",
            "idft",
            f"Naive inverse DFT of a complex spectrum (separate re/im arrays), scaled by 1/n, {t}.",
            c,
            sizes=[("n", "2048"), *tol],
            items=[
                "int n",
                Array("re", e, "n", "in"),
                Array("im", e, "n", "in"),
                Array("xr", e, "n", "out"),
                Array("xi", e, "n", "out"),
            ],
            body=fill(
                """
    for (int j = 0; j < n; ++j) {
        {t} sr = {z};
        {t} si = {z};
        for (int k = 0; k < n; ++k) {
            int r = (int)((long long)j * k % n);
            {t} angle = {two_pi} * ({t})r / ({t})n;
            {t} c = {cos}(angle);
            {t} s = {sin}(angle);
            sr += re[k] * c - im[k] * s;
            si += re[k] * s + im[k] * c;
        }
        xr[j] = sr / ({t})n;
        xi[j] = si / ({t})n;
    }
""",
                t=t,
                z=z,
                two_pi=two_pi,
                cos=cos,
                sin=sin,
            ),
            includes=("cmath",),
        )
        c = alternate(i + 1)
        cos, sin = _std(e, "cos", c), _std(e, "sin", c)
        yield task(
            fam,
            f"power_{e.tag}_{c}",
            "power_spectrum",
            f"One-sided power spectrum |X_k|^2 / n of a real signal by a naive DFT, {t}.",
            c,
            sizes=[("n", "4096"), *tol],
            items=["int n", Array("x", e, "n", "in"), Array("power", e, "n/2+1", "out")],
            body=fill(
                """
    for (int k = 0; k <= n / 2; ++k) {
        {t} sr = {z};
        {t} si = {z};
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            {t} angle = {two_pi} * ({t})r / ({t})n;
            sr += x[j] * {cos}(angle);
            si -= x[j] * {sin}(angle);
        }
        power[k] = (sr * sr + si * si) / ({t})n;
    }
""",
                t=t,
                z=z,
                two_pi=two_pi,
                cos=cos,
                sin=sin,
            ),
            includes=("cmath",),
        )
        c = alternate(i)
        cos = _std(e, "cos", c)
        yield task(
            fam,
            f"dct2_{e.tag}_{c}",
            "dct2",
            f"Naive DCT-II, X_k = sum_j x_j cos(pi (2j+1) k / 2n), {t}.",
            c,
            sizes=[("n", "4096"), *tol],
            items=["int n", Array("x", e, "n", "in"), Array("X", e, "n", "out")],
            body=fill(
                """
    for (int k = 0; k < n; ++k) {
        {t} acc = {z};
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)(2 * j + 1) * k % (4 * n));
            acc += x[j] * {cos}({pi} * ({t})r / ({t})(2 * n));
        }
        X[k] = acc;
    }
""",
                t=t,
                z=z,
                pi=pi,
                cos=cos,
            ),
            includes=("cmath",),
        )
        c = alternate(i)
        yield task(
            fam,
            f"xcorr_{e.tag}_{c}",
            "cross_correlation",
            f"Full linear cross-correlation of two signals at all 2n-1 lags, {t}.",
            c,
            sizes=[("n", "8192"), *tol],
            items=[
                "int n",
                Array("a", e, "n", "in"),
                Array("b", e, "n", "in"),
                Array("out", e, "2*n-1", "out"),
            ],
            body=fill(
                """
    for (int lag = -(n - 1); lag < n; ++lag) {
        int lo = lag < 0 ? -lag : 0;
        int hi = lag < 0 ? n : n - lag;
        {t} acc = {z};
        for (int i = lo; i < hi; ++i) {
            acc += a[i] * b[i + lag];
        }
        out[lag + n - 1] = acc;
    }
""",
                t=t,
                z=z,
            ),
        )
        c = alternate(i + 1)
        yield task(
            fam,
            f"circcorr_{e.tag}_{c}",
            "circular_correlation",
            f"Circular cross-correlation of two length-n signals at every lag, {t}.",
            c,
            sizes=[("n", "8192"), *tol],
            items=[
                "int n",
                Array("a", e, "n", "in"),
                Array("b", e, "n", "in"),
                Array("out", e, "n", "out"),
            ],
            body=fill(
                """
    for (int lag = 0; lag < n; ++lag) {
        {t} acc = {z};
        for (int i = 0; i < n; ++i) {
            acc += a[i] * b[(i + lag) % n];
        }
        out[lag] = acc;
    }
""",
                t=t,
                z=z,
            ),
        )
        c = Container.POINTER
        yield task(
            fam,
            f"autocorr_{e.tag}_{c}",
            "autocorrelation",
            f"Biased autocorrelation estimate of a signal at every lag, {t}.",
            c,
            sizes=[("n", "16384"), *tol],
            items=["int n", Array("x", e, "n", "in"), Array("r", e, "n", "out")],
            body=fill(
                """
    for (int lag = 0; lag < n; ++lag) {
        {t} acc = {z};
        for (int i = 0; i + lag < n; ++i) {
            acc += x[i] * x[i + lag];
        }
        r[lag] = acc / ({t})n;
    }
""",
                t=t,
                z=z,
            ),
        )
        c = alternate(i)
        cplx = Element(f"std::complex<{t}>", f"c{'64' if e is _F32 else '128'}", "", True)
        yield task(
            fam,
            f"complex_{e.tag}_{c}",
            "dft_complex",
            f"Naive DFT of a complex signal with std::complex<{t}>.",
            c,
            sizes=[("n", "2048"), *tol],
            items=["int n", Array("x", cplx, "n", "in"), Array("X", cplx, "n", "out")],
            body=fill(
                """
    for (int k = 0; k < n; ++k) {
        std::complex<{t}> acc({z}, {z});
        for (int j = 0; j < n; ++j) {
            int r = (int)((long long)k * j % n);
            {t} angle = -{two_pi} * ({t})r / ({t})n;
            acc += x[j] * std::complex<{t}>(std::cos(angle), std::sin(angle));
        }
        X[k] = acc;
    }
""",
                t=t,
                z=z,
                two_pi=two_pi,
            ),
            includes=("cmath", "complex"),
        )


# --------------------------------------------------------------------------------------
# graph_steps: one step of a graph algorithm over CSR adjacency


_GRAPH = "graph_steps"
_GRAPH_SIZES = (("n", "1<<20"), ("nnz", "n*16"))
_RP = Array("row_ptr", _INT, "n+1", "in", "csr(col=col, cols=n)")
_COL = Array("col", _INT, "nnz", "in")
_GP = Array("offsets", _INT, "n+1", "in", "graph(adj=adj)")
_ADJ = Array("adj", _INT, "nnz", "in")


def _graph() -> Iterator[Generated]:
    yield from _graph_degrees()
    yield from _graph_pagerank()
    yield from _graph_bfs()
    yield from _graph_labels()
    yield from _graph_aggregate()


def _graph_degrees() -> Iterator[Generated]:
    fam, rp, col = _GRAPH, _RP, _COL
    for c in Container:
        yield task(
            fam,
            f"degrees_i32_{c}",
            "degrees",
            "Out-degrees from the CSR row pointers and in-degrees counted over the column indices.",
            c,
            sizes=[("n", "1<<20"), ("nnz", "n*16")],
            items=[
                "int n",
                rp,
                col,
                Array("out_deg", _INT, "n", "out"),
                Array("in_deg", _INT, "n", "out"),
            ],
            body="""
    for (int v = 0; v < n; ++v) {
        out_deg[v] = row_ptr[v + 1] - row_ptr[v];
        in_deg[v] = 0;
    }
    for (int p = 0; p < row_ptr[n]; ++p) {
        in_deg[col[p]] += 1;
    }
""",
        )
    for ctype, c in (("unsigned int", Container.POINTER), ("long long", Container.VECTOR)):
        e = ELEMENTS[ctype]
        yield task(
            fam,
            f"indegree_{e.tag}_{c}",
            "in_degrees",
            f"In-degree histogram of a CSR graph over its column indices, {ctype} counts.",
            c,
            sizes=[("n", "1<<20"), ("nnz", "n*16")],
            items=["int n", rp, col, Array("in_deg", e, "n", "out")],
            body="""
    for (int v = 0; v < n; ++v) {
        in_deg[v] = 0;
    }
    for (int v = 0; v < n; ++v) {
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            ++in_deg[col[p]];
        }
    }
""",
        )


def _graph_pagerank() -> Iterator[Generated]:
    """One pull iteration over in-edges."""
    fam, rp, col, csr_sizes = _GRAPH, _RP, _COL, _GRAPH_SIZES
    for e, c, style in (
        (_F32, Container.POINTER, "outdeg"),
        (_F64, Container.VECTOR, "outdeg"),
        (_F32, Container.VECTOR, "contrib"),
        (_F64, Container.POINTER, "dangling"),
    ):
        t, z, one = e.ctype, literal(0, e), literal(1, e)
        rank = Array("rank", e, "n", "in", "uniform(0, 1)")
        nxt = Array("next", e, "n", "out")
        if style == "outdeg":
            items: list[str | Array] = [
                "int n",
                f"{t} damping",
                rp,
                col,
                rank,
                Array("out_deg", _INT, "n", "in", "int(1, 64)"),
                nxt,
            ]
            term, extra, what = "rank[u] / ({t})out_deg[u]", "", "ranks divided by out-degrees"
        elif style == "contrib":
            items = [
                "int n",
                f"{t} damping",
                rp,
                col,
                Array("contrib", e, "n", "in", "uniform(0, 0.1)"),
                nxt,
            ]
            term, extra, what = "contrib[u]", "", "precomputed contributions"
        else:
            items = [
                "int n",
                f"{t} damping",
                f"{t} dangling",
                rp,
                col,
                rank,
                Array("inv_out_deg", e, "n", "in", "uniform(0, 1)"),
                nxt,
            ]
            term, extra = "rank[u] * inv_out_deg[u]", " + dangling / ({t})n"
            what = "inverse out-degrees and dangling mass"
        sizes = [*csr_sizes, ("damping", "0.85")]
        if style == "dangling":
            sizes.append(("dangling", "0.25"))
        yield task(
            fam,
            f"pagerank_{style}_{e.tag}_{c}",
            "pagerank_pull",
            f"One pull-style PageRank iteration over in-edges in CSR, {what}, {t}.",
            c,
            sizes=sizes,
            items=items,
            body=fill(
                """
    const {t} base = ({one} - damping) / ({t})n;
    for (int v = 0; v < n; ++v) {
        {t} sum = {z};
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {
            int u = col[p];
            sum += {term};
        }
        next[v] = base + damping * (sum{extra});
    }
""",
                term=term,
                extra=extra,
                t=t,  # after extra, which holds {t} too
                z=z,
                one=one,
            ),
        )


def _graph_bfs() -> Iterator[Generated]:
    """One level expansion: pull with early exit, push, and on a distance array."""
    fam, gp, adj = _GRAPH, _GP, _ADJ
    flags = {
        "u8": (ELEMENTS["unsigned char"], "int(0, 1)"),
        "i32": (_INT, "int(0, 1)"),
        "bool": (Element("bool", "bool", "", False), ""),
    }
    for tag, c in (
        ("u8", Container.POINTER),
        ("i32", Container.VECTOR),
        ("bool", Container.POINTER),
    ):
        fe, dist = flags[tag]
        one = "true" if tag == "bool" else "1"
        zero = "false" if tag == "bool" else "0"
        yield task(
            fam,
            f"bfs_pull_{tag}_{c}",
            "bfs_expand",
            f"One bottom-up BFS step: an unvisited vertex joins the next frontier when any "
            f"neighbour is in the frontier ({fe.ctype} flags).",
            c,
            sizes=[("n", "1<<20"), ("nnz", "n*16")],
            items=[
                "int n",
                gp,
                adj,
                Array("frontier", fe, "n", "in", dist),
                Array("visited", fe, "n", "in", dist),
                Array("next", fe, "n", "out"),
            ],
            body=f"""
    for (int v = 0; v < n; ++v) {{
        {fe.ctype} found = {zero};
        if (!visited[v]) {{
            for (int p = offsets[v]; p < offsets[v + 1]; ++p) {{
                if (frontier[adj[p]]) {{
                    found = {one};
                    break;
                }}
            }}
        }}
        next[v] = found;
    }}
""",
        )
    u8 = ELEMENTS["unsigned char"]
    c = Container.POINTER
    yield task(
        fam,
        f"bfs_push_u8_{c}",
        "bfs_expand_push",
        "One top-down BFS step: every frontier vertex marks its unvisited neighbours in "
        "the next frontier (unsigned char flags).",
        c,
        sizes=[("n", "1<<20"), ("nnz", "n*16")],
        items=[
            "int n",
            gp,
            adj,
            Array("frontier", u8, "n", "in", "int(0, 1)"),
            Array("visited", u8, "n", "in", "int(0, 1)"),
            Array("next", u8, "n", "inout", "int(0, 0)"),
        ],
        body="""
    for (int u = 0; u < n; ++u) {
        if (!frontier[u]) {
            continue;
        }
        for (int p = offsets[u]; p < offsets[u + 1]; ++p) {
            int v = adj[p];
            if (!visited[v]) {
                next[v] = 1;
            }
        }
    }
""",
    )
    c = Container.VECTOR
    yield task(
        fam,
        f"bfs_level_i32_{c}",
        "bfs_level_step",
        "One level-synchronous BFS step on a distance array: an unreached vertex (-1) with "
        "a neighbour at distance level gets level + 1.",
        c,
        sizes=[("n", "1<<20"), ("nnz", "n*16"), ("level", "2")],
        items=["int n", "int level", gp, adj, Array("dist", _INT, "n", "inout", "int(-1, 3)")],
        body="""
    for (int v = 0; v < n; ++v) {
        if (dist[v] != -1) {
            continue;
        }
        for (int p = offsets[v]; p < offsets[v + 1]; ++p) {
            if (dist[adj[p]] == level) {
                dist[v] = level + 1;
                break;
            }
        }
    }
""",
    )


def _graph_labels() -> Iterator[Generated]:
    """Label propagation: each vertex takes the smallest label among itself and neighbours."""
    fam, gp, adj = _GRAPH, _GP, _ADJ
    for ctype, c, counted in (
        ("int", Container.POINTER, False),
        ("int", Container.VECTOR, True),
        ("unsigned int", Container.POINTER, False),
        ("long long", Container.VECTOR, False),
    ):
        e = ELEMENTS[ctype]
        label = Array("label", e, "n", "in", "int(0, 1000000)")
        nxt = Array("next", e, "n", "out")
        ret = "int" if counted else "void"
        changed = "\n    int changed = 0;" if counted else ""
        count = "\n        changed += best != label[v];" if counted else ""
        tail = "\n    return changed;" if counted else ""
        what = ", returning how many labels changed" if counted else ""
        yield task(
            fam,
            f"labelmin_{e.tag}_{c}{'_count' if counted else ''}",
            "label_min_step",
            f"One label-propagation step for connected components: each vertex takes the "
            f"smallest {ctype} label among itself and its neighbours{what}.",
            c,
            sizes=[("n", "1<<20"), ("nnz", "n*16")],
            items=["int n", gp, adj, label, nxt],
            body=f"""{changed}
    for (int v = 0; v < n; ++v) {{
        {ctype} best = label[v];
        for (int p = offsets[v]; p < offsets[v + 1]; ++p) {{
            {ctype} l = label[adj[p]];
            if (l < best) {{
                best = l;
            }}
        }}
        next[v] = best;{count}
    }}{tail}
""",
            returns=ret,
        )


def _graph_aggregate() -> Iterator[Generated]:
    """Sum, mean or max of a value over each vertex's neighbours."""
    fam, rp, col, csr_sizes = _GRAPH, _RP, _COL, _GRAPH_SIZES
    for op, ctype, c in (
        ("sum", "float", Container.POINTER),
        ("sum", "double", Container.VECTOR),
        ("sum", "int", Container.POINTER),
        ("mean", "float", Container.VECTOR),
        ("mean", "double", Container.POINTER),
        ("max", "float", Container.POINTER),
    ):
        e = ELEMENTS[ctype]
        z = literal(0, e)
        dist = "int(-100, 100)" if ctype == "int" else "uniform(-1, 1)"
        sizes = list(csr_sizes)
        if ctype == "float" and op != "max":
            sizes += [("atol", "1e-3"), ("rtol", "1e-3")]
        if op == "sum":
            init, step, fin = z, "acc += val[col[p]];", "out[v] = acc;"
        elif op == "mean":
            init, step = z, "acc += val[col[p]];"
            count = f"({ctype})(row_ptr[v + 1] - row_ptr[v])"
            fin = f"out[v] = row_ptr[v + 1] > row_ptr[v] ? acc / {count} : {z};"
        else:
            init, step = "-INFINITY", "acc = fmaxf(acc, val[col[p]]);"
            fin = f"out[v] = row_ptr[v + 1] > row_ptr[v] ? acc : {z};"
        yield task(
            fam,
            f"nbr{op}_{e.tag}_{c}",
            f"neighbour_{op}",
            f"Neighbour aggregation over a CSR graph: the {op} of a {ctype} value over each "
            f"vertex's neighbours" + (" (0 for isolated vertices)." if op != "sum" else "."),
            c,
            sizes=sizes,
            items=["int n", rp, col, Array("val", e, "n", "in", dist), Array("out", e, "n", "out")],
            body=f"""
    for (int v = 0; v < n; ++v) {{
        {ctype} acc = {init};
        for (int p = row_ptr[v]; p < row_ptr[v + 1]; ++p) {{
            {step}
        }}
        {fin}
    }}
""",
            includes=("cmath",) if op == "max" else (),
        )


FAMILIES = (
    Family(
        "sparse",
        "sparse matrix-vector products in CSR (with and without an nnz parameter), ELL "
        "(column- and row-major) and COO (unordered and row-sorted), CSR off-diagonal row "
        "sums, row max with its column and scaled SpMV, over float and double",
        _sparse,
    ),
    Family(
        "rows",
        "row-wise softmax (two- and one-pass), log-softmax, log-sum-exp, layernorm, RMSNorm, "
        "L2 normalisation, max and argmax over a rows x cols matrix, float and double",
        _rows,
    ),
    Family(
        "nbody_allpairs",
        "O(n^2) all-pairs work: softened n-body accelerations (SoA and AoS), 1-D and 2-D "
        "Gaussian KDE, distance sums, Coulomb potential and brute-force nearest-neighbour "
        "distances in 2-D and 3-D, float and double",
        _nbody,
    ),
    Family(
        "dft",
        "naive O(n^2) transforms: real and complex DFT, inverse DFT, power spectrum, DCT-II, "
        "and linear, circular and auto-correlation at all lags, float and double",
        _dft,
    ),
    Family(
        "graph_steps",
        "one step of a graph algorithm on CSR adjacency: degree counts, in-degree "
        "histograms, a PageRank pull iteration, BFS frontier expansion (pull, push, levels), "
        "min-label propagation and neighbour sum/mean/max aggregation",
        _graph,
    ),
)
