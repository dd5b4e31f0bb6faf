"""Dense matrix products: shared-memory tiles, and register blocks on top of them.

One thread per output element (what ``Parallelize`` gives a matmul) reads a whole row of
``A`` and a whole column of ``B`` from global memory for every element, so the product runs
at memory speed, far below what the arithmetic units can do. The remedy is textbook and
mechanical, which is why a rewriter does it rather than the model:

- **Shared-memory tiling** (:class:`TiledMatmul`): a block computes a ``tile x tile`` patch
  of the output, one element per thread, staging ``tile x tile`` slices of ``A`` and ``B``
  in shared memory, so each global element is read once per block instead of once per
  output.
- **Register blocking** (:class:`BlockedMatmul`): a block computes a 128x128 patch (64x32
  when the larger patches would leave multiprocessors idle), each thread an 8x8 (4x4)
  block of outputs held in registers, from tiles of ``A`` (stored transposed and padded, so
  that both the transposing stores and the ``float4`` reads avoid bank conflicts) and ``B``
  in double-buffered shared memory. Each value read from shared memory feeds eight
  multiply-adds. When the 128x128 tiles cover the matrices exactly and the rows are
  16-byte aligned (the host checks M, N, K and the leading dimensions), a third kernel
  drops the edge checks and reads global memory four elements at a time: the checks and
  the scalar loads cost a fifth of the time at n = 2048 on an H100 (1.39x cuBLAS in
  ``gpu-h100-rows-softmax-variants.json`` against 1.13x in ``gpu-h100-vs-library.json``).

Both start from the same nest, which :func:`matmul_nest` recognises on the syntax tree::

    for (i ...) for (j ...) {
      T acc = 0;
      for (k ...) acc += A[i*lda + k] * B[k*ldb + j];
      <epilogue>
    }

The epilogue (``C[i*ldc + j] = acc;``, ``C[i*n + j] = alpha * acc + beta * C[i*n + j];``)
runs verbatim once per output, in a scope that declares ``i``, ``j`` and ``acc`` with the
output's values, so whatever it computes from them it computes as the loop did. Every
output still sums its products in ascending ``k`` (the tiles only change which thread does
the sum and where the operands come from), so results differ from the loop only by the
rounding of fused multiply-adds. Operands past the matrix edges are loaded as zeros, and
outputs past them are not stored, so any ``M``, ``N`` and ``K`` work.

Parameters: :class:`TiledMatmul` takes ``tile`` (8, 16 or 32; default 32).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from string import Template

from regrapht_core.cxx.affine import affine, mentions
from regrapht_core.cxx.calls import is_cast
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import indent_block, render
from regrapht_core.cxx.syntax import (
    NameAllocator,
    body_statements,
    canon,
    operator_text,
    strip_parens,
    zero_literal,
)
from regrapht_core.rewrite.assemble import loop_var_type
from regrapht_core.rewrite.hostcode import DeviceBuffer, HostNames, gpu_block
from regrapht_core.rewrite.interchange import product_as_dot
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)
from regrapht_core.rewrite.sequential import SequentialLoop, analysed_loop, as_map, split_entry

__all__ = ["BlockedMatmul", "MatmulNest", "TiledMatmul", "matmul_nest"]

_FLOATS = frozenset({"float", "double"})
_SHAPE = (
    "`for i { for j { T acc = 0; for k { acc += A[i*lda + k] * B[k*ldb + j]; } "
    "C[i*ldc + j] = acc; } }`"
)


@dataclass(frozen=True, slots=True)
class _Operand:
    """One factor of the product, ``A[i*lda + k]`` or ``B[k*ldb + j]``, as written."""

    subscript: Node
    array: str
    element: str
    stride: tuple[Node, ...]
    """The factors of ``lda`` (``ldb``), as written: the host checks they keep every row
    16-byte aligned before it takes the kernel that reads four elements at once."""


@dataclass(frozen=True, slots=True)
class MatmulNest:
    """The recognised nest: the three loops, the accumulator, the operands, the epilogue."""

    found: SequentialLoop
    rows: CountedLoop
    """The outer loop (``i``)."""
    columns: CountedLoop
    """The loop over output columns (``j``)."""
    depth: CountedLoop
    """The summation loop (``k``)."""
    acc: str
    acc_type: str
    left: _Operand
    """Indexed ``(i, k)``."""
    right: _Operand
    """Indexed ``(k, j)``."""
    epilogue: tuple[Node, ...]
    """The statements after the summation loop, run once per output."""

    def _var_type(self, loop: CountedLoop) -> str:
        return loop_var_type(self.found.entry) if loop is self.rows else loop.var_type or "int"

    def _declare(self, loop: CountedLoop, value: str) -> str:
        """The loop variable, declared with the value one thread gives it."""
        kind = self._var_type(loop)
        return f"const {kind} {loop.var} = static_cast<{kind}>({value});"

    def load(
        self,
        operand: _Operand,
        first: str,
        second: str,
        target: str,
        indent: str,
        *,
        load4: str | None = None,
    ) -> str:
        """``target = operand`` at (row ``first``, column ``second``) of its matrix, or 0 past
        the edges: the loop's own subscript and bounds, in a scope declaring the loop
        variables. With ``load4`` (the helper's name), the four elements from there along
        the row go to ``target`` onwards, unchecked: the caller launches that kernel only on
        whole tiles. The first line is not indented (it replaces a template placeholder)."""
        outer, inner = (
            (self.rows, self.depth) if operand is self.left else (self.depth, self.columns)
        )
        subscript = render(operand.subscript, self.found.facts.edits)
        if load4 is None:
            value = (
                f"{target} = ({outer.condition()} && {inner.condition()}) ? {subscript} : "
                f"static_cast<{operand.element}>(0);"
            )
        else:
            value = f"{load4}(&{target}, &{subscript});"
        lines = [
            "{",
            f"  {self._declare(outer, first)}",
            f"  {self._declare(inner, second)}",
            f"  {value}",
            "}",
        ]
        return f"\n{indent}".join(lines)

    def store(self, row: str, column: str, value: str, indent: str) -> list[str]:
        """The epilogue for the output at (``row``, ``column``) with sum ``value``, when that
        output exists, as lines at ``indent``."""
        edits = self.found.facts.edits
        epilogue = [
            indent_block(render(s, edits), s.start_point[1], f"{indent}    ") for s in self.epilogue
        ]
        return [
            f"{indent}{{",
            f"{indent}  {self._declare(self.rows, row)}",
            f"{indent}  {self._declare(self.columns, column)}",
            f"{indent}  if ({self.rows.condition()} && {self.columns.condition()}) {{",
            f"{indent}    {self.acc_type} {self.acc} = {value};",
            *epilogue,
            f"{indent}  }}",
            f"{indent}}}",
        ]


def _only_loop(body: Node, what: str) -> CountedLoop:
    statements = body_statements(body)
    if len(statements) != 1 or statements[0].type != "for_statement":
        raise Refusal(f"not a matrix product: {what} is not a single for loop ({_SHAPE})")
    return counted_loop(statements[0])


def _accumulator(declaration: Node) -> tuple[str, str]:
    """``(name, type)`` of ``T acc = 0;`` with a floating-point ``T``."""
    declarators = declaration.children_by_field_name("declarator")
    kind = declaration.child_by_field_name("type")
    plain = declaration.type == "declaration" and len(declarators) == 1 and kind is not None
    init = declarators[0] if plain else None
    name = init.child_by_field_name("declarator") if init is not None else None
    value = init.child_by_field_name("value") if init is not None else None
    if kind is None or name is None or value is None or name.type != "identifier":
        raise Refusal(
            f"not a matrix product: the body of the loop over columns does not start by "
            f"declaring an accumulator ({_SHAPE})"
        )
    qualified = len(declaration.named_children) != 2  # `const`, `static`, ...
    if qualified or node_text(kind) not in _FLOATS:
        raise Refusal(f"the accumulator `{node_text(declaration)}` is not a plain float or double")
    if not zero_literal(value):
        raise Refusal(
            f"the accumulator starts at `{node_text(value)}`, not 0: the tiles sum from zero"
        )
    return node_text(name), node_text(kind)


def _product(statement: Node, acc: str) -> tuple[Node, Node]:
    """The two factors of ``acc += X * Y`` (or ``acc = acc + X * Y``)."""
    expression = statement.named_children[0] if statement.named_child_count else None
    wrong = Refusal(
        f"the summation loop's body `{node_text(statement)}` is not `{acc} += A[...] * B[...];`"
    )
    if statement.type != "expression_statement" or expression is None:
        raise wrong
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if expression.type != "assignment_expression" or left is None or right is None:
        raise wrong
    if canon(left) != acc:
        raise wrong
    product: Node | None = right
    if operator_text(expression) == "=":
        right = strip_parens(right)
        terms = [right.child_by_field_name(f) for f in ("left", "right")]
        product = None
        if right.type == "binary_expression" and operator_text(right) == "+":
            sides = [canon(t) if t is not None else "" for t in terms]
            if sides[0] == acc:
                product = terms[1]
            elif sides[1] == acc:
                product = terms[0]
    elif operator_text(expression) != "+=":
        raise wrong
    if product is None:
        raise wrong
    product = strip_parens(product)
    factors = [product.child_by_field_name(f) for f in ("left", "right")]
    if product.type != "binary_expression" or operator_text(product) != "*":
        raise wrong
    found = [strip_parens(f) for f in factors if f is not None]
    if len(found) != 2 or any(f.type != "subscript_expression" for f in found):
        raise wrong
    return found[0], found[1]


def _layout(index: Node, first: str, second: str, loops: set[str]) -> tuple[Node, ...] | None:
    """The stride's factors when ``index`` is ``stride * first + second`` with a stride the
    loops do not change, else None."""
    form = affine(index, first)
    if form is None or form.sign < 0 or not form.stride:
        return None
    if any(mentions(f, loops) for f in form.stride_factors):
        return None
    return form.stride_factors if [(s, canon(n)) for s, n in form.rest] == [(1, second)] else None


def _index(subscript: Node) -> Node:
    indices = subscript.child_by_field_name("indices")
    if indices is None or indices.named_child_count != 1:
        raise Refusal(f"cannot read the index of `{node_text(subscript)}`")
    return indices.named_children[0]


def _operands(
    found: SequentialLoop, factors: tuple[Node, Node], loops: tuple[CountedLoop, ...]
) -> tuple[_Operand, _Operand]:
    """The factors as ``(A[i*lda + k], B[k*ldb + j])``, whatever order they are written in."""
    i, j, k = (loop.var for loop in loops)
    names = {i, j, k}
    left = right = None
    for factor in factors:
        array = factor.child_by_field_name("argument")
        param = found.entry.param(node_text(array)) if array is not None else None
        if param is None or not param.pointer:
            raise Refusal(f"`{node_text(factor)}` does not index a pointer parameter")
        if param.name in found.facts.written:
            raise Refusal(f"the loop writes `{param.name}`, which the product reads")
        element = " ".join(w for w in param.element.split() if w not in ("const", "volatile"))
        if element not in _FLOATS:
            raise Refusal(f"`{param.name}` holds `{param.element}`, not float or double")
        index = _index(factor)
        rows, columns = _layout(index, i, k, names), _layout(index, k, j, names)
        if rows is not None and left is None:
            left = _Operand(factor, param.name, element, rows)
        elif columns is not None and right is None:
            right = _Operand(factor, param.name, element, columns)
        elif _layout(index, k, i, names) is not None or _layout(index, j, k, names) is not None:
            raise Refusal(
                f"`{node_text(factor)}` reads its matrix transposed; the matmul rewriters "
                f"tile only A[{i}*lda + {k}] * B[{k}*ldb + {j}]"
            )
        else:
            raise Refusal(
                f"`{node_text(factor)}` is not indexed `{i}*lda + {k}` or `{k}*ldb + {j}`"
            )
    if left is None or right is None:
        raise Refusal(f"the product does not read one (`{i}`, `{k}`) and one (`{k}`, `{j}`) matrix")
    return left, right


def _rectangular(found: SequentialLoop, loop: CountedLoop) -> None:
    """The loop starts at 0 and its bound is the same for every iteration of the nest."""
    outer = {p.name for p in found.entry.params if not p.pointer} | set(found.entry.locals)
    if not loop.starts_at_zero():
        raise Refusal(f"the loop over `{loop.var}` starts at `{loop.lower_text()}`, not 0")
    if loop.var_type is None and loop is not found.entry.loop:
        raise Refusal(f"declare the loop variable `{loop.var}` in its for statement")
    for node in walk(loop.upper):
        cast = node.type == "call_expression" and is_cast(node.child_by_field_name("function"))
        parent = node.parent.type if node.parent is not None else ""
        if node.type == "identifier" and parent != "template_function":
            plain = node_text(node) in outer
        else:
            plain = node.type not in ("subscript_expression", "call_expression") or cast
        if not plain:
            raise Refusal(
                f"the bound `{loop.upper_text()}` of the loop over `{loop.var}` is not a "
                "loop-invariant expression of the parameters"
            )


def _epilogue(
    found: SequentialLoop, statements: list[Node], rows: CountedLoop, columns: CountedLoop
) -> None:
    """Each output's epilogue touches only its own element of every array it writes."""
    for statement in statements:
        for node in walk(statement):
            if node.type in ("break_statement", "continue_statement"):
                raise Refusal(f"`{node_text(statement)}` leaves the loop over columns early")
    for access in found.facts.accesses:
        if access.array not in found.facts.written:
            continue
        form = affine(access.index, rows.var)
        owned = (
            form is not None
            and form.sign > 0
            and columns.inside(form.stride)
            and [(s, canon(n)) for s, n in form.rest] == [(1, columns.var)]
        )
        if not owned:
            raise Refusal(
                f"`{node_text(access.node)}` is not the output element "
                f"`{access.array}[{rows.var}*ldc + {columns.var}]` with `{columns.var}` inside "
                "the row"
            )


def matmul_nest(code: str, context: RewriteContext) -> MatmulNest:
    """The entry's loop as a matrix product, or the reason it is not one this module tiles.

    The independence analysis runs first, so a loop no rewriter can map is refused with
    the reason ``Parallelize`` gives too."""
    split, task = split_entry(code, context.task)
    found = as_map(analysed_loop(product_as_dot(split, task) or split, task))
    rows = found.entry.loop
    columns = _only_loop(rows.body, f"the body of the loop over `{rows.var}`")
    statements = body_statements(columns.body)
    if len(statements) < 3 or statements[0].type != "declaration":
        raise Refusal(
            f"not a matrix product: the loop over `{columns.var}` does not declare an "
            f"accumulator, sum into it and store it ({_SHAPE})"
        )
    acc, acc_type = _accumulator(statements[0])
    if statements[1].type != "for_statement":
        raise Refusal(f"not a matrix product: `{acc}` is not summed by a for loop ({_SHAPE})")
    depth = counted_loop(statements[1])
    loops = (rows, columns, depth)
    for loop in loops:
        _rectangular(found, loop)
    if mentions(columns.upper, rows.var) or mentions(depth.upper, {rows.var, columns.var}):
        raise Refusal("the loop bounds depend on the outer loop variables (not a rectangle)")
    summation = body_statements(depth.body)
    if len(summation) != 1:
        raise Refusal(f"the loop over `{depth.var}` does more than `{acc} += A[...] * B[...];`")
    left, right = _operands(found, _product(summation[0], acc), loops)
    _epilogue(found, statements[2:], rows, columns)
    return MatmulNest(
        found, rows, columns, depth, acc, acc_type, left, right, tuple(statements[2:])
    )


class _Scope(dict[str, str]):
    """Template values: the given ones, and a fresh name for every other ``$identifier``.

    A kernel's locals then neither capture nor shadow a name of the file (the user's code in
    the loads and the epilogue keeps its meaning), nor the generated functions (``reserved``).
    A child scope adds values of its own and takes every other name from its parent.
    """

    def __init__(
        self,
        names: NameAllocator,
        values: dict[str, str],
        *,
        reserved: frozenset[str] = frozenset(),
        parent: _Scope | None = None,
    ) -> None:
        super().__init__(values)
        self._names, self._reserved, self._parent = names, reserved, parent

    def __missing__(self, key: str) -> str:
        if self._parent is not None:
            value = self._parent[key]
        else:
            value = self._names.fresh(key)
            while value in self._reserved:
                value = self._names.fresh(key)
        self[key] = value
        return value

    def child(self, **values: str) -> _Scope:
        return _Scope(self._names, values, parent=self)

    def fill(self, template: Template, indent: str = "") -> str:
        return textwrap.indent(template.substitute(self), indent)


_TILED = Template("""\
__global__ void $kernel($parameters) {
  __shared__ $a_type $a_tile[$tile][$tile];
  __shared__ $b_type $b_tile[$tile][$tile];
  const int $tx = static_cast<int>(threadIdx.x);
  const int $ty = static_cast<int>(threadIdx.y);
  const long long $col_tiles = ($col_count + $tile - 1) / $tile;
  const long long $row0 = static_cast<long long>(blockIdx.x) / $col_tiles * $tile;
  const long long $col0 = static_cast<long long>(blockIdx.x) % $col_tiles * $tile;
  $acc_type $sum = 0;
  for (long long $k0 = 0; $k0 < $depth_count; $k0 += $tile) {
    $load_a
    $load_b
    __syncthreads();
    #pragma unroll
    for (int $kk = 0; $kk < $tile; ++$kk) {
      $sum += $a_tile[$ty][$kk] * $b_tile[$kk][$tx];
    }
    __syncthreads();
  }
$store
}""")
"""One output per thread: each ``tile``-deep slice of ``A``'s rows and ``B``'s columns is
loaded once per block (coalesced along ``k`` and ``j``), then read from shared memory: the
``A`` element is the same for a whole warp (a broadcast), the ``B`` elements consecutive."""

_LOAD4 = {
    "float": Template("""\
static __device__ __forceinline__ void $load4(float* $to, const float* $from) {
  const float4 $v = *reinterpret_cast<const float4*>($from);
  $to[0] = $v.x;
  $to[1] = $v.y;
  $to[2] = $v.z;
  $to[3] = $v.w;
}"""),
    "double": Template("""\
static __device__ __forceinline__ void $load4(double* $to, const double* $from) {
  $to[0] = $from[0];
  $to[1] = $from[1];
  $to[2] = $from[2];
  $to[3] = $from[3];
}"""),
}
"""Four consecutive elements into registers: one 16-byte read for floats. Every call site
passes a 16-byte-aligned address: in shared memory, an ``alignas(16)`` tile whose rows are
a multiple of four elements long, at a multiple-of-four offset; in global memory (the
whole-tile kernel), a multiple-of-four element of a ``cudaMalloc`` buffer, as the host
checks the leading dimensions are multiples of four before it launches that kernel."""

_BLOCKED = Template("""\
__global__ void __launch_bounds__($threads) $kernel($parameters) {
  alignas(16) __shared__ $a_type $a_tile[2][$depth][$rows + 4];
  alignas(16) __shared__ $b_type $b_tile[2][$depth][$cols + 4];
  const int $tid = static_cast<int>(threadIdx.x);
  const int $tr = $tid / $thread_cols;
  const int $tc = $tid % $thread_cols;
  const long long $col_tiles = ($col_count + $cols - 1) / $cols;
  const long long $row0 = static_cast<long long>(blockIdx.x) / $col_tiles * $rows;
  const long long $col0 = static_cast<long long>(blockIdx.x) % $col_tiles * $cols;
  const long long $k_tiles = ($depth_count + $depth - 1) / $depth;
  $acc_type $sums[$tm][$tn];
  #pragma unroll
  for (int $m = 0; $m < $tm; ++$m) {
    #pragma unroll
    for (int $n = 0; $n < $tn; ++$n) {
      $sums[$m][$n] = 0;
    }
  }
  $a_type $a_next[$a_loads];
  $b_type $b_next[$b_loads];
  if ($k_tiles > 0) {
$fetch_first
$stage_first
  }
  __syncthreads();
  for (long long $t = 0; $t < $k_tiles; ++$t) {
    const int $cur = static_cast<int>($t & 1);
    if ($t + 1 < $k_tiles) {
$fetch_next
    }
    #pragma unroll
    for (int $kk = 0; $kk < $depth; ++$kk) {
      $a_type $a[$tm];
      $b_type $b[$tn];
      #pragma unroll
      for (int $g = 0; $g < $tm / 4; ++$g) {
        $load4(&$a[4 * $g], &$a_tile[$cur][$kk][$g * $row_step + 4 * $tr]);
      }
      #pragma unroll
      for (int $g = 0; $g < $tn / 4; ++$g) {
        $load4(&$b[4 * $g], &$b_tile[$cur][$kk][$g * $col_step + 4 * $tc]);
      }
      #pragma unroll
      for (int $m = 0; $m < $tm; ++$m) {
        #pragma unroll
        for (int $n = 0; $n < $tn; ++$n) {
          $sums[$m][$n] += $a[$m] * $b[$n];
        }
      }
    }
    if ($t + 1 < $k_tiles) {
$stage_next
    }
    __syncthreads();
  }
  #pragma unroll
  for (int $m = 0; $m < $tm; ++$m) {
    #pragma unroll
    for (int $n = 0; $n < $tn; ++$n) {
$store
    }
  }
}""")
"""Register blocking over double-buffered shared tiles. Thread ``(tr, tc)`` owns rows
``4*tr + {0..3}`` of every ``row_step``-row group of the tile and likewise columns, so a
warp's 16-byte reads of a ``B`` row are consecutive (no bank conflicts) and its reads of an
``A`` column are broadcasts. While the block computes on one buffer, its threads hold the
next slices of ``A`` and ``B`` in registers (``a_next``, ``b_next``) and store them into the
other buffer afterwards: one barrier per slice. ``A``'s slice is stored transposed
(``[k][row]``) so a thread's rows are contiguous; the four-element padding keeps those
stores free of bank conflicts and the rows 16-byte aligned."""

_PER_THREAD = Template("""\
#pragma unroll
for (int $q = 0; $q < $a_count; ++$q) {
  const int $e = $element;
  $do_a
}
#pragma unroll
for (int $q = 0; $q < $b_count; ++$q) {
  const int $e = $element;
  $do_b
}""")
"""A thread's share of a slice of ``A`` and of ``B``: element ``e`` (or the four from
``e``) of each, ``e`` running over ``q * threads + tid`` so that consecutive threads touch
consecutive ``k`` of an ``A`` row and consecutive ``j`` of a ``B`` row. Fetching does a
load there (into ``a_next``, ``b_next``), staging a store into a shared buffer."""

_STORE4 = {
    "float": Template("""\
static __device__ __forceinline__ void $store4(float* $to, const float* $from) {
  *reinterpret_cast<float4*>($to) = make_float4($from[0], $from[1], $from[2], $from[3]);
}"""),
    "double": Template("""\
static __device__ __forceinline__ void $store4(double* $to, const double* $from) {
  $to[0] = $from[0];
  $to[1] = $from[1];
  $to[2] = $from[2];
  $to[3] = $from[3];
}"""),
}
"""Four registers into consecutive shared-memory elements: one 16-byte store for floats, at
a 16-byte-aligned address (a multiple-of-four offset in an ``alignas(16)`` tile)."""


@dataclass(frozen=True, slots=True)
class _Blocking:
    """A block's output tile (``rows x cols``), the depth of a shared slice, and a thread's
    register block (``tm x tn``, multiples of 4 so every shared read is 16 bytes)."""

    rows: int
    cols: int
    depth: int
    tm: int
    tn: int

    @property
    def threads(self) -> int:
        return (self.rows // self.tm) * (self.cols // self.tn)

    def values(self) -> dict[str, str]:
        threads = self.threads
        assert self.rows * self.depth % threads == 0 and self.depth * self.cols % threads == 0
        return {
            "rows": str(self.rows),
            "cols": str(self.cols),
            "depth": str(self.depth),
            "tm": str(self.tm),
            "tn": str(self.tn),
            "threads": str(threads),
            "thread_cols": str(self.cols // self.tn),
            "row_step": str(4 * self.rows // self.tm),
            "col_step": str(4 * self.cols // self.tn),
            "a_loads": str(self.rows * self.depth // threads),
            "b_loads": str(self.depth * self.cols // threads),
        }

    def describe(self) -> str:
        return f"{self.rows}x{self.cols} outputs per block, {self.tm}x{self.tn} per thread"


_LARGE = _Blocking(rows=128, cols=128, depth=8, tm=8, tn=8)
_SMALL = _Blocking(rows=64, cols=32, depth=16, tm=4, tn=4)
"""For products too small to give every multiprocessor a 128x128 tile: 128 threads, so
there are eight times as many blocks to spread (at n = 512, 128 blocks against 16)."""


@dataclass(frozen=True, slots=True)
class _Unit:
    """The translation unit both rewriters build: device buffers, kernels, host launch."""

    nest: MatmulNest
    names: NameAllocator
    """Names of the file scope and the host: the kernels, helpers and host locals."""
    host: HostNames
    buffers: list[DeviceBuffer]
    arguments: str
    parameters: str

    @classmethod
    def of(cls, nest: MatmulNest) -> _Unit:
        names = NameAllocator(nest.found.root)
        buffers, interface = nest.found.interface(names)
        return cls(
            nest,
            names,
            HostNames.allocate(names),
            buffers,
            ", ".join(interface.arguments),
            ", ".join(interface.parameters),
        )

    def scope(self, kernel: str, values: dict[str, str], functions: frozenset[str]) -> _Scope:
        """The values of a kernel's template; its locals avoid the file's names and
        ``functions`` (the generated helpers it calls)."""
        nest = self.nest
        common = {
            "kernel": kernel,
            "parameters": self.parameters,
            "acc_type": nest.acc_type,
            "a_type": nest.left.element,
            "b_type": nest.right.element,
            "col_count": nest.columns.trip_count(),
            "depth_count": nest.depth.trip_count(),
        }
        locals_ = NameAllocator(nest.found.root)
        return _Scope(locals_, common | values, reserved=functions | {kernel})

    def tiles(self, rows: int, cols: int, columns: str) -> str:
        """The number of ``rows x cols`` output tiles, on the host (``columns``: the host
        local holding the column count)."""
        return f"(({self.host.count} + {rows - 1}) / {rows}) * (({columns} + {cols - 1}) / {cols})"

    def source(self, kernels: list[str], launch: list[str]) -> str:
        lines = gpu_block(self.nest.rows.trip_count(), self.buffers, launch, self.host)
        return self.nest.found.candidate("\n\n".join(kernels) + "\n", lines)


def _tiled(nest: MatmulNest, tile: int) -> str:
    unit = _Unit.of(nest)
    kernel = unit.names.fresh(f"{nest.found.task.entry}_tiled{tile}")
    s = unit.scope(kernel, {"tile": str(tile)}, frozenset())
    row, col = f"{s['row0']} + {s['ty']}", f"{s['col0']} + {s['tx']}"
    s["load_a"] = nest.load(
        nest.left, row, f"{s['k0']} + {s['tx']}", f"{s['a_tile']}[{s['ty']}][{s['tx']}]", "    "
    )
    s["load_b"] = nest.load(
        nest.right, f"{s['k0']} + {s['ty']}", col, f"{s['b_tile']}[{s['ty']}][{s['tx']}]", "    "
    )
    s["store"] = "\n".join(nest.store(row, col, s["sum"], "  "))
    host, columns = unit.host, unit.names.fresh("columns")
    launch = [
        f"const long long {columns} = {nest.columns.trip_count()};",
        f"const dim3 {host.block}({tile}, {tile});",
        f"const long long {host.grid} = {unit.tiles(tile, tile, columns)};",
        f"if ({columns} > 0) {{",
        f"  {kernel}<<<static_cast<unsigned int>({host.grid}), {host.block}>>>({unit.arguments});",
        "}",
        f"{host.err} = cudaGetLastError();",
    ]
    return unit.source([s.fill(_TILED)], launch)


def _per_thread(s: _Scope, indent: str, width: int, do_a: str, do_b: str) -> str:
    """:data:`_PER_THREAD` with ``width`` (1 or 4) elements of each operand at a time."""
    shape = f"{s['q']} * {s['threads']} + {s['tid']}"
    return s.child(
        a_count=str(int(s["a_loads"]) // width),
        b_count=str(int(s["b_loads"]) // width),
        element=shape if width == 1 else f"({shape}) * {width}",
        do_a=do_a,
        do_b=do_b,
    ).fill(_PER_THREAD, indent)


def _fetch(nest: MatmulNest, s: _Scope, origin: str, indent: str, load4: str | None) -> str:
    """Registers <- the slices ``origin`` (``""``, or ``"<k offset> + "``) deep; four
    elements per load through ``load4`` in the whole-tile kernel."""
    e, q, depth, cols = s["e"], s["q"], s["depth"], s["cols"]
    at = q if load4 is None else f"4 * {q}"
    do_a = nest.load(
        nest.left,
        f"{s['row0']} + {e} / {depth}",
        f"{origin}{e} % {depth}",
        f"{s['a_next']}[{at}]",
        "  ",
        load4=load4,
    )
    do_b = nest.load(
        nest.right,
        f"{origin}{e} / {cols}",
        f"{s['col0']} + {e} % {cols}",
        f"{s['b_next']}[{at}]",
        "  ",
        load4=load4,
    )
    return _per_thread(s, indent, 1 if load4 is None else 4, do_a, do_b)


def _stage(s: _Scope, buffer: str, indent: str, store4: str | None) -> str:
    """Shared buffer ``buffer`` <- the registers :func:`_fetch` filled. ``A``'s slice goes
    in transposed, one element at a time; ``B``'s four at a time through ``store4`` in the
    whole-tile kernel."""
    e, q, depth, cols = s["e"], s["q"], s["depth"], s["cols"]
    a_tile, b_tile = f"{s['a_tile']}[{buffer}]", f"{s['b_tile']}[{buffer}]"
    if store4 is None:
        do_a = f"{a_tile}[{e} % {depth}][{e} / {depth}] = {s['a_next']}[{q}];"
        do_b = f"{b_tile}[{e} / {cols}][{e} % {cols}] = {s['b_next']}[{q}];"
        return _per_thread(s, indent, 1, do_a, do_b)
    u = s["u"]
    do_a = "\n  ".join(
        [
            "#pragma unroll",
            f"for (int {u} = 0; {u} < 4; ++{u}) {{",
            f"  {a_tile}[({e} + {u}) % {depth}][({e} + {u}) / {depth}] = "
            f"{s['a_next']}[4 * {q} + {u}];",
            "}",
        ]
    )
    do_b = f"{store4}(&{b_tile}[{e} / {cols}][{e} % {cols}], &{s['b_next']}[4 * {q}]);"
    return _per_thread(s, indent, 4, do_a, do_b)


@dataclass(frozen=True, slots=True)
class _Helpers:
    """The names of the generated ``load4`` and ``store4`` functions."""

    load4: str
    store4: str


def _blocked_kernel(
    unit: _Unit, shape: _Blocking, helpers: _Helpers, *, whole: bool
) -> tuple[str, str]:
    """The kernel for ``shape``, and its name. A ``whole`` kernel assumes every tile is
    inside the matrices (no edge checks on loads) and reads global memory four elements at
    a time; the host launches it only when that holds."""
    nest = unit.nest
    label = "whole" if whole else "tiles"
    kernel = unit.names.fresh(f"{nest.found.task.entry}_{label}{shape.rows}x{shape.cols}")
    functions = frozenset({helpers.load4, helpers.store4})
    s = unit.scope(kernel, shape.values() | {"load4": helpers.load4}, functions)
    load4, store4 = (helpers.load4, helpers.store4) if whole else (None, None)
    s["fetch_first"] = _fetch(nest, s, "", "    ", load4)
    s["fetch_next"] = _fetch(nest, s, f"({s['t']} + 1) * {shape.depth} + ", "      ", load4)
    s["stage_first"] = _stage(s, "0", "    ", store4)
    s["stage_next"] = _stage(s, f"{s['cur']} ^ 1", "      ", store4)
    m, n = s["m"], s["n"]
    row = f"{s['row0']} + {m} / 4 * {s['row_step']} + 4 * {s['tr']} + {m} % 4"
    col = f"{s['col0']} + {n} / 4 * {s['col_step']} + 4 * {s['tc']} + {n} % 4"
    s["store"] = "\n".join(nest.store(row, col, f"{s['sums']}[{m}][{n}]", "      "))
    return s.fill(_BLOCKED), kernel


def _multiple_of(value: str, factor: int) -> str:
    return f"({value}) % {factor} == 0"


def _leading_dimension(operand: _Operand) -> str:
    """``lda`` (``ldb``) on the host, from the factors as the loop wrote them."""
    return " * ".join(f"static_cast<long long>({node_text(f)})" for f in operand.stride)


def _blocked(nest: MatmulNest) -> str:
    unit = _Unit.of(nest)
    helper = _Scope(unit.names, {})
    elements = sorted({nest.left.element, nest.right.element})
    helpers = _Helpers(helper["load4"], helper["store4"])
    functions = [helper.fill(_LOAD4[element]) for element in elements]
    functions += [helper.fill(_STORE4[element]) for element in elements]
    whole, whole_kernel = _blocked_kernel(unit, _LARGE, helpers, whole=True)
    large, large_kernel = _blocked_kernel(unit, _LARGE, helpers, whole=False)
    small, small_kernel = _blocked_kernel(unit, _SMALL, helpers, whole=False)
    host, fresh = unit.host, unit.names.fresh
    columns, device, sms = fresh("columns"), fresh("device"), fresh("sms")
    large_tiles, small_tiles, whole_tiles = (
        fresh("large_tiles"),
        fresh("small_tiles"),
        fresh("whole"),
    )
    aligned = [
        _multiple_of(host.count, _LARGE.rows),
        _multiple_of(columns, _LARGE.cols),
        _multiple_of(nest.depth.trip_count(), _LARGE.depth),
        _multiple_of(_leading_dimension(nest.left), 4),
        _multiple_of(_leading_dimension(nest.right), 4),
    ]
    launch = [
        f"const long long {columns} = {nest.columns.trip_count()};",
        f"const long long {large_tiles} = {unit.tiles(_LARGE.rows, _LARGE.cols, columns)};",
        f"const long long {small_tiles} = {unit.tiles(_SMALL.rows, _SMALL.cols, columns)};",
        f"const bool {whole_tiles} = {' && '.join(aligned)};",
        f"int {device} = 0;",
        f"int {sms} = 0;",
        f"{host.err} = cudaGetDevice(&{device});",
        f"if ({host.err} == cudaSuccess) {host.err} = "
        f"cudaDeviceGetAttribute(&{sms}, cudaDevAttrMultiProcessorCount, {device});",
        f"if ({host.err} == cudaSuccess && {columns} > 0) {{",
        f"  if ({large_tiles} >= {sms} && {whole_tiles}) {{",
        f"    {whole_kernel}<<<static_cast<unsigned int>({large_tiles}), {_LARGE.threads}>>>"
        f"({unit.arguments});",
        f"  }} else if ({large_tiles} >= {sms}) {{",
        f"    {large_kernel}<<<static_cast<unsigned int>({large_tiles}), {_LARGE.threads}>>>"
        f"({unit.arguments});",
        "  } else {",
        f"    {small_kernel}<<<static_cast<unsigned int>({small_tiles}), {_SMALL.threads}>>>"
        f"({unit.arguments});",
        "  }",
        f"  {host.err} = cudaGetLastError();",
        "}",
    ]
    return unit.source([*functions, whole, large, small], launch)


class TiledMatmul(RefusingRewriter):
    """Shared-memory tiling of a matrix product, one output per thread."""

    technique = "shared_memory_tiling"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        tile = int(params.get("tile", 32))
        if tile not in (8, 16, 32):
            raise Refusal(f"tile {tile} is not 8, 16 or 32")
        nest = matmul_nest(code, context)
        return [
            RewriteCandidate(
                _tiled(nest, tile),
                f"tiled the matrix product: {tile}x{tile} outputs per block, one per thread, "
                f"from {tile}x{tile} tiles of `{nest.left.array}` and `{nest.right.array}` "
                "in shared memory",
            )
        ]


class BlockedMatmul(RefusingRewriter):
    """Register blocking of a matrix product over double-buffered shared tiles."""

    technique = "register_blocking"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        nest = matmul_nest(code, context)
        return [
            RewriteCandidate(
                _blocked(nest),
                f"blocked the matrix product in registers: {_LARGE.describe()}, reading "
                "four elements at a time when the tiles cover the matrices exactly "
                f"({_SMALL.describe()} when there are fewer large tiles than "
                f"multiprocessors), from double-buffered shared tiles of `{nest.left.array}` "
                f"(transposed) and `{nest.right.array}`",
            )
        ]
