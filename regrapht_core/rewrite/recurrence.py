"""First-order linear recurrences as a scan: ``out[i] = A * out[i - 1] + B(i)`` becomes a
kernel writing each ``B(i)``, CUB's ``DeviceScan::InclusiveScan`` over the affine maps
``y -> A * y + B(i)`` (composition is associative), and a kernel reading the results.

An IIR filter, an exponential moving average, compound interest: each element needs the one
before, so parallelization refuses the loop. But the step from one element to the next is
an affine map, and affine maps compose: ``(a1, b1)`` then ``(a2, b2)`` is ``(a2 * a1, a2 * b1
+ b2)``. Scanning the maps from a first one that sets the value before the loop
(``(0, out[L - 1])``) gives every element at once, in ``O(log n)`` depth. The products are
associated differently from the loop's order, so results differ by rounding, which the
verifier's tolerance judges; a factor of magnitude above 1 makes a recurrence unstable in
any order.

Recognized: the loop's only statement is ``out[i] = A * out[i - 1] + B`` (either order of
the sum or of the product, or ``out[i - 1] + B``), ``A`` made of literals and scalar
parameters or locals only, ``B`` not reading ``out``, elements ``float`` or ``double``, and
the loop starting at 1 or later (``out[L - 1]`` is the value before it).
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import array_at, mentions
from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import (
    NameAllocator,
    assignment_of,
    body_statements,
    parse,
    strip_parens,
)
from regrapht_core.rewrite.hostcode import DeviceBuffer, HostNames
from regrapht_core.rewrite.parallelize import block_size, candidate_1d
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.reduction import reduction_candidate
from regrapht_core.rewrite.sequential import analysed_loop, split_entry_function

__all__ = ["LinearFold", "LinearRecurrence"]

_SHAPE = "the loop is not a first-order linear recurrence (`out[i] = a * out[i - 1] + b`)"
_TYPES = frozenset({"float", "double"})


@dataclass(frozen=True, slots=True)
class _Recurrence:
    out: str
    factor: str
    """``A``, text; ``1`` when the previous element is added as it is."""
    term: Node
    element: str


@dataclass(slots=True)
class _Names:
    affine: str = ""
    compose: str = ""
    pack: str = ""
    unpack: str = ""


class LinearRecurrence(RefusingRewriter):
    technique = "library_call"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        split = split_entry_function(code, context.task)
        entry = split.entry
        found = _recurrence(entry)
        loop = entry.loop
        first = loop.lower_text()
        mapped = split.terms_map(f"{found.out}[{loop.var}] = {node_text(found.term)};")
        names = _Names()
        t = found.element

        def scan(buffers: list[DeviceBuffer], host: HostNames, fresh: NameAllocator) -> list[str]:
            names.affine, names.compose = fresh.fresh("affine_step"), fresh.fresh("compose_steps")
            names.pack, names.unpack = fresh.fresh("pack_steps"), fresh.fresh("unpack_steps")
            device = next(b.device for b in buffers if b.param.name == found.out)
            steps, temp, size = (
                fresh.fresh("steps"),
                fresh.fresh("scan_temp"),
                fresh.fresh("scan_bytes"),
            )
            factor, seed = fresh.fresh("factor"), fresh.fresh("seed")
            err, count = host.err, host.count
            grid = f"static_cast<unsigned int>(({count} + {block} - 1) / {block})"
            call = (
                f"cub::DeviceScan::InclusiveScan({temp}, {size}, {steps}, {steps}, "
                f"{names.compose}(), {count} + 1);"
            )
            return [
                f"{names.affine}* {steps} = nullptr;",
                f"void* {temp} = nullptr;",
                f"size_t {size} = 0;",
                f"const {t} {factor} = static_cast<{t}>({found.factor});",
                f"const {t} {seed} = {found.out}[({first}) - 1];",
                f"if ({err} == cudaSuccess) {err} = cudaMalloc(&{steps}, "
                f"static_cast<size_t>({count} + 1) * sizeof({names.affine}));",
                f"if ({err} == cudaSuccess) {{",
                f"  {names.pack}<<<{grid}, {block}>>>({device} + ({first}), {steps}, {count}, "
                f"{factor}, {seed});",
                f"  {err} = cudaGetLastError();",
                "}",
                f"if ({err} == cudaSuccess) {err} = {call}",
                f"if ({err} == cudaSuccess) {err} = cudaMalloc(&{temp}, {size});",
                f"if ({err} == cudaSuccess) {err} = {call}",
                f"if ({err} == cudaSuccess) {{",
                f"  {names.unpack}<<<{grid}, {block}>>>({steps}, {device} + ({first}), {count});",
                f"  {err} = cudaGetLastError();",
                "}",
                f"cudaFree({temp});",
                f"cudaFree({steps});",
            ]

        candidate = candidate_1d(mapped, block, after=scan)
        return [
            RewriteCandidate(
                "#include <cub/device/device_scan.cuh>\n" + _helpers(names, t) + candidate,
                f"`{found.out}[{loop.var}]` is an affine map of the element before it: a kernel "
                f"writes each step's term ({block} threads per block), "
                "cub::DeviceScan::InclusiveScan composes the maps, and a kernel reads each "
                "element off its composed map",
            )
        ]


def _helpers(names: _Names, t: str) -> str:
    """The map type, its composition, and the kernels that pack the steps and unpack them."""
    index = "static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x"
    return "\n".join(
        [
            f"struct {names.affine} {{",
            f"  {t} a;",
            f"  {t} b;",
            "};",
            f"struct {names.compose} {{",
            f"  __host__ __device__ {names.affine} operator()(const {names.affine}& first, "
            f"const {names.affine}& then) const {{",
            f"    return {names.affine}{{then.a * first.a, then.a * first.b + then.b}};",
            "  }",
            "};",
            f"__global__ void {names.pack}(const {t}* terms, {names.affine}* steps, "
            f"long long count, {t} factor, {t} seed) {{",
            f"  const long long k = {index};",
            f"  if (k == 0) steps[0] = {names.affine}{{static_cast<{t}>(0), seed}};",
            f"  if (k < count) steps[k + 1] = {names.affine}{{factor, terms[k]}};",
            "}",
            f"__global__ void {names.unpack}(const {names.affine}* steps, {t}* out, "
            "long long count) {",
            f"  const long long k = {index};",
            "  if (k < count) out[k] = steps[k + 1].b;",
            "}",
            "",
        ]
    )


def _recurrence(entry: EntryFunction) -> _Recurrence:
    loop = entry.loop
    statements = body_statements(loop.body)
    assigned = assignment_of(statements[0]) if len(statements) == 1 else None
    if assigned is None:
        raise Refusal(_SHAPE)
    target, value = assigned
    out = array_at(target, loop.var, 0)
    value = strip_parens(value)
    if out is None or value.type != "binary_expression" or _op(value) != "+":
        raise Refusal(_SHAPE)
    left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
    assert left is not None and right is not None
    orders = ((left, right), (right, left))
    matched = [(f, t) for c, t in orders if (f := _factor(strip_parens(c), out, loop.var))]
    if not matched:
        raise Refusal(_SHAPE)
    factor, term = matched[0]
    if mentions(term, out):
        raise Refusal(f"the term {node_text(term)} reads `{out}` beyond the element before")
    if factor != "1":
        _check_invariant(entry, factor)
    param = entry.param(out)
    if param is None or param.pointers != 1:
        raise Refusal(f"`{out}` is not a pointer parameter")
    element = " ".join(param.element.split())
    if element not in _TYPES:
        kind = param.element
        raise Refusal(f"`{out}` holds {kind}: only float and double recurrences are built")
    if loop.starts_at_zero():
        raise Refusal("the recurrence starts at 0, where there is no element before")
    return _Recurrence(out, factor, term, element)


def _factor(carry: Node, out: str, var: str) -> str | None:
    """``A`` when ``carry`` is ``A * out[var - 1]`` or ``out[var - 1] * A``; ``1`` for
    ``out[var - 1]`` alone; else ``None``."""
    if array_at(carry, var, 1) == out:
        return "1"
    if carry.type != "binary_expression" or _op(carry) != "*":
        return None
    left, right = carry.child_by_field_name("left"), carry.child_by_field_name("right")
    if left is None or right is None:
        return None
    if array_at(strip_parens(right), var, 1) == out and not mentions(left, out):
        return node_text(left)
    if array_at(strip_parens(left), var, 1) == out and not mentions(right, out):
        return node_text(right)
    return None


def _check_invariant(entry: EntryFunction, factor: str) -> None:
    """``A`` reads literals and scalar parameters or locals only, never the loop variable."""
    root = parse(f"auto regrapht_factor = {factor};").root_node
    for node in walk(root):
        if node.type in ("subscript_expression", "call_expression", "pointer_expression"):
            raise Refusal(f"the factor {factor} is not a plain expression of scalars")
        if node.type == "identifier" and node_text(node) != "regrapht_factor":
            name = node_text(node)
            param, local = entry.param(name), entry.locals.get(name)
            scalar = (param is not None and param.pointers == 0) or (
                local is not None and local.scalar
            )
            if name == entry.loop.var or not scalar:
                raise Refusal(f"the factor {factor} changes from one element to the next")


def _op(node: Node) -> str:
    operator = node.child_by_field_name("operator")
    return node_text(operator) if operator is not None else ""


_FOLD_SHAPE = "the loop is not a linear fold (`s = a * s + b;` alone, `a` the same every time)"


@dataclass(frozen=True, slots=True)
class _Fold:
    var: str
    factor: str
    term: Node
    element: str
    statement: Node


class LinearFold(RefusingRewriter):
    """A scalar carried through an affine map per element (``s = decay * s + x[i]``: an
    exponential moving average, a discounted sum, a polynomial by Horner) folds in closed
    form: after the loop ``s`` is ``a^count * s + sum of a^(count - 1 - k) * b(k)``, a
    weighted sum the reduction rewriter maps, with each weight one ``pow`` where the loop
    multiplied ``count - 1 - k`` times (so the weights round less than the loop did). ``a``
    must be the same for every element; a weight below the smallest float is zero, as the
    loop's repeated products underflow to zero too."""

    technique = "algorithmic_change"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        block = block_size(params)
        split = split_entry_function(code, context.task)
        entry, loop = split.entry, split.entry.loop
        fold = _fold(entry)
        names = NameAllocator(split.root)
        factor, count, terms = names.fresh("factor"), names.fresh("count"), names.fresh("terms")
        t = fold.element
        power = "powf" if t == "float" else "pow"
        lower = "0" if loop.starts_at_zero() else f"({loop.lower_text()})"
        weight = f"{power}({factor}, static_cast<{t}>({count} - 1 - ({loop.var} - {lower})))"
        indent = "\n" + " " * loop.node.start_point[1]
        trips = loop.trip_count()
        before = [
            f"const {t} {factor} = static_cast<{t}>({fold.factor});",
            f"const long long {count} = {trips} > 0 ? {trips} : 0;",
            f"{t} {terms} = static_cast<{t}>(0);",
        ]
        after = f"{fold.var} = {power}({factor}, static_cast<{t}>({count})) * {fold.var} + {terms};"
        body = apply_edits(
            split.code.encode("utf-8"),
            [
                Edit.replace(fold.statement, f"{terms} += {weight} * ({node_text(fold.term)});"),
                Edit.insert(loop.node.start_byte, indent.join([*before, ""]).lstrip("\n")),
                Edit.insert(loop.node.end_byte, indent + after),
            ],
        )
        found = analysed_loop("#include <cmath>\n" + body, split.task)
        return [
            RewriteCandidate(
                reduction_candidate(found, block),
                f"`{fold.var} = {fold.factor} * {fold.var} + {node_text(fold.term)}` folds in "
                f"closed form: a sum of the terms weighted by powers of {fold.factor}, "
                f"reduced on the GPU ({block} threads per block, warp shuffles, one atomic "
                "per block)",
            )
        ]


def _fold(entry: EntryFunction) -> _Fold:
    """``s = A * s + B`` (either order of the sum or of the product) as the loop's only
    statement, ``s`` a float or double local of the code before the loop."""
    statements = body_statements(entry.loop.body)
    assigned = assignment_of(statements[0]) if len(statements) == 1 else None
    if assigned is None or assigned[0].type != "identifier":
        raise Refusal(_FOLD_SHAPE)
    var, value = node_text(assigned[0]), strip_parens(assigned[1])
    if value.type != "binary_expression" or _op(value) != "+":
        raise Refusal(_FOLD_SHAPE)
    left, right = value.child_by_field_name("left"), value.child_by_field_name("right")
    assert left is not None and right is not None
    matched = [
        (factor, term)
        for carry, term in ((left, right), (right, left))
        if (factor := _scaled(strip_parens(carry), var)) is not None and not mentions(term, var)
    ]
    if not matched:
        raise Refusal(_FOLD_SHAPE)
    factor, term = matched[0]
    _check_invariant(entry, factor)
    local = entry.locals.get(var)
    element = " ".join(local.type.split()) if local is not None and local.scalar else ""
    if element not in _TYPES:
        raise Refusal(f"`{var}` is not a float or double the code declares before the loop")
    return _Fold(var, factor, term, element, statements[0])


def _scaled(carry: Node, var: str) -> str | None:
    """``A`` when ``carry`` is ``A * var`` or ``var * A`` (``A`` free of ``var``)."""
    if carry.type != "binary_expression" or _op(carry) != "*":
        return None
    left, right = carry.child_by_field_name("left"), carry.child_by_field_name("right")
    if left is None or right is None:
        return None
    if node_text(strip_parens(right)) == var and not mentions(left, var):
        return node_text(left)
    if node_text(strip_parens(left)) == var and not mentions(right, var):
        return node_text(right)
    return None
