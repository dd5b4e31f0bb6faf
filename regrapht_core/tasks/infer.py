"""Roles and lengths of the entry's arrays, read off how its body uses them.

The rules are the ones a reviewer would apply: a pointer the function never writes is an
input; one whose first use is a write is an output, unless some elements may keep their
old value (a conditional write, a stencil's untouched border), which makes it in-out; an
array's length is one past the largest index the loops can reach, as a polynomial in the
size parameters. Calls into helpers and kernels defined in the same file are followed,
their parameters substituted. Whatever cannot be bounded is reported with the reason, so
the caller can ask for exactly the missing annotation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from regrapht_core.contracts.task import ParamKind, Record, Role
from regrapht_core.cxx.appends import appending_loop
from regrapht_core.cxx.loops import (
    FLIPPED,
    CountedLoop,
    compared_bound,
    loop_start,
    shifted_comparison,
)
from regrapht_core.cxx.params import Parameter
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.reductions import is_sum_of
from regrapht_core.cxx.syntax import assignment_targets, constructed, strip_parens
from regrapht_core.errors import TaskError
from regrapht_core.tasks.dtypes import is_arithmetic, numpy_dtype
from regrapht_core.tasks.expr import evaluate
from regrapht_core.tasks.signature import entry_params
from regrapht_core.tasks.symbolic import Interval, Poly, dominating, greatest, smaller

__all__ = ["FileContext", "Inferred", "infer_usage"]

_THREAD = {"threadIdx": 0, "blockIdx": 0, "blockDim": 1, "gridDim": 1}
_COPIES = {"memcpy", "memmove", "cudaMemcpy", "std::memcpy"}
_FILLS = {"memset", "cudaMemset", "std::memset"}
_SWAPS = {"std::swap", "swap"}
"""Calls that exchange their two arguments: each element passed is read and written."""
_SIZE_METHODS = {"size", "empty", "capacity", "reserve", "shrink_to_fit"}
_GROW_METHODS = {"push_back", "emplace_back", "clear", "insert"}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_CASTS = {"static_cast", "reinterpret_cast", "const_cast"}
_MAX_DEPTH = 4


@dataclass(frozen=True, slots=True)
class FileContext:
    """What the analysis may look up in the rest of the file."""

    functions: Mapping[str, Node]
    constants: Mapping[str, int]
    """Object-like macros and ``const`` globals with integer values."""
    aliases: Mapping[str, str]
    records: tuple[Record, ...] = ()
    """The structs element types may name (``sizeof(Point)``, ``memcpy`` of a ``Point*``)."""


@dataclass(slots=True)
class _Access:
    read: bool
    write: bool
    index: Interval
    conditional: bool


@dataclass(slots=True)
class _Usage:
    accesses: list[_Access] = field(default_factory=list)
    role_unknown: str | None = None
    length_unknown: str | None = None
    resized: Interval | None = None
    grows: bool = False
    size_now: Poly | None = None
    """What ``v.size()`` returns from here on, after an unconditional top-level
    ``v.resize(e)`` with an exact ``e`` (``y.resize(x.size())``), until it may change."""
    cleared: bool = False
    """The function empties the vector before anything else touches it (an unconditional
    top-level ``v.clear()``): what the caller passed in never matters, and the length it
    ends with, if an appending loop makes it known, can be the argument's length."""


@dataclass(slots=True)
class _Reference:
    """Uses of a ``T&`` scalar parameter, in evaluation order."""

    accesses: list[_Access] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Inferred:
    roles: dict[str, Role | None]
    """Pointers, vectors and arrays; also writable scalar references (``T& x``)."""
    lengths: dict[str, Poly | None]
    reasons: dict[str, str]
    """Why a role or length is missing, by argument name."""
    size_vars: tuple[str, ...]
    """Size variables in order of appearance: scalar parameters and vector sizes."""
    accumulates: bool
    """Some value is accumulated across loop iterations (sums reorder on a GPU)."""
    thread_extent: dict[str, Poly]
    """Kernels: the guarded thread count per axis (``x``, ``y``, ``z``)."""
    returned: str | None = None
    """The variable every ``return`` statement returns, when they all return the same one."""
    return_length: Poly | None = None
    """Its element count, when it is a local ``std::vector`` sized once (``v(n)``,
    ``v.resize(n)``) and never grown."""
    work_degree: int = 1
    """The deepest nest of loops whose bounds grow with the sizes: the work grows as a size
    to this power (3 for a triple loop over ``n``)."""
    appended_to: tuple[str, ...] = ()
    """Vector parameters grown by ``push_back`` from what the caller passed (not cleared
    first): how long they end depends on the caller's vector, so only an annotation of the
    length it is passed with (``out[3] inout``) can stand for it."""


def vector_size_name(vector: str) -> str:
    return f"{vector}_size"


class _Analyzer:
    def __init__(
        self,
        fn: Node,
        params: tuple[Parameter, ...],
        ctx: FileContext,
        depth: int,
        *,
        ranges: Mapping[str, Interval] | None = None,
    ) -> None:
        self.fn = fn
        self.params = {p.name: p for p in params}
        self.ctx = ctx
        self.depth = depth
        self.tracked = {p.name: _Usage() for p in params if p.kind is not ParamKind.SCALAR}
        self.refs = {p.name: _Reference() for p in params if p.writable_reference}
        self.bound_names: list[str] = []
        self.accumulates = False
        self.loop_depth = 0
        self.size_depth = 0
        """Enclosing counted loops whose bounds grow with the sizes."""
        self.work_degree = 1
        self.axis: dict[str, str] = {}
        self.thread_extent: dict[str, Poly] = {}
        self.mutations: dict[str, int] = {}
        self.local_sizes: dict[str, Interval | None] = {}
        """Local ``std::vector``s: the size they were given, None once grown or unknown."""
        self.returned: list[str | None] = []
        body = fn.child_by_field_name("body")
        plain: dict[str, int] = {}
        for n in walk(body) if body is not None else ():
            target = None
            if n.type == "assignment_expression":
                target = n.child_by_field_name("left")
            elif n.type == "update_expression":
                target = n.child_by_field_name("argument")
            if target is not None and target.type == "identifier":
                name = node_text(target)
                self.mutations[name] = self.mutations.get(name, 0) + 1
                if n.type == "assignment_expression" and node_text(n.children[1]) == "=":
                    plain[name] = plain.get(name, 0) + 1
        self.only_set = {name for name, count in plain.items() if count == self.mutations[name]}
        """Locals changed only by plain assignments (``best = i;``): their values stay
        within what they start from and what is assigned (:attr:`assigned`)."""
        self.assigned: dict[str, Interval] = {}
        """The start and every assigned value of :attr:`only_set` locals, joined: a second
        analysis (``ranges``) reads them as the locals' bounds."""
        self.ranges = dict(ranges or {})
        self.clamps: dict[tuple[int, int], tuple[str, Node]] = {}
        """``if (c) v = e;`` right after ``v``'s declaration, in its block, by position."""
        for block in walk(body) if body is not None else ():
            if block.type == "compound_statement":
                self._find_clamps(block)
        counts: dict[str, int] = {}
        for name, _ in self.clamps.values():
            counts[name] = counts.get(name, 0) + 1
        self.clamped = {name for name, c in counts.items() if c == self.mutations.get(name)}
        """Locals only ever changed by such ``if``s: their bounds follow each one."""

    def _find_clamps(self, block: Node) -> None:
        declared: set[str] = set()
        for child in block.named_children:
            if child.type == "declaration":
                for decl in child.children_by_field_name("declarator"):
                    named = decl
                    if decl.type == "init_declarator":
                        named = decl.child_by_field_name("declarator") or decl
                    if named.type == "identifier":
                        declared.add(node_text(named))
            found = _clamp_assignment(child)
            if found is not None and found[0] in declared:
                self.clamps[(child.start_byte, child.end_byte)] = found

    def _after_clamp(self, node: Node, env: dict[str, Interval]) -> None:
        """After ``if (c) v = e;`` on a clamped local ``v``: ``v`` is either its old value
        where ``c`` is false, or ``e`` evaluated where ``c`` is true."""
        found = self.clamps.get((node.start_byte, node.end_byte))
        condition = node.child_by_field_name("condition")
        if found is None or found[0] not in self.clamped or condition is None:
            return
        name, value = found
        test = condition.child_by_field_name("value") or condition
        kept = self._narrowed(test, env, negate=True).get(name, env.get(name, Interval()))
        taken = self._value(value, {**env, **self._narrowed(test, env, negate=False)})
        env[name] = kept.join(taken)

    def _narrowed(
        self, cond: Node, env: Mapping[str, Interval], *, negate: bool
    ) -> dict[str, Interval]:
        """``_guards`` for a value, not a guard: no thread extent is recorded."""
        extent = dict(self.thread_extent)
        out = self._guards(cond, env, negate=negate)
        self.thread_extent = extent
        return out

    def run(self) -> None:
        env: dict[str, Interval] = {
            name: Interval.exact(Poly.const(v)) for name, v in self.ctx.constants.items()
        }
        for p in self.params.values():
            if p.kind is ParamKind.SCALAR and _integral(p.element) and not p.writable_reference:
                env[p.name] = Interval.exact(Poly.var(p.name))
        body = self.fn.child_by_field_name("body")
        if body is not None:
            self._stmt(body, env, False)

    # statements -------------------------------------------------------------------------

    def _stmt(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        kind = node.type
        if kind == "compound_statement":
            scope = dict(env)
            for child in node.named_children:
                self._stmt(child, scope, cond)
                if child.type == "if_statement":
                    self._early_exit(child, scope)
                    self._after_clamp(child, scope)
        elif kind == "declaration":
            self._declaration(node, env, cond)
        elif kind in ("for_statement", "for_range_loop"):
            self._loop(node, env, cond)
        elif kind == "if_statement":
            self._if(node, env, cond)
        elif kind in ("while_statement", "do_statement"):
            self._range_for(node, env)
        elif kind == "return_statement":
            self._return(node, env, cond)
        elif kind.endswith("_statement") or kind in ("else_clause", "condition_clause"):
            for child in node.named_children:
                self._stmt(child, env, cond)
        elif kind not in ("comment", "type_definition"):
            self._expr(node, env, cond)

    def _loop(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        """A ``for`` loop, counted or range-for; one that fills a local vector by
        ``push_back`` sizes it."""
        grown = self._appended(node, env, cond)
        if node.type == "for_statement":
            self._for(node, env, cond)
        else:
            self._range_for(node, env)
        if grown is not None:
            self.local_sizes[grown[0]] = grown[1]

    def _appended(
        self, node: Node, env: dict[str, Interval], cond: bool
    ) -> tuple[str, Interval] | None:
        """A local vector of known size that ``node``, an unconditional top-level loop of
        ``cxx.appends``'s shape counting from 0 (or a range-for over a container of known
        size), grows by one element per iteration: its name and size after the loop
        (``std::vector<float> out;`` then ``for (i = 0; i < n; ++i) out.push_back(...)``:
        ``n``; ``for (float v : x) out.push_back(...)``: ``x``'s size)."""
        found = None if cond or self.loop_depth else appending_loop(node)
        before = self.local_sizes.get(found.container) if found is not None else None
        if found is None or before is None or before.hi is None or before.lo != before.hi:
            return None
        trips = self._trips(found.loop, found.over, env)
        return None if trips is None else (found.container, Interval.exact(before.hi + trips))

    def _trips(self, loop: CountedLoop | None, over: str, env: dict[str, Interval]) -> Poly | None:
        """How many times a loop from 0 runs: its bound, or the size of what it walks."""
        if loop is None:
            size = self._container_size(over) if over in self.tracked else None
            local = self.local_sizes.get(over)
            if size is None and local is not None and local.hi is not None:
                size = local.hi if local.lo == local.hi else None
            return size
        if not loop.starts_at_zero() or loop.shifted:
            return None
        upper = self._value(loop.upper, env)
        if upper.hi is None or upper.lo != upper.hi:
            return None
        return upper.hi + Poly.const(1) if loop.inclusive else upper.hi

    def _return(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        value = node.named_children[0] if node.named_child_count else None
        self.returned.append(
            node_text(value) if value is not None and value.type == "identifier" else None
        )
        for child in node.named_children:
            self._expr(child, env, cond)

    def _uncounted_loop(self, node: Node, env: dict[str, Interval]) -> None:
        """A loop without a counted header: everything in it is conditional."""
        self.loop_depth += 1
        for child in node.named_children:
            if child.type == "condition_clause" or child.type.endswith("expression"):
                self._expr(child, env, True)
            elif node.type == "for_range_loop" and child.type == "identifier":
                self._whole(node_text(child), "iterated with a range-for loop")
            else:
                self._stmt(child, dict(env), True)
        self.loop_depth -= 1

    def _range_for(self, node: Node, env: dict[str, Interval]) -> None:
        """``for (auto& p : pts)``: every element of a tracked container is read, and
        written when the loop variable is a non-const reference the body writes. Any other
        loop without a counted header: everything in it is conditional."""
        right = node.child_by_field_name("right")
        declarator = node.child_by_field_name("declarator")
        name = node_text(right) if right is not None and right.type == "identifier" else ""
        if node.type != "for_range_loop":
            name = ""
        size = self._container_size(name) if name in self.tracked else None
        if size is None:
            self._uncounted_loop(node, env)
            return
        const = any(node_text(c) == "const" for c in node.children)
        var = declarator
        while var is not None and var.type != "identifier":
            var = var.named_children[0] if var.named_child_count else None
        body = node.child_by_field_name("body")
        written = (
            declarator is not None
            and declarator.type == "reference_declarator"
            and not const
            and var is not None
            and body is not None
            and _writes(body, node_text(var))
        )
        index = Interval(Poly.const(0), size - Poly.const(1))
        self.tracked[name].accesses.append(_Access(True, written, index, False))
        self.loop_depth += 1
        if body is not None:
            self._stmt(body, dict(env), True)
        self.loop_depth -= 1

    def _container_size(self, name: str) -> Poly | None:
        param = self.params.get(name)
        if param is None:
            return None
        if param.kind is ParamKind.SPAN:
            return Poly.var(vector_size_name(name))
        if param.kind is ParamKind.VECTOR:
            usage = self.tracked.get(name)
            now = usage.size_now if usage is not None else None
            return now if now is not None else Poly.var(vector_size_name(name))
        if param.kind is ParamKind.ARRAY:
            try:
                return Poly.const(int(param.extent))
            except ValueError:
                return None
        return None

    def _declaration(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        for decl in node.children_by_field_name("declarator"):
            made = constructed(decl) if decl.type == "function_declarator" else None
            if made is not None and _is_vector_type(node.child_by_field_name("type")):
                made_name, arguments = made  # ``std::vector<float> y(n);``
                self.local_sizes[node_text(made_name)] = self._value(arguments[0], env)
                continue
            name_node, value = decl, None
            if decl.type == "init_declarator":
                name_node = decl.child_by_field_name("declarator") or decl
                value = decl.child_by_field_name("value")
            if name_node.type == "reference_declarator" and value is not None:
                self._element_alias(node, value, env, cond)
                continue
            if name_node.type != "identifier":
                if value is not None:
                    self._expr(value, env, cond)
                    self._alias_check(value, node_text(name_node))
                continue
            name = node_text(name_node)
            if _is_vector_type(node.child_by_field_name("type")):
                first = value.named_children[0] if value is not None else None
                sized = value is not None and value.type == "argument_list" and first is not None
                self.local_sizes[name] = (
                    self._value(first, env)
                    if sized and first is not None
                    else (Interval.exact(Poly.const(0)) if value is None else None)
                )
            if value is None:
                env[name] = Interval()
                continue
            self._expr(value, env, cond)
            self._alias_check(value, name)
            stable = self.mutations.get(name, 0) == 0 or name in self.clamped
            start = self._value(value, env)
            self._set(name, start)
            env[name] = start if stable else self.ranges.get(name, Interval())
            for n in walk(value):
                if n.type == "field_expression" and node_text(n).startswith("threadIdx."):
                    self.axis[name] = node_text(n).split(".")[-1]

    def _element_alias(self, node: Node, value: Node, env: dict[str, Interval], cond: bool) -> None:
        """``T& p = a[i];`` may write ``a[i]`` through ``p``; ``const T& p = a[i];`` reads."""
        const = any(node_text(c) == "const" for c in node.children)
        if value.type == "identifier" and node_text(value) in self.refs:
            self._ref(node_text(value), read=True, write=not const, cond=cond)
            return
        if not self._access(value, env, cond, read=True, write=not const):
            self._expr(value, env, cond)
            self._alias_check(value, "a local reference")

    def _ref(self, name: str, *, read: bool, write: bool, cond: bool) -> None:
        conditional = cond or self.loop_depth > 0
        self.refs[name].accesses.append(_Access(read, write, Interval(), conditional))

    def _alias_check(self, value: Node, name: str) -> None:
        target = self._target(value)
        if target is not None:
            self._whole(target[0], f"aliased by the local pointer {name!r}")

    def _for(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        scope = dict(env)
        init = node.child_by_field_name("initializer")
        if init is not None:
            self._stmt(init, scope, cond)
        condition = node.child_by_field_name("condition")
        if condition is not None:
            self._expr(condition, scope, cond)
        var, rng = self._loop_range(node, scope)
        if var is not None:
            scope[var] = rng
        grows = rng.hi is not None and bool(rng.hi.names)
        self.loop_depth += 1
        self.size_depth += grows
        self.work_degree = max(self.work_degree, self.size_depth)
        body = node.child_by_field_name("body")
        if body is not None:
            self._stmt(body, scope, cond)
        update = node.child_by_field_name("update")
        if update is not None:
            self._expr(update, scope, cond)
        self.loop_depth -= 1
        self.size_depth -= grows

    def _loop_range(self, node: Node, env: dict[str, Interval]) -> tuple[str | None, Interval]:
        init = node.child_by_field_name("initializer")
        condition = node.child_by_field_name("condition")
        update = node.child_by_field_name("update")
        if init is None or condition is None or update is None:
            return None, Interval()
        start_of = loop_start(init)
        if start_of is None:
            return None, Interval()
        var, start = start_of.var, start_of.value
        body = node.child_by_field_name("body")
        if body is not None and _mutated(body, var):
            return var, Interval()  # the body moves the counter: no range
        step = _direction(update, var)
        cmp = _comparison_with(condition, var)
        if cmp is None or step == 0:
            return var, Interval()
        op, bound_node, terms = cmp
        bound = self._value(bound_node, env)
        for sign, term in terms:
            # ``i + k <= n`` with ``k`` a kernel's length: ``i <= n - k`` (``k`` known exactly)
            by = self._value(term, env)
            if by.lo is None or by.lo != by.hi:
                return var, Interval()
            bound = bound - by if sign > 0 else bound + by
        self.bound_names += sorted(bound.hi.names) if bound.hi is not None else []
        self.bound_names += [
            node_text(n)
            for read in (bound_node, *(term for _, term in terms))
            for n in walk(read)
            if n.type == "identifier"
            and node_text(n) in self.params
            and self.params[node_text(n)].kind is ParamKind.SCALAR
        ]
        first = self._value(start, env)
        one = Poly.const(1)
        if step > 0 and op in ("<", "!=") and bound.hi is not None:
            return var, Interval(first.lo, bound.hi - one)
        if step > 0 and op == "<=":
            return var, Interval(first.lo, bound.hi)
        if step < 0 and op == ">=":
            return var, Interval(bound.lo, first.hi)
        if step < 0 and op == ">" and bound.lo is not None:
            return var, Interval(bound.lo + one, first.hi)
        return var, Interval()

    def _if(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        condition = node.child_by_field_name("condition")
        guarded = dict(env)
        data_dependent = cond
        if condition is not None:
            self._expr(condition, env, cond)
            value = condition.child_by_field_name("value") or condition
            data_dependent = cond or _reads_memory(value)
            guarded.update(self._guards(value, env, negate=False))
        consequence = node.child_by_field_name("consequence")
        if consequence is not None:
            self._stmt(consequence, guarded, data_dependent)
        alternative = node.child_by_field_name("alternative")
        if alternative is not None:
            self._stmt(alternative, dict(env), data_dependent)

    def _early_exit(self, node: Node, env: dict[str, Interval]) -> None:
        """``if (i >= n) return;`` bounds ``i`` for the rest of the block."""
        consequence = node.child_by_field_name("consequence")
        condition = node.child_by_field_name("condition")
        if node.child_by_field_name("alternative") is not None or consequence is None:
            return
        exits = consequence
        if exits.type == "compound_statement" and exits.named_child_count == 1:
            exits = exits.named_children[0]
        if exits.type not in ("return_statement", "continue_statement") or condition is None:
            return
        value = condition.child_by_field_name("value") or condition
        env.update(self._guards(value, env, negate=True))

    def _guards(
        self, cond: Node, env: Mapping[str, Interval], *, negate: bool
    ) -> dict[str, Interval]:
        joiner = "||" if negate else "&&"
        out: dict[str, Interval] = {}
        for cmp in _conjuncts(cond, joiner):
            op = node_text(cmp.child_by_field_name("operator") or cmp)
            left, right = cmp.child_by_field_name("left"), cmp.child_by_field_name("right")
            if left is None or right is None or op not in _NEGATE:
                continue
            if negate:
                op = _NEGATE[op]
            if right.type == "identifier" and left.type != "identifier":
                left, right, op = right, left, FLIPPED[op]
            if left.type != "identifier":
                continue
            name = node_text(left)
            current = out.get(name) or env.get(name, Interval())
            bound = self._value(right, env)
            one = Poly.const(1)
            if op == "<" and bound.hi is not None:
                current = current.with_hi(bound.hi - one)
            elif op == "<=" and bound.hi is not None:
                current = current.with_hi(bound.hi)
            elif op == ">" and bound.lo is not None:
                current = current.with_lo(bound.lo + one)
            elif op == ">=" and bound.lo is not None:
                current = current.with_lo(bound.lo)
            out[name] = current
            if name in self.axis and current.hi is not None:
                self.thread_extent[self.axis[name]] = current.hi + one
        return out

    # expressions ------------------------------------------------------------------------

    def _expr(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        kind = node.type
        if kind == "assignment_expression":
            self._assignment(node, env, cond)
        elif kind == "update_expression":
            argument = node.child_by_field_name("argument")
            ref = _base_identifier(argument) if argument is not None else None
            if ref in self.refs:
                self._ref(ref, read=True, write=True, cond=cond)
            elif argument is not None:
                self._lvalue(argument, env, cond, read=True)
        elif kind == "identifier" and node_text(node) in self.refs:
            self._ref(node_text(node), read=True, write=False, cond=cond)
        elif kind in ("subscript_expression", "pointer_expression"):
            if not self._access(node, env, cond, read=True, write=False):
                self._children(node, env, cond)
        elif kind == "call_expression":
            self._call(node, env, cond)
        else:
            self._children(node, env, cond)

    def _assignment(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = node_text(node.child_by_field_name("operator") or node)
        if right is not None:
            self._expr(right, env, cond)
        if left is None:
            return
        if self.loop_depth > 0 and left.type == "identifier":
            # ``s = s + x`` as well as ``s += x``: what the reduction rewriter calls a sum
            sums = (
                op == "=" and right is not None and is_sum_of(strip_parens(right), node_text(left))
            )
            self.accumulates |= op in ("+=", "-=") or sums
        ref = _base_identifier(left)
        if ref in self.refs:
            partial = left.type != "identifier"
            self._ref(ref, read=op != "=" or partial, write=True, cond=cond)
            if partial:
                self._children(left, env, cond)
        else:
            self._lvalue(left, env, cond, read=op != "=")
        if right is not None and left.type == "identifier":
            self._alias_check(right, node_text(left))
            if op == "=":
                self._set(node_text(left), self._value(right, env))

    def _set(self, name: str, value: Interval) -> None:
        """A value an :attr:`only_set` local takes."""
        if name in self.only_set:
            before = self.assigned.get(name)
            self.assigned[name] = value if before is None else before.join(value)

    def _children(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        for child in node.named_children:
            self._expr(child, env, cond)

    def _lvalue(self, node: Node, env: dict[str, Interval], cond: bool, *, read: bool) -> None:
        while node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        element = self._member_target(node)
        if element is not None:
            # ``a[i].x = v`` writes one member of ``a[i]``: the others keep their values.
            self._access(element, env, cond, read=True, write=True)
            current = node
            while current != element:
                indices = current.child_by_field_name("indices")
                if current.type == "subscript_expression" and indices is not None:
                    self._expr(indices, env, cond)
                inner = current.child_by_field_name("argument")
                if inner is None:
                    break
                current = inner
            return
        if not self._access(node, env, cond, read=read, write=True):
            self._expr(node, env, cond)

    def _access(
        self, node: Node, env: dict[str, Interval], cond: bool, *, read: bool, write: bool
    ) -> bool:
        """Record ``a[e]`` / ``a.at(e)`` / ``*(a + e)`` on a tracked array; False if it is
        not one."""
        subscript = _subscript(node)
        if subscript is not None:
            array, index_node = subscript
            name = node_text(array)
            if name not in self.tracked:
                return False
            self._expr(index_node, env, cond)
            index = self._value(index_node, env)
        elif node.type == "pointer_expression":
            operator = node_text(node.child_by_field_name("operator") or node)
            argument = node.child_by_field_name("argument")
            target = self._target(argument) if argument is not None else None
            if target is None:
                return False
            if operator == "&":
                self._whole(target[0], f"its address is taken in {node_text(node)!r}")
                return True
            name, index = target
            assert argument is not None
            self._children(argument, env, cond)
            index = self._target_offset(argument, env)
        else:
            return False
        if index.hi is None and self.tracked[name].length_unknown is None:
            self.tracked[name].length_unknown = f"the index in {node_text(node)!r} has no bound"
        self.tracked[name].accesses.append(_Access(read, write, index, cond))
        return True

    def _member_target(self, node: Node) -> Node | None:
        """The tracked element ``a[i]`` of a member lvalue ``a[i].x`` or ``a[i].pos[k]``."""
        current, through_member = node, False
        while current.type in ("field_expression", "subscript_expression"):
            if current.type == "field_expression":
                if _arrow(current):
                    return None
                through_member = True
            inner = current.child_by_field_name("argument")
            if inner is None:
                return None
            if (
                current.type == "subscript_expression"
                and inner.type == "identifier"
                and node_text(inner) in self.tracked
            ):
                return current if through_member else None
            current = inner
        return None

    def _target(self, node: Node) -> tuple[str, Interval] | None:
        """``a`` or ``a + e`` (through parentheses and casts) for a tracked array ``a``."""
        while node.type in ("parenthesized_expression", "cast_expression"):
            inner = node.child_by_field_name("value") or node.named_children[-1]
            node = inner
        if node.type == "identifier" and node_text(node) in self.tracked:
            return node_text(node), Interval.exact(Poly.const(0))
        if node.type == "binary_expression":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            op = node_text(node.child_by_field_name("operator") or node)
            if left is not None and right is not None and op in "+-":
                for a in (left, right) if op == "+" else (left,):
                    if a.type == "identifier" and node_text(a) in self.tracked:
                        return node_text(a), Interval()
        return None

    def _target_offset(self, node: Node, env: dict[str, Interval]) -> Interval:
        while node.type in ("parenthesized_expression", "cast_expression"):
            node = node.child_by_field_name("value") or node.named_children[-1]
        if node.type != "binary_expression":
            return Interval.exact(Poly.const(0))
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        assert left is not None and right is not None
        op = node_text(node.child_by_field_name("operator") or node)
        if left.type == "identifier" and node_text(left) in self.tracked:
            offset = self._value(right, env)
            return -offset if op == "-" else offset
        return self._value(left, env)

    def _whole(self, name: str, reason: str) -> None:
        usage = self.tracked.get(name)
        if usage is None:
            return
        usage.role_unknown = usage.role_unknown or reason
        usage.length_unknown = usage.length_unknown or reason

    def _call(self, node: Node, env: dict[str, Interval], cond: bool) -> None:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        args = list(arguments.named_children) if arguments is not None else []
        if (
            function is not None
            and function.type == "field_expression"
            and self._method_call(function, args, env, cond)
        ):
            return
        name = node_text(function) if function is not None else ""
        if name in _SWAPS:  # ``std::swap(m[a], m[b])`` reads and writes both elements
            for arg in args:
                if arg.type == "identifier" and node_text(arg) in self.refs:
                    self._ref(node_text(arg), read=True, write=True, cond=cond)
                else:
                    self._lvalue(arg, env, cond, read=True)
            return
        for arg in args:
            if arg.type == "identifier" and node_text(arg) in self.refs:
                # passed on, perhaps by reference: read and perhaps written
                self._ref(node_text(arg), read=True, write=True, cond=cond)
            elif self._target(arg) is None:
                self._expr(arg, env, cond)
        if name in _COPIES or name in _FILLS:
            self._bulk(name, args, env, cond)
            return
        # ``axpy<float>(...)`` calls the template ``axpy`` defined in the file
        callee = self.ctx.functions.get(name) or self.ctx.functions.get(name.split("<")[0])
        for position, arg in enumerate(args):
            target = self._target(arg)
            if target is None:
                continue
            if callee is None or callee == self.fn or self.depth >= _MAX_DEPTH:
                self._whole(target[0], f"it is passed to {name!r}, whose body is not in this file")
                continue
            offset = self._target_offset(arg, env)
            self._through(
                callee, args, position=position, name=target[0], offset=offset, env=env, cond=cond
            )

    def _method_call(
        self, function: Node, args: list[Node], env: dict[str, Interval], cond: bool
    ) -> bool:
        """``obj.method(args)``: True when handled whole (a tracked or local vector)."""
        obj = function.child_by_field_name("argument")
        method = node_text(function.child_by_field_name("field") or function)
        if obj is None:
            return False
        if obj.type == "identifier" and node_text(obj) in self.tracked:
            self._vector_method(node_text(obj), method, args, env, cond)
            return True
        local = node_text(obj) if obj.type == "identifier" else ""
        if local in self.local_sizes:
            for arg in args:
                self._expr(arg, env, cond)
            if method in ("resize", "assign") and args and not cond and self.loop_depth == 0:
                self.local_sizes[local] = self._value(args[0], env)
            elif method not in _SIZE_METHODS and method not in ("reserve", "data", "at"):
                self.local_sizes[local] = None
            return True
        ref = _base_identifier(obj)
        if ref in self.refs:
            self._ref(ref, read=True, write=True, cond=cond)
        elif not self._access(obj, env, cond, read=True, write=True):
            # a method of an element (``a[i].normalize()``) may change it
            self._expr(obj, env, cond)
        return False

    def _through(
        self,
        callee: Node,
        args: list[Node],
        *,
        position: int,
        name: str,
        offset: Interval,
        env: dict[str, Interval],
        cond: bool,
    ) -> None:
        """Follow ``name`` into a helper or kernel, mapping its parameters to our arguments."""
        try:
            params = entry_params(callee, self.ctx.aliases, "helper", constants=self.ctx.constants)
        except TaskError as err:
            self._whole(name, f"it is passed to a helper the analysis cannot read ({err})")
            return
        if position >= len(params) or params[position].kind is ParamKind.SCALAR:
            self._whole(name, "it is passed to a helper in an unexpected position")
            return
        inner = _Analyzer(callee, params, self.ctx, self.depth + 1)
        inner.run()
        mapping = {
            p.name: self._value(a, env)
            for p, a in zip(params, args, strict=False)
            if p.kind is ParamKind.SCALAR
        }
        usage = inner.tracked[params[position].name]
        mine = self.tracked[name]
        if usage.role_unknown:
            mine.role_unknown = mine.role_unknown or usage.role_unknown
        if usage.length_unknown:
            mine.length_unknown = mine.length_unknown or usage.length_unknown
        self.accumulates |= inner.accumulates
        for access in usage.accesses:
            index = offset + Interval(
                _substitute(access.index.lo, mapping, low=True),
                _substitute(access.index.hi, mapping, low=False),
            )
            if index.hi is None:
                mine.length_unknown = mine.length_unknown or "a helper's index has no bound here"
            conditional = cond or access.conditional
            mine.accesses.append(_Access(access.read, access.write, index, conditional))

    def _vector_method(
        self, name: str, method: str, args: list[Node], env: dict[str, Interval], cond: bool
    ) -> None:
        for arg in args:
            self._expr(arg, env, cond)
        usage = self.tracked[name]
        if method in _SIZE_METHODS:
            return
        if method in ("resize", "assign") and args:
            usage.resized = self._value(args[0], env)
            usage.accesses.append(_Access(False, True, Interval(), cond))
            exact = usage.resized.lo == usage.resized.hi and not cond and self.loop_depth == 0
            usage.size_now = usage.resized.hi if exact else None
        elif method in _GROW_METHODS:
            first = not usage.accesses and not usage.grows
            usage.grows = True
            usage.size_now = None
            usage.accesses.append(_Access(False, True, Interval(), cond))
            if method == "clear" and first and not cond and self.loop_depth == 0:
                usage.cleared = True
                self.local_sizes[name] = Interval.exact(Poly.const(0))
            else:  # an append the appending-loop shape does not size, or a later clear
                self.local_sizes.pop(name, None)
        elif method == "at" and args:
            usage.accesses.append(_Access(True, False, self._value(args[0], env), cond))
        else:
            self._whole(name, f"its method {method!r} is called")

    def _bulk(self, name: str, args: list[Node], env: dict[str, Interval], cond: bool) -> None:
        """``memcpy``/``memset`` families: the byte count bounds the touched elements."""
        if len(args) < 3:
            return
        size = self._value(args[2], env)
        for position, arg in enumerate(args[:2]):
            target = self._target(arg)
            if target is None:
                continue
            if position == 1 and name in _FILLS:
                continue
            try:
                itemsize = numpy_dtype(
                    self.params[target[0]].element, records=self.ctx.records
                ).itemsize
            except TaskError:
                self._whole(target[0], f"its element size is unknown to {name!r}")
                continue
            count = size.divided(Interval.exact(Poly.const(itemsize)))
            offset = self._target_offset(arg, env)
            last = None if count.hi is None else count.hi - Poly.const(1)
            index = offset + Interval(Poly.const(0), last)
            self.tracked[target[0]].accesses.append(
                _Access(position == 1, position == 0, index, cond)
            )

    # values -----------------------------------------------------------------------------

    def _value(self, node: Node, env: Mapping[str, Interval]) -> Interval:
        kind = node.type
        if kind in ("number_literal", "sizeof_expression"):
            return _literal(node) if kind == "number_literal" else _sizeof(node, self.ctx.records)
        if kind == "identifier":
            return env.get(node_text(node), Interval())
        if kind in ("parenthesized_expression", "cast_expression"):
            inner = node.child_by_field_name("value") or node.named_children[-1]
            return self._value(inner, env)
        if kind == "unary_expression":
            op = node_text(node.child_by_field_name("operator") or node)
            argument = node.child_by_field_name("argument")
            if argument is None or op not in "+-":
                return Interval()
            value = self._value(argument, env)
            return -value if op == "-" else value
        if kind == "binary_expression":
            return self._binary(node, env)
        if kind == "field_expression":
            obj = node.child_by_field_name("argument")
            base = node_text(obj) if obj is not None else ""
            if base in _THREAD:
                return Interval(Poly.const(_THREAD[base]), None)
        if kind == "call_expression":
            return self._size_call(node, env)
        if kind == "subscript_expression":
            return self._element_value(node)
        if kind == "conditional_expression":
            return self._conditional(node, env)
        return Interval()

    def _conditional(self, node: Node, env: Mapping[str, Interval]) -> Interval:
        """``c ? a : b``: either branch, each under what its side of ``c`` says."""
        condition = node.child_by_field_name("condition")
        consequence = node.child_by_field_name("consequence")
        alternative = node.child_by_field_name("alternative")
        if condition is None or consequence is None or alternative is None:
            return Interval()
        taken = self._value(consequence, {**env, **self._narrowed(condition, env, negate=False)})
        other = self._value(alternative, {**env, **self._narrowed(condition, env, negate=True)})
        return taken.join(other)

    def _min_max(self, name: str, args: list[Node], env: Mapping[str, Interval]) -> Interval:
        """``std::min(a, b)`` is at most any argument's maximum and at least the smallest
        minimum; ``std::max(a, b)`` is ``-min(-a, -b)``."""
        values = [self._value(a, env) for a in args]
        if name == "max":
            values = [-v for v in values]
        hi: Poly | None = None
        for v in values:
            if v.hi is not None:
                hi = v.hi if hi is None else (smaller(hi, v.hi) or hi)
        lo: Poly | None = values[0].lo
        for v in values[1:]:
            lo = None if lo is None or v.lo is None else smaller(lo, v.lo)
        result = Interval(lo, hi)
        return -result if name == "max" else result

    def _element_value(self, node: Node) -> Interval:
        """An element of a tracked array of unsigned integers is at least 0."""
        argument = node.child_by_field_name("argument")
        param = self.params.get(node_text(argument)) if argument is not None else None
        if param is None or param.name not in self.tracked or not is_arithmetic(param.element):
            return Interval()
        kind = numpy_dtype(param.element).kind
        return Interval(Poly.const(0), None) if kind in "ub" else Interval()

    def _size_call(self, node: Node, env: Mapping[str, Interval]) -> Interval:
        """``v.size()`` of a tracked vector: its size variable (an array's: its extent);
        ``static_cast<T>(e)``: ``e``'s value; any other call: unknown."""
        function = node.child_by_field_name("function")
        if function is not None and function.type == "field_expression":
            obj = function.child_by_field_name("argument")
            method = node_text(function.child_by_field_name("field") or function)
            if obj is not None and node_text(obj) in self.tracked and method == "size":
                size = self._container_size(node_text(obj))
                return Interval() if size is None else Interval.exact(size)
        arguments = node.child_by_field_name("arguments")
        called = node_text(function).split("<")[0] if function is not None else ""
        if (
            called in ("min", "max", "std::min", "std::max")
            and called not in self.ctx.functions
            and arguments is not None
            and arguments.named_child_count >= 2
            and all(a.type != "initializer_list" for a in arguments.named_children)
        ):
            return self._min_max(called.split("::")[-1], arguments.named_children, env)
        if function is not None and function.type == "template_function":
            name = function.child_by_field_name("name")
            arguments = node.child_by_field_name("arguments")
            if (
                name is not None
                and node_text(name) in _CASTS
                and arguments is not None
                and arguments.named_child_count == 1
            ):
                return self._value(arguments.named_children[0], env)
        return Interval()

    def _binary(self, node: Node, env: Mapping[str, Interval]) -> Interval:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return Interval()
        op = node_text(node.child_by_field_name("operator") or node)
        a, b = self._value(left, env), self._value(right, env)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a.divided(b)
        if op == "%":
            return a.modulo(b)
        shift = b.lo.constant if b.lo is not None and b.lo == b.hi else None
        if op in ("<<", ">>") and shift is not None and shift >= 0:
            factor = Interval.exact(Poly.const(2 ** int(shift)))
            return a * factor if op == "<<" else a.divided(factor)
        return Interval()


def _literal(node: Node) -> Interval:
    try:
        number = evaluate(node_text(node), {}, where="literal")
    except TaskError:
        return Interval()
    return Interval.exact(Poly.const(number)) if isinstance(number, int) else Interval()


def _sizeof(node: Node, records: tuple[Record, ...]) -> Interval:
    type_node = node.child_by_field_name("type")
    try:
        size = numpy_dtype(node_text(type_node) if type_node else "", records=records).itemsize
    except TaskError:
        return Interval()
    return Interval.exact(Poly.const(size))


def _substitute(poly: Poly | None, mapping: Mapping[str, Interval], *, low: bool) -> Poly | None:
    if poly is None:
        return None
    total = Interval.exact(Poly.const(0))
    for monomial, coefficient in poly.terms:
        term = Interval.exact(Poly.const(coefficient))
        for name in monomial:
            term = term * mapping.get(name, Interval.exact(Poly.var(name)))
        total = total + term
    return total.lo if low else total.hi


def _direction(update: Node, var: str) -> int:
    """+1 for ``i++``/``i += c``, -1 for ``i--``/``i -= c`` (c a positive literal), else 0."""
    if update.type == "update_expression":
        op = node_text(update.child_by_field_name("operator") or update)
        return 1 if op == "++" else -1
    if update.type == "assignment_expression":
        op = node_text(update.child_by_field_name("operator") or update)
        right = update.child_by_field_name("right")
        if op in ("+=", "-=") and right is not None:
            try:
                step = evaluate(node_text(right), {}, where="step")
            except TaskError:
                return 1 if op == "+=" else -1
            positive = step > 0
            return (1 if positive else -1) * (1 if op == "+=" else -1)
    return 0


def _conjuncts(node: Node, joiner: str) -> list[Node]:
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    if node.type == "binary_expression":
        op = node_text(node.child_by_field_name("operator") or node)
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op == joiner and left is not None and right is not None:
            return _conjuncts(left, joiner) + _conjuncts(right, joiner)
        return [node]
    return []


def _comparison_with(
    condition: Node, var: str
) -> tuple[str, Node, tuple[tuple[int, Node], ...]] | None:
    """``(op, bound, terms)`` for ``var + terms op bound`` (``terms`` empty for
    ``var op bound``)."""
    for cmp in _conjuncts(condition, "&&"):
        found = compared_bound(cmp, var)
        if found is not None:
            return found[0], found[1], ()
        shifted = shifted_comparison(cmp, var)
        if shifted is not None and shifted.op in _NEGATE:
            return shifted.op, shifted.bound, shifted.terms
    return None


def _subscript(node: Node) -> tuple[Node, Node] | None:
    """``(a, e)`` for ``a[e]`` or ``a.at(e)`` (the element with its bounds checked: what
    ``y.at(i) = v`` writes is ``y[i]``), ``a`` a name."""
    if node.type == "subscript_expression":
        argument, arguments = node.child_by_field_name("argument"), "indices"
    elif node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None or function.type != "field_expression" or _arrow(function):
            return None
        field = function.child_by_field_name("field")
        if field is None or node_text(field) != "at":
            return None
        argument, arguments = function.child_by_field_name("argument"), "arguments"
    else:
        return None
    inside = node.child_by_field_name(arguments)
    if argument is None or argument.type != "identifier" or inside is None:
        return None
    return (argument, inside.named_children[0]) if inside.named_child_count == 1 else None


def _clamp_assignment(stmt: Node) -> tuple[str, Node] | None:
    """``(v, e)`` for ``if (c) v = e;`` (braces allowed, no ``else``)."""
    if stmt.type != "if_statement" or stmt.child_by_field_name("alternative") is not None:
        return None
    body = stmt.child_by_field_name("consequence")
    if body is not None and body.type == "compound_statement" and body.named_child_count == 1:
        body = body.named_children[0]
    if body is None or body.type != "expression_statement" or body.named_child_count != 1:
        return None
    assignment = body.named_children[0]
    if assignment.type != "assignment_expression":
        return None
    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    op = node_text(assignment.child_by_field_name("operator") or assignment)
    if op != "=" or left is None or right is None or left.type != "identifier":
        return None
    return node_text(left), right


def _reads_memory(node: Node) -> bool:
    """A condition that reads arrays or calls functions depends on the data, not the shape."""
    return any(
        n.type in ("subscript_expression", "call_expression")
        or (n.type == "pointer_expression" and node_text(n).startswith("*"))
        for n in walk(node)
    )


def infer_usage(fn: Node, params: tuple[Parameter, ...], ctx: FileContext) -> Inferred:
    analyzer = _Analyzer(fn, params, ctx, 0)
    analyzer.run()
    ranges = {
        name: value
        for name, value in analyzer.assigned.items()
        if value.lo is not None and value.hi is not None
    }
    if ranges:  # ``best = i`` in a loop: ``v[best]`` is within what ``i`` ranges over
        analyzer = _Analyzer(fn, params, ctx, 0, ranges=ranges)
        analyzer.run()
    roles: dict[str, Role | None] = {}
    lengths: dict[str, Poly | None] = {}
    reasons: dict[str, str] = {}
    for name, usage in analyzer.tracked.items():
        param = analyzer.params[name]
        final = analyzer.local_sizes.get(name) if usage.cleared else None
        role, length, reason = _decide(param, usage, final)
        roles[name], lengths[name] = role, length
        if reason:
            reasons[name] = reason
    for name, ref in analyzer.refs.items():
        roles[name] = _reference_role(ref)
    returned = analyzer.returned
    single = returned[0] if returned and all(r == returned[0] for r in returned) else None
    return_length = None
    if single is not None and analyzer.local_sizes.get(single) is not None:
        size = analyzer.local_sizes[single]
        if size is not None and size.hi is not None and size.lo == size.hi:
            return_length = size.hi
    order: list[str] = []
    candidates = list(analyzer.bound_names)
    for poly in lengths.values():
        candidates += sorted(poly.names) if poly is not None else []
    for name in candidates:
        if name not in order:
            order.append(name)
    return Inferred(
        roles,
        lengths,
        reasons,
        tuple(order),
        analyzer.accumulates,
        analyzer.thread_extent,
        single,
        return_length,
        analyzer.work_degree,
        tuple(
            name
            for name, usage in analyzer.tracked.items()
            if usage.grows and not usage.cleared and analyzer.params[name].kind is ParamKind.VECTOR
        ),
    )


def _reference_role(ref: _Reference) -> Role:
    """``out`` when the first use is an unconditional plain assignment, ``in`` when the
    function never writes it, ``inout`` otherwise."""
    if not any(a.write for a in ref.accesses):
        return Role.IN
    first = ref.accesses[0]
    return Role.OUT if first.write and not first.read and not first.conditional else Role.INOUT


def _decide(
    param: Parameter, usage: _Usage, final: Interval | None = None
) -> tuple[Role | None, Poly | None, str | None]:
    """Role, length (or why none) of a pointer, array or container parameter; ``final``:
    the exact length a vector the function cleared first ends with, if known."""
    role = _role(param, usage)
    if param.container is not None and not param.reference and param.kind is not ParamKind.SPAN:
        role = Role.IN  # a copy: the caller's container never changes (a span is a view)
    if param.kind is ParamKind.ARRAY:
        extent = Poly.const(int(param.extent))
        if role is Role.OUT and not _writes_cover(usage, extent - Poly.const(1), whole=True):
            role = Role.INOUT
        return role, extent, None if role is not None else usage.role_unknown
    if usage.grows and param.kind is ParamKind.VECTOR:
        if role is None:
            return None, None, usage.role_unknown
        only_written = not any(a.read for a in usage.accesses)
        role = Role.OUT if role is Role.INOUT and only_written else role
        if final is not None and final.hi is not None and final.lo == final.hi:
            return role, final.hi, None  # cleared, then filled: the caller's length is moot
        if usage.cleared:
            return (
                role,
                None,
                (
                    "it is cleared, then grown by push_back to a length the analysis cannot "
                    "know (one push_back per iteration of a loop counting from 0 can be); "
                    "annotate the most it can hold"
                ),
            )
        return role, Poly.const(0), None  # refused as ``Inferred.appended_to``
    resized = usage.resized
    if resized is not None and resized.hi is not None and resized.lo == resized.hi:
        return role, resized.hi, None
    length, reason = _highest_index(usage)
    if length is None:
        return role, None, reason
    exact = length + Poly.const(1)
    rounded = exact.rounded_up()
    if role is Role.OUT and not _writes_cover(usage, length, whole=rounded == exact):
        role = Role.INOUT
    return role, rounded, None


def _role(param: Parameter, usage: _Usage) -> Role | None:
    accesses = usage.accesses
    if param.const or not any(a.write for a in accesses):
        return Role.IN if (param.const or not usage.role_unknown) else None
    if usage.role_unknown:
        return None
    first = accesses[0]
    return Role.INOUT if first.read or first.conditional else Role.OUT


def _highest_index(usage: _Usage) -> tuple[Poly | None, str]:
    """The largest index used, or why it is not known."""
    reason = usage.length_unknown
    if not usage.accesses and reason is None:
        reason = "the function never indexes it"
    if reason is not None:
        return None, reason
    highs = [a.index.hi for a in usage.accesses if a.index.hi is not None]
    if len(highs) < len(usage.accesses):
        return None, "some of its indices have no bound"
    # No single bound dominates (``i - 1`` in a loop that may not run against ``0``): a
    # polynomial above all of them is still a sound, if generous, length.
    return greatest(highs) or dominating(highs), "no bound"


def _writes_cover(usage: _Usage, length: Poly, *, whole: bool) -> bool:
    """The writes alone cover ``[0, length]``: an output needs no initial contents."""
    writes = [a for a in usage.accesses if a.write]
    lows = [a.index.lo for a in writes]
    if not whole or any(lo is None for lo in lows):
        return False
    start: Poly | None = Poly.const(0)
    for lo in lows:
        start = None if start is None or lo is None else smaller(start, lo)
    highs = [w.index.hi for w in writes]
    if any(hi is None for hi in highs):
        return False
    highest = greatest([hi for hi in highs if hi is not None])
    return start == Poly.const(0) and highest == length


def _integral(ctype: str) -> bool:
    return is_arithmetic(ctype) and numpy_dtype(ctype).kind in "iu"


def _arrow(node: Node) -> bool:
    operator = node.child_by_field_name("operator")
    return operator is not None and node_text(operator) == "->"


def _base_identifier(node: Node | None) -> str | None:
    """``p`` of ``p``, ``(p)``, ``p.x`` or ``p.pos.y``; None for anything else."""
    while node is not None:
        if node.type == "identifier":
            return node_text(node)
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        elif node.type == "field_expression" and not _arrow(node):
            node = node.child_by_field_name("argument")
        else:
            return None
    return None


def _writes(body: Node, var: str) -> bool:
    """Whether ``body`` may write the variable ``var`` (or a member of it)."""
    for n in walk(body):
        target = None
        if n.type == "assignment_expression":
            target = n.child_by_field_name("left")
        elif n.type == "update_expression" or (
            n.type == "pointer_expression" and node_text(n).startswith("&")
        ):
            target = n.child_by_field_name("argument")
        elif n.type == "call_expression":
            function = n.child_by_field_name("function")
            arguments = n.child_by_field_name("arguments")
            if (
                function is not None
                and function.type == "field_expression"
                and _base_identifier(function.child_by_field_name("argument")) == var
            ):
                return True
            for arg in arguments.named_children if arguments is not None else ():
                if arg.type == "identifier" and node_text(arg) == var:
                    return True
        while target is not None and target.type == "subscript_expression":
            target = target.child_by_field_name("argument")
        if target is not None and _base_identifier(target) == var:
            return True
    return False


def _is_vector_type(node: Node | None) -> bool:
    """``std::vector<T>`` / ``vector<T>`` as a declaration's type."""
    if node is not None and node.type == "qualified_identifier":
        node = node.child_by_field_name("name")
    if node is None or node.type != "template_type":
        return False
    name = node.child_by_field_name("name")
    return name is not None and node_text(name) == "vector"


def _mutated(body: Node, var: str) -> bool:
    """``var`` is assigned or incremented somewhere in ``body``."""
    return any(t.type == "identifier" and node_text(t) == var for t in assignment_targets(body))
