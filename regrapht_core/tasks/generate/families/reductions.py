"""Reduction-like families: whole-array reductions, arg-reductions, predicate counts and
moments, scans and recurrences, searches, histograms, and sorting and selection."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import count, cycle

from regrapht_core.tasks.generate.base import (
    ELEMENTS,
    Array,
    Container,
    Element,
    Family,
    Generated,
    alternate,
    length,
    literal,
    task,
)

__all__ = ["FAMILIES"]

_F32, _F64, _I32 = ELEMENTS["float"], ELEMENTS["double"], ELEMENTS["int"]
_U8, _U32, _I64 = ELEMENTS["unsigned char"], ELEMENTS["unsigned int"], ELEMENTS["long long"]


def _zero(e: Element) -> str:
    return literal(0, e)


def _one(e: Element) -> str:
    return literal(1, e)


def _abs(e: Element, expr: str) -> tuple[str, str]:
    """``|expr|`` for ``e`` and the header it needs."""
    if e is _F32:
        return f"fabsf({expr})", "cmath"
    if e is _F64:
        return f"std::fabs({expr})", "cmath"
    return f"std::abs({expr})", "cstdlib"


# ------------------------------------------------------------------ reductions

_ACC = {"float": _F32, "double": _F64, "int": _I64}
"""The accumulator of a sum over each element type: integers sum in ``long long``."""

_RED_OPS = ("sum", "sumsq", "l1", "dot", "max", "min", "prod1p")
_RED_WHAT = {
    "sum": "the sum",
    "sumsq": "the sum of squares",
    "l1": "the L1 norm (sum of absolute values)",
    "dot": "the dot product of two arrays",
    "max": "the maximum",
    "min": "the minimum",
    "prod1p": "the product of (1 + x) over values near zero",
}


def _red_dist(op: str, e: Element) -> str:
    if op == "prod1p":
        return "uniform(-0.001, 0.001)"
    if op in ("max", "min"):
        return "normal(0, 10)" if e.floating else "int(-1000000, 1000000)"
    if not e.floating:
        return "int(-1000, 1000)"
    # float sums stay non-negative, so a reordered sum never cancels to near zero
    return "uniform(0, 1)" if e is _F32 and op in ("sum", "dot") else "uniform(-1, 1)"


def _red_loop(op: str, e: Element) -> tuple[str, str, str, list[str]]:
    """(result type, initialisation, loop statement, headers) of one reduction."""
    t = e.ctype
    acc = _ACC[t] if op in ("sum", "sumsq", "l1", "dot", "prod1p") else e
    a = acc.ctype
    wide = "(long long)" if not e.floating else ""
    if op == "sum":
        return a, f"{a} s = {_zero(acc)};", "s += x[i];", []
    if op == "sumsq":
        return a, f"{a} s = {_zero(acc)};", f"s += {wide}x[i] * x[i];", []
    if op == "l1":
        expr, header = _abs(e, "x[i]")
        return a, f"{a} s = {_zero(acc)};", f"s += {expr};", [header]
    if op == "dot":
        return a, f"{a} s = {_zero(acc)};", f"s += {wide}x[i] * y[i];", []
    if op == "prod1p":
        return a, f"{a} s = {_one(acc)};", f"s *= {_one(acc)} + x[i];", []
    if op == "max":
        if e is _F32:
            return a, "float s = -INFINITY;", "s = fmaxf(s, x[i]);", ["cmath"]
        if e is _F64:
            init = "double s = std::numeric_limits<double>::lowest();"
            return a, init, "s = std::max(s, x[i]);", ["algorithm", "limits"]
        return a, "int s = INT_MIN;", "if (x[i] > s) s = x[i];", ["climits"]
    if e is _F32:
        return a, "float s = INFINITY;", "s = fminf(s, x[i]);", ["cmath"]
    if e is _F64:
        return a, "double s = DBL_MAX;", "if (x[i] < s) s = x[i];", ["cfloat"]
    init = "int s = std::numeric_limits<int>::max();"
    return a, init, "s = std::min(s, x[i]);", ["algorithm", "limits"]


def _reductions() -> Iterator[Generated]:
    styles = cycle([(alternate(k), r) for r in ("ret", "out") for k in range(2)])
    for op in _RED_OPS:
        for ctype in ("float", "double", "int"):
            if op == "prod1p" and ctype == "int":
                continue
            container, output = next(styles)
            e = ELEMENTS[ctype]
            result, init, step, headers = _red_loop(op, e)
            dist = _red_dist(op, e)
            sizes = [("n", "1<<24" if e.floating else "1<<25")]
            if op == "prod1p" and e is _F32:
                # a long float product's rounding errors compound
                sizes += [("atol", "1e-3"), ("rtol", "1e-3")]
            items: list[str | Array] = [Array("x", e, "n", "in", dist)]
            if op == "dot":
                items.append(Array("y", e, "n", "in", dist))
            params, head = length(container, "x")
            if output == "out":
                items.append(Array("out", ELEMENTS[result], "1", "out"))
                returns, tail = "void", "    out[0] = s;"
            else:
                returns, tail = result, "    return s;"
            body = (
                f"{head}    {init}\n"
                f"    for (int i = 0; i < n; ++i) {{\n"
                f"        {step}\n"
                f"    }}\n"
                f"{tail}"
            )
            where = "returned" if output == "ret" else "written to out[0]"
            comment = (
                f"Reduction: {_RED_WHAT[op]} of {e.ctype} values"
                + (f", accumulated in {result}" if result != e.ctype else "")
                + f", {where}; {container.name.lower()} arguments."
            )
            yield task(
                "reductions",
                f"{op}_{e.tag}_{container}_{output}",
                f"{op}_{e.tag}",
                comment,
                container=container,
                sizes=sizes,
                items=[*params, *items],
                returns=returns,
                body=body,
                includes=headers,
            )


# -------------------------------------------------------------- arg-reductions

_ARG_WHAT = {
    "argmax": "the index of the maximum (first on ties)",
    "argmin": "the index and value of the minimum (last on ties)",
    "argmaxabs": "the index of the largest magnitude |x| (first on ties)",
    "firstmin": "the first index of the minimum, by a min pass and a search pass",
    "lastmax": "the last index of the maximum",
}


def _arg_body(op: str, e: Element) -> tuple[str, str, list[str]]:
    """(return type, body after the count line, headers)."""
    t = e.ctype
    if op in {"argmax", "lastmax"}:
        cmp = ">" if op == "argmax" else ">="
        return (
            "int",
            "    if (n <= 0) return -1;\n"
            f"    {t} best = x[0];\n"
            "    int arg = 0;\n"
            "    for (int i = 1; i < n; ++i) {\n"
            f"        if (x[i] {cmp} best) {{\n"
            "            best = x[i];\n"
            "            arg = i;\n"
            "        }\n"
            "    }\n"
            "    return arg;",
            [],
        )
    if op == "argmin":
        return (
            "void",
            "    int arg = 0;\n"
            f"    {t} best = x[0];\n"
            "    for (int i = 1; i < n; ++i) {\n"
            "        if (x[i] <= best) {\n"
            "            best = x[i];\n"
            "            arg = i;\n"
            "        }\n"
            "    }\n"
            "    idx[0] = arg;\n"
            "    val[0] = best;",
            [],
        )
    if op == "argmaxabs":
        first, header = _abs(e, "x[0]")
        each, _ = _abs(e, "x[i]")
        return (
            "int",
            "    if (n <= 0) return -1;\n"
            f"    {t} best = {first};\n"
            "    int arg = 0;\n"
            "    for (int i = 1; i < n; ++i) {\n"
            f"        {t} a = {each};\n"
            "        if (a > best) {\n"
            "            best = a;\n"
            "            arg = i;\n"
            "        }\n"
            "    }\n"
            "    return arg;",
            [header],
        )
    return (
        "int",
        "    if (n <= 0) return -1;\n"
        f"    {t} lo = x[0];\n"
        "    for (int i = 1; i < n; ++i) {\n"
        "        if (x[i] < lo) lo = x[i];\n"
        "    }\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        if (x[i] == lo) return i;\n"
        "    }\n"
        "    return -1;",
        [],
    )


def _arg_reductions() -> Iterator[Generated]:
    styles = map(alternate, count())
    for op, what in _ARG_WHAT.items():
        for ctype in ("float", "double", "int"):
            container = next(styles)
            e = ELEMENTS[ctype]
            # few distinct integers and the range ends mixed into floats: ties do occur
            dist = "uniform(-1, 1)" if e.floating else "int(-100, 100)"
            items: list[str | Array] = [Array("x", e, "n", "in", dist)]
            if op == "argmin":
                items += [Array("idx", _I32, "1", "out"), Array("val", e, "1", "out")]
            returns, body, headers = _arg_body(op, e)
            params, head = length(container, "x")
            comment = (
                f"Arg-reduction: {what} of {e.ctype} values; {container.name.lower()} arguments."
            )
            yield task(
                "arg_reductions",
                f"{op}_{e.tag}_{container}",
                f"{op}_{e.tag}",
                comment,
                container=container,
                sizes=[("n", "1<<24")],
                items=[*params, *items],
                returns=returns,
                body=head + body,
                includes=headers,
            )


# -------------------------------------------------------- predicate reductions

_PRED_WHAT = {
    "countgt": "the number of elements above a threshold",
    "anygt": "whether any element is above a threshold, from a count",
    "allin": "whether all elements lie in [lo, hi], from a count",
    "mean": "the mean",
    "variance": "the population variance, two passes (mean, then squared deviations)",
    "fracin": "the fraction of elements in [lo, hi)",
    "signchanges": "the number of sign changes between neighbours",
}


def _pred_body(op: str, e: Element) -> tuple[str, list[str], str]:
    """(return type, scalar parameters, body after the count line)."""
    t = e.ctype
    if op == "countgt":
        return (
            "long long",
            [f"{t} t"],
            "    long long c = 0;\n"
            "    for (int i = 0; i < n; ++i) {\n"
            "        if (x[i] > t) c++;\n"
            "    }\n"
            "    return c;",
        )
    if op == "anygt":
        return (
            "bool",
            [f"{t} t"],
            "    int c = 0;\n"
            "    for (int i = 0; i < n; ++i) {\n"
            "        c += x[i] > t ? 1 : 0;\n"
            "    }\n"
            "    return c > 0;",
        )
    if op == "allin":
        return (
            "int",
            [f"{t} lo", f"{t} hi"],
            "    int c = 0;\n"
            "    for (int i = 0; i < n; ++i) {\n"
            "        if (x[i] >= lo && x[i] <= hi) c++;\n"
            "    }\n"
            "    return c == n ? 1 : 0;",
        )
    if op == "fracin":
        return (
            "double",
            [f"{t} lo", f"{t} hi"],
            "    if (n <= 0) return 0.0;\n"
            "    int c = 0;\n"
            "    for (int i = 0; i < n; ++i) {\n"
            "        if (x[i] >= lo && x[i] < hi) ++c;\n"
            "    }\n"
            "    return (double)c / (double)n;",
        )
    if op == "signchanges":
        return (
            "int",
            [],
            "    int changes = 0;\n"
            "    for (int i = 1; i < n; ++i) {\n"
            "        bool a = x[i - 1] < 0;\n"
            "        bool b = x[i] < 0;\n"
            "        if (a != b) changes++;\n"
            "    }\n"
            "    return changes;",
        )
    acc = _ACC[t]
    a = acc.ctype
    r = "double" if not e.floating else t
    mean = (
        f"    {a} s = {_zero(acc)};\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        s += x[i];\n"
        "    }\n"
    )
    if op == "mean":
        if e.floating:
            return r, [], mean + f"    return s / ({t})n;"
        return r, [], mean + "    return (double)s / (double)n;"
    if e.floating:
        mean += f"    {t} m = s / ({t})n;\n"
    else:
        mean += "    double m = (double)s / (double)n;\n"
    return (
        r,
        [],
        mean + f"    {r} q = {literal(0, ELEMENTS[r])};\n"
        "    for (int i = 0; i < n; ++i) {\n"
        f"        {r} d = x[i] - m;\n"
        "        q += d * d;\n"
        "    }\n"
        f"    return q / ({r})n;",
    )


_PRED_VALUES = {
    True: {"t": "0.5", "lo": "-1", "hi": "1"},
    False: {"t": "100", "lo": "-1000", "hi": "1000"},
}
_PRED_FRAC = {True: {"lo": "-0.25", "hi": "0.5"}, False: {"lo": "-250", "hi": "500"}}


def _predicate_reductions() -> Iterator[Generated]:
    styles = map(alternate, count())
    for op, what in _PRED_WHAT.items():
        for ctype in ("float", "double", "int"):
            container = next(styles)
            e = ELEMENTS[ctype]
            returns, scalars, body = _pred_body(op, e)
            if op in ("mean", "variance") and e is _F32:
                dist = "uniform(0, 1)"
            elif e.floating:
                dist = "uniform(-1, 1)"
            else:
                dist = "int(-1000, 1000)"
            values = _PRED_FRAC[e.floating] if op == "fracin" else _PRED_VALUES[e.floating]
            names = [s.split()[-1] for s in scalars]
            params, head = length(container, "x")
            guard = "    if (n <= 0) return 0;\n" if op in ("mean", "variance") else ""
            comment = (
                f"Predicate reduction: {what} of {e.ctype} values; "
                f"{container.name.lower()} arguments."
            )
            yield task(
                "predicate_reductions",
                f"{op}_{e.tag}_{container}",
                f"{op}_{e.tag}",
                comment,
                container=container,
                sizes=[
                    ("n", "1<<25" if op in ("anygt", "allin", "signchanges") else "1<<24"),
                    *((s, values[s]) for s in names),
                ],
                items=[*params, *scalars, Array("x", e, "n", "in", dist)],
                returns=returns,
                body=head + guard + body,
            )


# --------------------------------------------------------- scans, recurrences


def _scan_variants() -> Iterator[tuple[str, Element, Element]]:
    """(operation, input element, output element)."""
    for inp, out in ((_I32, _I64), (_F32, _F32), (_F64, _F64), (_U8, _U32)):
        yield "inclusive", inp, out
    for inp, out in ((_I32, _I64), (_F32, _F32), (_F64, _F64)):
        yield "exclusive", inp, out
    for e in (_F32, _F64, _I32):
        yield "runmax", e, e
    for op in ("iir", "decayed", "cumprod"):
        for e in (_F32, _F64):
            yield op, e, e


_SCAN_WHAT = {
    "inclusive": "inclusive prefix sum",
    "exclusive": "exclusive prefix sum (out[0] = 0)",
    "runmax": "running maximum",
    "iir": "first-order IIR filter y[i] = a*y[i-1] + b*x[i]",
    "decayed": "exponentially decayed sum s = decay*s + x[i], the final value returned",
    "cumprod": "cumulative product of values near 1",
}


def _scans_recurrences() -> Iterator[Generated]:
    styles = map(alternate, count())
    for op, e, o in _scan_variants():
        container = next(styles)
        t, r = e.ctype, o.ctype
        sizes: list[tuple[str, str]] = [("n", "1<<24" if e.floating else "1<<25")]
        scalars: list[str] = []
        returns = "void"
        out_name = "y" if op == "iir" else "out"
        if op in ("inclusive", "exclusive"):
            dist = "uniform(0, 1)" if e.floating else ("int(0, 255)" if e is _U8 else "")
            dist = dist or "int(-1000, 1000)"
            step = "running += x[i];\n        out[i] = running;"
            if op == "exclusive":
                step = "out[i] = running;\n        running += x[i];"
            body = (
                f"    {r} running = {_zero(o)};\n"
                "    for (int i = 0; i < n; ++i) {\n"
                f"        {step}\n"
                "    }"
            )
        elif op == "runmax":
            dist = "normal(0, 1)" if e.floating else "int(-1000000, 1000000)"
            body = (
                "    if (n <= 0) return;\n"
                f"    {t} m = x[0];\n"
                "    out[0] = m;\n"
                "    for (int i = 1; i < n; ++i) {\n"
                "        if (x[i] > m) m = x[i];\n"
                "        out[i] = m;\n"
                "    }"
            )
        elif op == "iir":
            dist = "uniform(-1, 1)"
            scalars = [f"{t} a", f"{t} b"]
            sizes += [("a", "0.9"), ("b", "0.1")]
            body = (
                "    if (n <= 0) return;\n"
                "    y[0] = b * x[0];\n"
                "    for (int i = 1; i < n; ++i) {\n"
                "        y[i] = a * y[i - 1] + b * x[i];\n"
                "    }"
            )
        elif op == "decayed":
            dist = "uniform(-1, 1)"
            scalars = [f"{t} decay"]
            sizes.append(("decay", "0.99"))
            returns = t
            body = (
                f"    {t} s = {_zero(e)};\n"
                "    for (int i = 0; i < n; ++i) {\n"
                "        s = decay * s + x[i];\n"
                "    }\n"
                "    return s;"
            )
        else:
            dist = "uniform(0.9999, 1.0001)"
            body = (
                f"    {t} p = {_one(e)};\n"
                "    for (int i = 0; i < n; ++i) {\n"
                "        p *= x[i];\n"
                "        out[i] = p;\n"
                "    }"
            )
        items: list[str | Array] = [*scalars, Array("x", e, "n", "in", dist)]
        if returns == "void":
            items.append(Array(out_name, o, "n", "out"))
        if e is _F32 and op in ("iir", "decayed", "cumprod"):
            # float recurrences evaluated in another order differ in the last bits
            sizes += [("atol", "1e-3"), ("rtol", "1e-3")]
        params, head = length(container, "x")
        comment = (
            f"Scan: {_SCAN_WHAT[op]} of {t} values"
            + (f" into {r}" if r != t else "")
            + f"; {container.name.lower()} arguments."
        )
        yield task(
            "scans_recurrences",
            f"{op}_{e.tag}_{container}",
            f"{op}_{e.tag}",
            comment,
            container=container,
            sizes=sizes,
            items=[*params, *items],
            returns=returns,
            body=head + body,
        )


# ------------------------------------------------------------------- searches


def _sorted_dist(e: Element) -> str:
    return "sorted(0, 1)" if e.floating else "sorted(0, 1000000)"


def _search_first(e: Element, container: Container, last: bool) -> Generated:
    t = e.ctype
    value = ("0.25" if last else "0.75") if e.floating else ("250000" if last else "750000")
    params, head = length(container, "x")
    if last:
        loop = "    for (int i = n - 1; i >= 0; --i) {\n        if (x[i] < t) {\n"
        what = "the last element below a threshold, scanning from the end"
    else:
        loop = "    for (int i = 0; i < n; ++i) {\n        if (x[i] > t) {\n"
        what = "the first element above a threshold"
    body = (
        f"{head}    int found = -1;\n{loop}"
        "            found = i;\n"
        "            break;\n"
        "        }\n"
        "    }\n"
        "    return found;"
    )
    op = "lastbelow" if last else "firstabove"
    return task(
        "searches",
        f"{op}_{e.tag}_{container}",
        f"{op}_{e.tag}",
        f"Search: index of {what} in sorted {t} data, or -1; {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<25"), ("t", value)],
        items=[*params, f"{t} t", Array("x", e, "n", "in", _sorted_dist(e))],
        returns="int",
        body=body,
    )


def _search_find(e: Element, container: Container) -> Generated:
    t = e.ctype
    params, head = length(container, "x")
    body = (
        f"{head}    for (int i = 0; i < n; ++i) {{\n"
        "        if (x[i] == key) return i;\n"
        "    }\n"
        "    return -1;"
    )
    return task(
        "searches",
        f"find_{e.tag}_{container}",
        f"find_{e.tag}",
        f"Search: index of the first element equal to a key in unsorted {t} data, or -1; "
        f"{container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<25"), ("key", "4321987")],
        items=[*params, f"{t} key", Array("x", e, "n", "in", "int(0, 32000000)")],
        returns="int",
        body=body,
    )


def _search_lower_bound(e: Element, container: Container) -> Generated:
    t = e.ctype
    qdist = "uniform(0, 1)" if e.floating else "int(0, 1000000)"
    arrays = [
        Array("a", e, "m", "in", _sorted_dist(e)),
        Array("q", e, "k", "in", qdist),
        Array("pos", _I32, "k", "out"),
    ]
    if container is Container.POINTER:
        params = ["int m", "int k"]
        body = (
            "    for (int j = 0; j < k; ++j) {\n"
            f"        {t} key = q[j];\n"
            "        int lo = 0;\n"
            "        int hi = m;\n"
            "        while (lo < hi) {\n"
            "            int mid = lo + (hi - lo) / 2;\n"
            "            if (a[mid] < key) {\n"
            "                lo = mid + 1;\n"
            "            } else {\n"
            "                hi = mid;\n"
            "            }\n"
            "        }\n"
            "        pos[j] = lo;\n"
            "    }"
        )
        includes: list[str] = []
    else:
        params = []
        body = (
            "    for (size_t j = 0; j < q.size(); ++j) {\n"
            "        pos[j] = (int)(std::lower_bound(a.begin(), a.end(), q[j]) - a.begin());\n"
            "    }"
        )
        includes = ["algorithm"]
    return task(
        "searches",
        f"lowerbound_{e.tag}_{container}",
        f"lower_bound_{e.tag}",
        f"Search: lower_bound of each query in a sorted {t} array (binary search); "
        f"{container.name.lower()} arguments.",
        container=container,
        sizes=[("m", "1<<20"), ("k", "1<<18")],
        items=[*params, *arrays],
        body=body,
        includes=includes,
    )


def _search_count_present(e: Element, container: Container) -> Generated:
    t = e.ctype
    params = ["int m", "int k"] if container is Container.POINTER else []
    head = (
        ""
        if container is Container.POINTER
        else "    const int m = static_cast<int>(a.size());\n"
        "    const int k = static_cast<int>(q.size());\n"
    )
    body = (
        f"{head}    int found = 0;\n"
        "    for (int j = 0; j < k; ++j) {\n"
        "        int lo = 0;\n"
        "        int hi = m - 1;\n"
        "        while (lo <= hi) {\n"
        "            int mid = (lo + hi) / 2;\n"
        "            if (a[mid] == q[j]) {\n"
        "                found++;\n"
        "                break;\n"
        "            }\n"
        "            if (a[mid] < q[j]) lo = mid + 1;\n"
        "            else hi = mid - 1;\n"
        "        }\n"
        "    }\n"
        "    return found;"
    )
    return task(
        "searches",
        f"countpresent_{e.tag}_{container}",
        f"count_present_{e.tag}",
        f"Search: how many queries occur in a sorted {t} array (binary search per query); "
        f"{container.name.lower()} arguments.",
        container=container,
        sizes=[("m", "1<<20"), ("k", "1<<18")],
        items=[
            *params,
            Array("a", e, "m", "in", "sorted(0, 2000000)"),
            Array("q", e, "k", "in", "int(0, 2000000)"),
        ],
        returns="int",
        body=body,
    )


def _search_linear_rank(e: Element, container: Container) -> Generated:
    t = e.ctype
    dist = "uniform(0, 1)" if e.floating else "int(0, 1000000)"
    params = ["int m", "int k"] if container is Container.POINTER else []
    head = (
        ""
        if container is Container.POINTER
        else "    const int m = static_cast<int>(a.size());\n"
        "    const int k = static_cast<int>(q.size());\n"
    )
    body = (
        f"{head}    for (int j = 0; j < k; ++j) {{\n"
        "        int below = 0;\n"
        "        for (int i = 0; i < m; ++i) {\n"
        "            if (a[i] < q[j]) below++;\n"
        "        }\n"
        "        pos[j] = below;\n"
        "    }"
    )
    return task(
        "searches",
        f"linearrank_{e.tag}_{container}",
        f"linear_rank_{e.tag}",
        f"Search: for each query, how many elements of an unsorted {t} array are smaller "
        f"(its lower_bound once sorted), by a linear scan; {container.name.lower()} arguments.",
        container=container,
        sizes=[("m", "8192"), ("k", "8192")],
        items=[
            *params,
            Array("a", e, "m", "in", dist),
            Array("q", e, "k", "in", dist),
            Array("pos", _I32, "k", "out"),
        ],
        body=body,
    )


def _searches() -> Iterator[Generated]:
    styles = map(alternate, count())
    for last in (False, True):
        for e in (_F32, _F64, _I32):
            yield _search_first(e, next(styles), last)
    for e in (_I32, _U32):
        yield _search_find(e, next(styles))
    for e in (_F32, _F64, _I32):
        yield _search_lower_bound(e, next(styles))
    for e in (_I32, _U32):
        yield _search_count_present(e, next(styles))
    for e in (_F32, _I32):
        yield _search_linear_rank(e, next(styles))


# ----------------------------------------------------------------- histograms


def _hist_bytes(bins: Element, accumulate: bool, container: Container) -> Generated:
    h = bins.ctype
    params, head = length(container, "data")
    role, hdist = ("inout", "int(0, 100)") if accumulate else ("out", "")
    clear = "" if accumulate else "    for (int b = 0; b < 256; ++b) hist[b] = 0;\n"
    body = f"{head}{clear}    for (int i = 0; i < n; ++i) {{\n        hist[data[i]]++;\n    }}"
    mode = "acc" if accumulate else "new"
    return task(
        "histograms",
        f"bytes_{bins.tag}_{mode}_{container}",
        f"histogram_u8_{bins.tag}",
        "Histogram: 256-bin counts of unsigned char values"
        + (", added to the existing counts" if accumulate else "")
        + f", {h} bins; {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<25")],
        items=[
            *params,
            Array("data", _U8, "n", "in", "int(0, 255)"),
            Array("hist", bins, "256", role, hdist),
        ],
        body=body,
    )


def _hist_rgba(container: Container) -> Generated:
    items: list[str | Array] = [
        "int n",
        Array("pixels", _U8, "4*n", "in", "int(0, 255)"),
        Array("hist", _U32, "4*256", "out"),
    ]
    body = (
        "    for (int b = 0; b < 4 * 256; ++b) hist[b] = 0u;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        for (int c = 0; c < 4; ++c) {\n"
        "            hist[c * 256 + pixels[4 * i + c]]++;\n"
        "        }\n"
        "    }"
    )
    return task(
        "histograms",
        f"rgba_u32_{container}",
        "histogram_rgba",
        "Histogram: per-channel 256-bin counts of interleaved RGBA bytes, one histogram per "
        f"channel; {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<23")],
        items=items,
        body=body,
    )


def _hist_binned(e: Element, skip: bool, container: Container) -> Generated:
    t = e.ctype
    dist = "uniform(-1.5, 1.5)" if skip else "uniform(-1, 1)"
    if skip:
        place = (
            "        if (x[i] < lo || x[i] >= hi) continue;\n"
            "        int b = (int)((x[i] - lo) * scale);\n"
            "        if (b > nbins - 1) b = nbins - 1;\n"
        )
        what = "values outside [lo, hi) are skipped"
    else:
        place = (
            "        int b = (int)((x[i] - lo) * scale);\n"
            "        if (b < 0) b = 0;\n"
            "        if (b > nbins - 1) b = nbins - 1;\n"
        )
        what = "values outside go to the end bins"
    params, head = length(container, "x")
    body = (
        f"{head}    {t} scale = ({t})nbins / (hi - lo);\n"
        "    for (int b = 0; b < nbins; ++b) hist[b] = 0;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        f"{place}"
        "        hist[b] += 1;\n"
        "    }"
    )
    mode = "skip" if skip else "clamp"
    return task(
        "histograms",
        f"binned_{e.tag}_{mode}_{container}",
        f"histogram_{mode}_{e.tag}",
        f"Histogram: {t} values into nbins equal bins over [lo, hi); {what}; "
        f"{container.name.lower()} arguments.",
        container=container,
        sizes=[
            ("n", "1<<24"),
            ("nbins", "1024"),
            ("lo", "-1"),
            ("hi", "1"),
        ],
        items=[
            *params,
            "int nbins",
            f"{t} lo",
            f"{t} hi",
            Array("x", e, "n", "in", dist),
            Array("hist", _I32, "nbins", "out"),
        ],
        body=body,
    )


def _hist_weighted(e: Element, bins: Element, container: Container) -> Generated:
    t, h = e.ctype, bins.ctype
    params, head = length(container, "x")
    body = (
        f"{head}    {t} scale = ({t})nbins;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        int b = (int)(x[i] * scale);\n"
        "        if (b < 0) b = 0;\n"
        "        if (b >= nbins) b = nbins - 1;\n"
        "        hist[b] += w[i];\n"
        "    }"
    )
    sizes = [("n", "1<<24"), ("nbins", "1024")]
    if bins is _F32:
        # bins summed in another order differ in the last bits
        sizes += [("atol", "1e-3"), ("rtol", "1e-3")]
    return task(
        "histograms",
        f"weighted_{e.tag}_{bins.tag}_{container}",
        f"weighted_histogram_{e.tag}",
        f"Histogram: {t} weights summed into nbins bins of x in [0, 1), {h} bins added to "
        f"the existing ones; {container.name.lower()} arguments.",
        container=container,
        sizes=sizes,
        items=[
            *params,
            "int nbins",
            Array("x", e, "n", "in", "uniform(0, 1)"),
            Array("w", e, "n", "in", "uniform(0, 1)"),
            Array("hist", bins, "nbins", "inout", "uniform(0, 1)"),
        ],
        body=body,
    )


def _hist_keyed(container: Container) -> Generated:
    params, head = length(container, "keys")
    body = f"{head}    for (int i = 0; i < n; ++i) {{\n        sums[keys[i]] += vals[i];\n    }}"
    return task(
        "histograms",
        f"keyed_f64_{container}",
        "scatter_add_keys",
        "Histogram: per-key sums of double values (scatter-add by an integer key in "
        f"[0, 4096)) added to the existing sums; {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<24")],
        items=[
            *params,
            Array("keys", _I32, "n", "in", "int(0, 4095)"),
            Array("vals", _F64, "n", "in", "uniform(-1, 1)"),
            Array("sums", _F64, "4096", "inout", "uniform(-1, 1)"),
        ],
        body=body,
    )


def _hist_2d(e: Element, bins: Element, container: Container) -> Generated:
    t, h = e.ctype, bins.ctype
    params, head = length(container, "x")
    body = (
        f"{head}    for (int c = 0; c < nx * ny; ++c) hist[c] = 0;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        f"        int bx = (int)(x[i] * ({t})nx);\n"
        f"        int by = (int)(y[i] * ({t})ny);\n"
        "        if (bx < 0) bx = 0;\n"
        "        if (bx > nx - 1) bx = nx - 1;\n"
        "        if (by < 0) by = 0;\n"
        "        if (by > ny - 1) by = ny - 1;\n"
        "        hist[by * nx + bx]++;\n"
        "    }"
    )
    return task(
        "histograms",
        f"grid2d_{e.tag}_{bins.tag}_{container}",
        f"histogram_2d_{e.tag}",
        f"Histogram: 2-D counts of ({t} x, y) points in the unit square on an nx by ny "
        f"grid, {h} counts; {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<24"), ("nx", "256"), ("ny", "128")],
        items=[
            *params,
            "int nx",
            "int ny",
            Array("x", e, "n", "in", "uniform(0, 1)"),
            Array("y", e, "n", "in", "uniform(0, 1)"),
            Array("hist", bins, "nx*ny", "out"),
        ],
        body=body,
    )


def _hist_mod(bins: Element, nbins: str, container: Container) -> Generated:
    h = bins.ctype
    params, head = length(container, "keys")
    body = (
        f"{head}    for (int b = 0; b < nbins; ++b) hist[b] = 0;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        hist[keys[i] % (unsigned int)nbins]++;\n"
        "    }"
    )
    return task(
        "histograms",
        f"mod_{bins.tag}_{nbins}_{container}",
        f"histogram_mod_{bins.tag}",
        f"Histogram: {h} counts of unsigned int keys modulo the bin count (hash buckets); "
        f"{container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<24"), ("nbins", nbins)],
        items=[
            *params,
            "int nbins",
            Array("keys", _U32, "n", "in", "int(0, 4000000000)"),
            Array("hist", bins, "nbins", "out"),
        ],
        body=body,
    )


def _histograms() -> Iterator[Generated]:
    ptr, vec = Container.POINTER, Container.VECTOR
    yield _hist_bytes(_U32, True, ptr)
    yield _hist_bytes(_I32, False, vec)
    yield _hist_bytes(_U32, False, ptr)
    yield _hist_bytes(_I64, True, vec)
    yield _hist_rgba(ptr)
    for e, container in ((_F32, ptr), (_F64, vec)):
        yield _hist_binned(e, False, container)
    for e, container in ((_F32, vec), (_F64, ptr)):
        yield _hist_binned(e, True, container)
    yield _hist_weighted(_F32, _F32, ptr)
    yield _hist_weighted(_F32, _F64, vec)
    yield _hist_weighted(_F64, _F64, ptr)
    yield _hist_keyed(vec)
    yield _hist_2d(_F32, _I32, ptr)
    yield _hist_2d(_F64, _U32, vec)
    yield _hist_mod(_U32, "1000", ptr)
    yield _hist_mod(_I32, "4096", vec)


# ---------------------------------------------------------- sorting, selection


def _counting_sort(container: Container) -> Generated:
    params, head = length(container, "keys")
    body = (
        f"{head}    int count[256] = {{0}};\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        count[keys[i]]++;\n"
        "    }\n"
        "    int at = 0;\n"
        "    for (int v = 0; v < 256; ++v) {\n"
        "        for (int c = 0; c < count[v]; ++c) {\n"
        "            out[at++] = (unsigned char)v;\n"
        "        }\n"
        "    }"
    )
    return task(
        "sorting_selection",
        f"countsort_u8_{container}",
        "counting_sort_u8",
        "Sorting: counting sort of unsigned char keys (count, then write each value count "
        f"times); {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<25")],
        items=[
            *params,
            Array("keys", _U8, "n", "in", "int(0, 255)"),
            Array("out", _U8, "n", "out"),
        ],
        body=body,
    )


def _counting_sort_pairs(container: Container) -> Generated:
    params, head = length(container, "keys")
    body = (
        f"{head}    int offset[NKEYS + 1];\n"
        "    for (int v = 0; v <= NKEYS; ++v) offset[v] = 0;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        offset[keys[i] + 1]++;\n"
        "    }\n"
        "    for (int v = 0; v < NKEYS; ++v) {\n"
        "        offset[v + 1] += offset[v];\n"
        "    }\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        int at = offset[keys[i]]++;\n"
        "        out_keys[at] = keys[i];\n"
        "        out_vals[at] = vals[i];\n"
        "    }"
    )
    return task(
        "sorting_selection",
        f"countsortpairs_i32_f32_{container}",
        "counting_sort_pairs",
        "Sorting: stable counting sort of (key, value) pairs by small int keys in "
        f"[0, NKEYS); {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<23")],
        items=[
            *params,
            Array("keys", _I32, "n", "in", "int(0, 1023)"),
            Array("vals", _F32, "n", "in", "uniform(-1, 1)"),
            Array("out_keys", _I32, "n", "out"),
            Array("out_vals", _F32, "n", "out"),
        ],
        body=body,
        helpers="#define NKEYS 1024",
    )


def _rank(e: Element, container: Container) -> Generated:
    dist = "uniform(-1, 1)" if e.floating else "int(-1000, 1000)"
    params, head = length(container, "x")
    body = (
        f"{head}    for (int i = 0; i < n; ++i) {{\n"
        "        int r = 0;\n"
        "        for (int j = 0; j < n; ++j) {\n"
        "            if (x[j] < x[i] || (x[j] == x[i] && j < i)) r++;\n"
        "        }\n"
        "        rank[i] = r;\n"
        "    }"
    )
    return task(
        "sorting_selection",
        f"rank_{e.tag}_{container}",
        f"rank_{e.tag}",
        f"Sorting: the stable sorted position of each {e.ctype} element, by counting the "
        f"smaller ones (O(n^2)); {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "8192")],
        items=[*params, Array("x", e, "n", "in", dist), Array("rank", _I32, "n", "out")],
        body=body,
    )


def _top2(e: Element, container: Container) -> Generated:
    t = e.ctype
    low = {"float": "-FLT_MAX", "double": "-DBL_MAX", "int": "INT_MIN"}[t]
    header = "climits" if t == "int" else "cfloat"
    dist = "normal(0, 1)" if e.floating else "int(-1000000, 1000000)"
    params, head = length(container, "x")
    body = (
        f"{head}    {t} first = {low};\n"
        f"    {t} second = {low};\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        if (x[i] > first) {\n"
        "            second = first;\n"
        "            first = x[i];\n"
        "        } else if (x[i] > second) {\n"
        "            second = x[i];\n"
        "        }\n"
        "    }\n"
        "    top[0] = first;\n"
        "    top[1] = second;"
    )
    return task(
        "sorting_selection",
        f"top2_{e.tag}_{container}",
        f"top2_{e.tag}",
        f"Selection: the two largest {t} values (top-2) in one pass; "
        f"{container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<24")],
        items=[*params, Array("x", e, "n", "in", dist), Array("top", e, "2", "out")],
        body=body,
        includes=[header],
    )


def _top1_below(e: Element, container: Container) -> Generated:
    t = e.ctype
    dist = "uniform(-1, 1)" if e.floating else "int(-1000000, 1000000)"
    cap = "0.5" if e.floating else "500000"
    params, head = length(container, "x")
    body = (
        f"{head}    {t} best = std::numeric_limits<{t}>::lowest();\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        if (x[i] < cap && x[i] > best) best = x[i];\n"
        "    }\n"
        "    return best;"
    )
    return task(
        "sorting_selection",
        f"top1below_{e.tag}_{container}",
        f"largest_below_{e.tag}",
        f"Selection: the largest {t} value strictly below a cap (top-1 under a bound); "
        f"{container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<24"), ("cap", cap)],
        items=[*params, f"{t} cap", Array("x", e, "n", "in", dist)],
        returns=t,
        body=body,
        includes=["limits"],
    )


def _odd_even(e: Element, container: Container) -> Generated:
    t = e.ctype
    dist = "uniform(-1, 1)" if e.floating else "int(-1000, 1000)"
    params, head = length(container, "x")
    body = (
        f"{head}    const int passes = 8;\n"
        "    for (int p = 0; p < passes; ++p) {\n"
        "        for (int i = p % 2; i + 1 < n; i += 2) {\n"
        "            if (x[i] > x[i + 1]) {\n"
        f"                {t} tmp = x[i];\n"
        "                x[i] = x[i + 1];\n"
        "                x[i + 1] = tmp;\n"
        "            }\n"
        "        }\n"
        "    }"
    )
    return task(
        "sorting_selection",
        f"oddeven_{e.tag}_{container}",
        f"odd_even_passes_{e.tag}",
        f"Sorting: eight passes of odd-even transposition sort over {t} values in place "
        f"(a partial sort); {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<22")],
        items=[*params, Array("x", e, "n", "inout", dist)],
        body=body,
    )


def _partitionlength(e: Element, container: Container) -> Generated:
    t = e.ctype
    dist = "uniform(-1, 1)" if e.floating else "int(-100, 100)"
    params, head = length(container, "x")
    body = (
        f"{head}    long long less = 0, equal = 0, greater = 0;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        if (x[i] < pivot) less++;\n"
        "        else if (x[i] == pivot) equal++;\n"
        "        else greater++;\n"
        "    }\n"
        "    counts[0] = less;\n"
        "    counts[1] = equal;\n"
        "    counts[2] = greater;"
    )
    return task(
        "sorting_selection",
        f"partcount_{e.tag}_{container}",
        f"partition_count_{e.tag}",
        f"Selection: how many {t} values are below, equal to and above a pivot (the sizes "
        f"of a three-way partition); {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<24"), ("pivot", "0")],
        items=[
            *params,
            f"{t} pivot",
            Array("x", e, "n", "in", dist),
            Array("counts", _I64, "3", "out"),
        ],
        body=body,
    )


def _stable_partition(e: Element, container: Container) -> Generated:
    t = e.ctype
    dist = "uniform(-1, 1)" if e.floating else "int(-1000, 1000)"
    pivot = "0.25" if e.floating else "250"
    params, head = length(container, "x")
    body = (
        f"{head}    int at = 0;\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        if (x[i] < pivot) out[at++] = x[i];\n"
        "    }\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        if (!(x[i] < pivot)) out[at++] = x[i];\n"
        "    }\n"
        "    return at;"
    )
    return task(
        "sorting_selection",
        f"partition_{e.tag}_{container}",
        f"stable_partition_{e.tag}",
        f"Selection: stable partition of {t} values around a pivot into out (smaller ones "
        f"first), returning how many are smaller; {container.name.lower()} arguments.",
        container=container,
        sizes=[("n", "1<<24"), ("pivot", pivot)],
        items=[*params, f"{t} pivot", Array("x", e, "n", "in", dist), Array("out", e, "n", "out")],
        returns="int",
        body=body,
    )


def _sorting_selection() -> Iterator[Generated]:
    ptr, vec = Container.POINTER, Container.VECTOR
    yield _counting_sort(ptr)
    yield _counting_sort(vec)
    yield _counting_sort_pairs(ptr)
    styles = map(alternate, count())
    for e in (_F32, _F64, _I32):
        yield _rank(e, next(styles))
    for e in (_F32, _F64, _I32):
        yield _top2(e, next(styles))
    for e in (_F32, _I32):
        yield _top1_below(e, next(styles))
    for e in (_F32, _F64, _I32):
        yield _odd_even(e, next(styles))
    for e in (_F32, _I32):
        yield _partitionlength(e, next(styles))
    for e in (_F32, _I32):
        yield _stable_partition(e, next(styles))


FAMILIES = (
    Family(
        "reductions",
        "whole-array reductions (sum, sum of squares, L1 norm, dot, max, min, product of "
        "1 + x) over float, double and int, returned or written to out[0], pointers or vectors",
        _reductions,
    ),
    Family(
        "arg_reductions",
        "argmax, argmin with its value, index of the largest |x|, first index of the minimum "
        "and last index of the maximum over float, double and int",
        _arg_reductions,
    ),
    Family(
        "predicate_reductions",
        "counts above a threshold, any/all from counts, mean, two-pass variance, fraction in "
        "a range and sign changes over float, double and int",
        _predicate_reductions,
    ),
    Family(
        "scans_recurrences",
        "inclusive and exclusive prefix sums, running maximum, first-order IIR, decayed sum "
        "and cumulative product over integer and floating types",
        _scans_recurrences,
    ),
    Family(
        "searches",
        "first above / last below a threshold in sorted data, find a key, lower_bound and "
        "membership of queries by binary search, and per-query linear ranks",
        _searches,
    ),
    Family(
        "histograms",
        "byte, RGBA, binned float, weighted, keyed scatter-add, 2-D and modulo histograms "
        "with counts cleared or accumulated",
        _histograms,
    ),
    Family(
        "sorting_selection",
        "counting sorts, O(n^2) ranks, top-2 and bounded top-1 selection, odd-even "
        "transposition passes and partitions around a pivot",
        _sorting_selection,
    ),
)
