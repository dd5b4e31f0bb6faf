"""Can the iterations of the entry's loop run at once? The proof, or the reason not.

The analysis is deliberately syntactic and conservative. It accepts a loop when every name
the body uses means the same on the device, every array it writes is accessed only inside
the slice the current iteration owns (see :mod:`regrapht_core.cxx.affine`), no scalar
from outside the loop is written except as a recognised reduction (sum, min, max, count),
and control never leaves the loop early. Everything it cannot prove is a refusal with the
offending code quoted, because a wrong "parallel" answer is worse than none.

Pointer arguments are assumed not to alias each other: the verifier passes distinct
buffers, and the generated wrapper copies each one to its own device allocation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from regrapht_core.cxx.affine import Affine, affine, literal_int, mentions, stride_key
from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.loops import CountedLoop, counted_loop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit
from regrapht_core.cxx.symbols import DEVICE_MATH, IO_NAMES, FileSymbols, local_names
from regrapht_core.cxx.syntax import canon, strip_parens

__all__ = ["Access", "LoopFacts", "Reduction", "ReductionOp", "analyse_loop"]

_BREAK_TARGETS = frozenset(
    {"for_statement", "while_statement", "do_statement", "for_range_loop", "switch_statement"}
)
_CONTINUE_TARGETS = _BREAK_TARGETS - {"switch_statement"}
_MAX_CALLS = frozenset({"fmaxf", "fmax", "max"})
_MIN_CALLS = frozenset({"fminf", "fmin", "min"})
_REDUCIBLE_TYPES = frozenset(
    {
        "float",
        "double",
        "int",
        "unsigned",
        "unsigned int",
        "long",
        "long int",
        "unsigned long",
        "long long",
        "long long int",
        "unsigned long long",
        "size_t",
        "std::size_t",
        "int32_t",
        "uint32_t",
        "int64_t",
        "uint64_t",
    }
)


class ReductionOp(StrEnum):
    SUM = "sum"
    MIN = "min"
    MAX = "max"


@dataclass(frozen=True, slots=True)
class Reduction:
    var: str
    op: ReductionOp
    type: str


@dataclass(frozen=True, slots=True)
class Access:
    array: str
    index: Node
    write: bool
    read: bool
    node: Node
    """The subscript expression."""


@dataclass(slots=True)
class LoopFacts:
    loop: CountedLoop
    accesses: list[Access] = field(default_factory=list)
    reductions: list[Reduction] = field(default_factory=list)
    helpers: set[str] = field(default_factory=set)
    edits: list[Edit] = field(default_factory=list)
    """Changes device code needs (``std::max`` -> ``max``, helpers marked for the device)."""
    used: set[str] = field(default_factory=set)
    """Parameters and prelude locals the loop (body or bounds) reads."""
    outer_continues: list[Node] = field(default_factory=list)
    inner_loops: dict[str, list[CountedLoop]] = field(default_factory=dict)
    """Counted inner loops by variable; sibling loops may reuse a name."""
    unowned: str = ""
    """Why iterations may touch each other's elements; empty when disjointness is proven
    (only set when the analysis was asked not to refuse for it)."""

    @property
    def written(self) -> set[str]:
        return {a.array for a in self.accesses if a.write}

    @property
    def read(self) -> set[str]:
        return {a.array for a in self.accesses if a.read}


def _quote(node: Node) -> str:
    snippet = " ".join(node_text(node).split())
    return f"`{snippet[:60]}{'...' if len(snippet) > 60 else ''}`"


def _operator(node: Node) -> str:
    op = node.child_by_field_name("operator")
    return node_text(op) if op is not None else node_text(node.children[1])


def _is_sum_of(value: Node, name: str) -> bool:
    """``name + e``, ``name - e`` or ``e + name`` with ``e`` free of ``name``."""
    if value.type != "binary_expression" or _operator(value) not in ("+", "-"):
        return False
    left, other = value.child_by_field_name("left"), value.child_by_field_name("right")
    if left is None or other is None:
        return False
    if canon(left) == name and not mentions(other, name):
        return True
    return _operator(value) == "+" and canon(other) == name and not mentions(left, name)


class _Analysis:
    def __init__(self, entry: EntryFunction, symbols: FileSymbols) -> None:
        self.entry, self.symbols = entry, symbols
        self.loop = entry.loop
        self.facts = LoopFacts(entry.loop)
        self.body_locals = local_names(self.loop.body)
        self.params = {p.name: p for p in entry.params}
        self.checked_helpers: set[str] = set()
        outer = set(self.params) | set(entry.locals) | {self.loop.var}
        shadowed = sorted(self.body_locals & outer)
        if shadowed:
            raise Refusal(f"the loop body redeclares `{shadowed[0]}`, which shadows an outer name")

    # -- the whole loop --------------------------------------------------------------------

    def run(self, prove_ownership: bool) -> LoopFacts:
        self.bounds()
        self.control_flow()
        self.inner_loops()
        candidates = self.writes()
        self.names()
        self.calls(self.loop.body, self.body_locals | {self.loop.var}, "the loop")
        self.reductions(candidates)
        try:
            self.ownership()
        except Refusal as refusal:
            if prove_ownership:
                raise
            self.facts.unowned = refusal.reason
        return self.facts

    def bounds(self) -> None:
        for bound in (self.loop.lower, self.loop.upper):
            for node in walk(bound):
                if node.type in ("subscript_expression", "pointer_expression") or (
                    node.type == "call_expression" and self.math_call(node) is None
                ):
                    raise Refusal(f"the loop bound {_quote(bound)} is not a plain expression")
                if node.type == "identifier" and node.parent is not None:
                    if node.parent.type == "call_expression":
                        continue
                    self.outer_name(node, "the loop bound")

    def outer_name(self, node: Node, where: str) -> None:
        """A name from outside the loop: a scalar parameter, prelude scalar or constant."""
        name = node_text(node)
        param = self.params.get(name)
        if param is not None:
            self.facts.used.add(name)
            return
        local = self.entry.locals.get(name)
        if local is not None:
            if not local.scalar:
                raise Refusal(
                    f"{where} uses `{name}`, a {local.type} local of the host code that "
                    "device code cannot see"
                )
            self.facts.used.add(name)
            return
        if self.symbols.plain_name(name) or name == self.loop.var:
            return
        if name in IO_NAMES:
            raise Refusal(f"{where} does I/O (`{name}`)")
        raise Refusal(f"{where} uses `{name}`, which device code cannot see")

    # -- control flow ----------------------------------------------------------------------

    def control_flow(self) -> None:
        for node in walk(self.loop.body):
            kind = node.type
            if kind == "return_statement":
                raise Refusal(f"the loop returns early ({_quote(node)}), so it cannot be split")
            if kind in ("goto_statement", "throw_statement", "labeled_statement"):
                raise Refusal(f"the loop uses {kind.split('_')[0]}, which cannot be split")
            if kind in ("lambda_expression", "gnu_asm_expression", "asm_statement"):
                raise Refusal(f"the loop contains {_quote(node)}, which is not supported")
            if kind == "storage_class_specifier" and node_text(node) == "static":
                raise Refusal("the loop declares a static variable, shared by all iterations")
            if kind == "break_statement" and self.target(node, _BREAK_TARGETS) is None:
                raise Refusal(
                    "the loop leaves early with `break`, so iterations are not independent"
                )
            if kind == "continue_statement" and self.target(node, _CONTINUE_TARGETS) is None:
                self.facts.outer_continues.append(node)

    def target(self, node: Node, kinds: frozenset[str]) -> Node | None:
        current = node.parent
        while current is not None and current != self.loop.node:
            if current.type in kinds:
                return current
            current = current.parent
        return None

    def inner_loops(self) -> None:
        for node in walk(self.loop.body):
            if node.type != "for_statement":
                continue
            try:
                inner = counted_loop(node)
            except Refusal:
                continue
            assigned = any(
                self.target_name(w) == inner.var for w in walk(inner.body) if self.is_write(w)
            )
            if not assigned:
                self.facts.inner_loops.setdefault(inner.var, []).append(inner)

    # -- writes ----------------------------------------------------------------------------

    @staticmethod
    def is_write(node: Node) -> bool:
        return node.type in ("assignment_expression", "update_expression")

    @staticmethod
    def written_node(node: Node) -> Node | None:
        field_name = "left" if node.type == "assignment_expression" else "argument"
        target = node.child_by_field_name(field_name)
        while target is not None:
            target = strip_parens(target)
            if target.type == "field_expression" and _operator(target) == ".":
                target = target.child_by_field_name("argument")
                continue
            return target
        return None

    def target_name(self, node: Node) -> str | None:
        target = self.written_node(node)
        return node_text(target) if target is not None and target.type == "identifier" else None

    def writes(self) -> dict[str, list[Node]]:
        """Check every write's target; return writes to outer scalars (reduction candidates)."""
        candidates: dict[str, list[Node]] = {}
        for node in walk(self.loop.body):
            if not self.is_write(node):
                continue
            target = self.written_node(node)
            if target is None:
                raise Refusal(f"cannot tell what {_quote(node)} writes")
            if target.type == "identifier":
                if self.outer_scalar_write(node_text(target), node):
                    candidates.setdefault(node_text(target), []).append(node)
                continue
            if self.array_write(target):
                continue
            if target.type == "pointer_expression":
                raise Refusal(f"the loop writes through a pointer ({_quote(node)})")
            raise Refusal(f"the loop writes {_quote(target)}, which is not supported")
        return candidates

    def outer_scalar_write(self, name: str, node: Node) -> bool:
        """``True`` for a write to a prelude scalar (a reduction candidate), ``False`` for a
        local of the body; a refusal for anything else."""
        if name in self.body_locals:
            return False
        if name == self.loop.var:
            raise Refusal(f"the body modifies the loop variable `{name}`")
        if name in self.params:
            raise Refusal(f"the loop modifies the parameter `{name}` ({_quote(node)})")
        if name in self.entry.locals and self.entry.locals[name].scalar:
            return True
        raise Refusal(f"the loop writes `{name}`, which device code cannot see")

    def array_write(self, target: Node) -> bool:
        """An element of a body-local array or of a pointer parameter."""
        if target.type != "subscript_expression":
            return False
        base = target.child_by_field_name("argument")
        if base is None or base.type != "identifier":
            return False
        name = node_text(base)
        return name in self.body_locals or (name in self.params and self.params[name].pointer)

    # -- names and array accesses ----------------------------------------------------------

    def names(self) -> None:
        for node in walk(self.loop.body):
            if node.type != "identifier" or node.parent is None:
                continue
            name = node_text(node)
            parent = node.parent
            if parent.type == "call_expression" and parent.child_by_field_name("function") == node:
                continue
            if parent.type == "qualified_identifier":
                self.qualified_name(parent)
                continue
            if name in self.body_locals or name == self.loop.var:
                continue
            param = self.params.get(name)
            if param is not None and param.pointer:
                self.pointer_use(node)
                continue
            self.outer_name(node, "the loop")

    def qualified_name(self, node: Node) -> None:
        """``std::sqrt(...)`` is checked as a call; ``std::cout`` and the like are refused."""
        holder = node.parent
        while holder is not None and holder.type == "qualified_identifier":
            node, holder = holder, holder.parent
        if (
            holder is not None
            and holder.type == "call_expression"
            and (holder.child_by_field_name("function") == node)
        ):
            return
        name = node.child_by_field_name("name")
        if name is not None and node_text(name) in IO_NAMES:
            raise Refusal(f"the loop does I/O (`{node_text(node)}`)")
        raise Refusal(f"the loop uses `{node_text(node)}`, which device code may not see")

    def pointer_use(self, node: Node) -> None:
        name = node_text(node)
        parent = node.parent
        assert parent is not None
        self.facts.used.add(name)
        if parent.type == "subscript_expression" and parent.child_by_field_name("argument") == node:
            indices = parent.child_by_field_name("indices")
            index = indices.named_children[0] if indices and indices.named_child_count else None
            if index is None or indices is None or indices.named_child_count != 1:
                raise Refusal(f"cannot read the index of {_quote(parent)}")
            outer = parent.parent
            if outer is not None and outer.type == "subscript_expression":
                raise Refusal(f"{_quote(outer)} indexes a pointer twice")
            write, read = self.access_kind(parent)
            self.facts.accesses.append(Access(name, index, write, read, parent))
            return
        self.facts.accesses.append(Access(name, node, False, True, node))

    def access_kind(self, subscript: Node) -> tuple[bool, bool]:
        target = subscript
        while target.parent is not None and target.parent.type in (
            "field_expression",
            "parenthesized_expression",
        ):
            if target.parent.type == "field_expression" and _operator(target.parent) != ".":
                break
            target = target.parent
        parent = target.parent
        if parent is None:
            return False, True
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") == target:
            return True, _operator(parent) != "="
        if parent.type == "update_expression":
            return True, True
        if parent.type == "pointer_expression" and node_text(parent.children[0]) == "&":
            raise Refusal(f"the loop takes the address {_quote(parent)}")
        return False, True

    # -- calls -----------------------------------------------------------------------------

    def math_call(self, call: Node) -> str | None:
        """The function name when ``call`` is a device math function, else ``None``."""
        function = call.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "identifier" and node_text(function) in DEVICE_MATH:
            return node_text(function)
        if function.type == "qualified_identifier":
            scope = function.child_by_field_name("scope")
            name = function.child_by_field_name("name")
            if (
                scope is not None
                and name is not None
                and node_text(scope) == "std"
                and name.type == "identifier"
                and node_text(name) in DEVICE_MATH
            ):
                return node_text(name)
        return None

    def calls(self, scope: Node, names: set[str], where: str) -> None:
        for node in walk(scope):
            if node.type != "call_expression":
                continue
            function = node.child_by_field_name("function")
            if function is None:
                raise Refusal(f"{where} makes a call without a name")
            if any(c.type == "kernel_call_syntax" for c in node.children):
                raise Refusal(f"{where} launches a kernel ({_quote(node)})")
            math = self.math_call(node)
            if math is not None:
                if function.type == "qualified_identifier" and math in ("min", "max"):
                    # std::min/max are host-only constexpr functions; CUDA's overloads are not.
                    self.facts.edits.append(Edit.replace(function, math))
                continue
            name = node_text(function)
            if function.type == "identifier" and name in names:
                raise Refusal(f"{where} calls `{name}` through a variable")
            if function.type == "identifier" and name in self.symbols.helpers:
                self.helper(name)
                continue
            if function.type == "identifier" and name in self.symbols.function_macros:
                continue
            leaf = node_text(function.child_by_field_name("name") or function)
            if leaf in IO_NAMES:
                raise Refusal(f"{where} does I/O ({_quote(node)})")
            raise Refusal(
                f"{where} calls `{name}`, which is neither defined in this file nor a "
                "device math function"
            )

    def helper(self, name: str) -> None:
        if name in self.checked_helpers:
            return
        self.checked_helpers.add(name)
        self.facts.helpers.add(name)
        where = f"the helper `{name}`"
        for definition in self.symbols.helpers[name]:
            if name in self.symbols.kernels:
                raise Refusal(f"the loop calls the kernel `{name}`")
            self.helper_parameters(definition, where)
            body = definition.child_by_field_name("body")
            if body is None:
                continue
            names = local_names(definition)
            self.helper_names(body, names, where)
            self.calls(body, names, where)
            if not any(c.type == "__device__" for c in definition.children):
                self.facts.edits.append(Edit.insert(definition.start_byte, "__host__ __device__ "))
        for prototype in self.symbols.prototypes.get(name, []):
            if not any(c.type == "__device__" for c in prototype.children):
                self.facts.edits.append(Edit.insert(prototype.start_byte, "__host__ __device__ "))

    @staticmethod
    def helper_parameters(definition: Node, where: str) -> None:
        """A helper may not take a non-const pointer, reference or array: it could write."""
        for parameter in walk(definition.child_by_field_name("declarator") or definition):
            if parameter.type != "parameter_declaration":
                continue
            declarator = parameter.child_by_field_name("declarator")
            const = any(node_text(c) == "const" for c in parameter.children)
            mutable = declarator is not None and declarator.type in (
                "pointer_declarator",
                "reference_declarator",
                "array_declarator",
            )
            if mutable and not const:
                raise Refusal(f"{where} takes {_quote(parameter)}, through which it may write")

    def helper_names(self, body: Node, names: set[str], where: str) -> None:
        """Every name a helper's body uses is its own, a compile-time value, or a call."""
        for node in walk(body):
            if node.type == "storage_class_specifier" and node_text(node) == "static":
                raise Refusal(f"{where} keeps a static variable")
            if node.type != "identifier" or node.parent is None:
                continue
            parent = node.parent
            if parent.type == "call_expression" and parent.child_by_field_name("function") == node:
                continue
            if node_text(node) in IO_NAMES:
                raise Refusal(f"{where} does I/O (`{node_text(parent)}`)")
            if parent.type == "qualified_identifier" or node_text(node) in names:
                continue
            if self.symbols.plain_name(node_text(node)):
                continue
            raise Refusal(f"{where} uses `{node_text(node)}`, which device code cannot see")

    # -- reductions ------------------------------------------------------------------------

    def reductions(self, candidates: dict[str, list[Node]]) -> None:
        for name, writes in candidates.items():
            ops, covered = set(), []
            for write in writes:
                op, region = self.reduction_step(name, write)
                ops.add(op)
                covered.append(region)
            if len(ops) != 1:
                raise Refusal(f"`{name}` is combined with different operations in the loop")
            for node in walk(self.loop.body):
                if node.type == "identifier" and node_text(node) == name:
                    inside = any(r.start_byte <= node.start_byte < r.end_byte for r in covered)
                    if not inside:
                        raise Refusal(
                            f"the loop reads `{name}` outside its update "
                            f"({_quote(node.parent or node)}), so its value carries from one "
                            "iteration to the next"
                        )
            kind = self.entry.locals[name].type
            plain = " ".join(w for w in kind.split() if w not in ("const", "volatile"))
            if plain not in _REDUCIBLE_TYPES:
                raise Refusal(f"`{name}` is a {kind}; reductions support int, long and float types")
            self.facts.reductions.append(Reduction(name, ops.pop(), plain))

    def reduction_step(self, name: str, write: Node) -> tuple[ReductionOp, Node]:
        """The operation a write to ``name`` performs, and the code it spans."""
        why = f"`{name}` is assigned in the loop ({_quote(write)}), but not as a sum, min or max"
        if write.type == "update_expression":
            return ReductionOp.SUM, write
        op = _operator(write)
        right = write.child_by_field_name("right")
        if right is None:
            raise Refusal(why)
        if op in ("+=", "-="):
            if mentions(right, name):
                raise Refusal(why)
            return ReductionOp.SUM, write
        if op != "=":
            raise Refusal(f"`{name}` is combined with `{op}`; only sums, min and max are reduced")
        value = strip_parens(right)
        if _is_sum_of(value, name):
            return ReductionOp.SUM, write
        extreme = self.extreme_call(value, name)
        if extreme is not None:
            return extreme, write
        if not mentions(value, name):
            guarded = self.guarded_extreme(name, write, value)
            if guarded is not None:
                return guarded
        raise Refusal(why)

    def extreme_call(self, value: Node, name: str) -> ReductionOp | None:
        """``max(name, e)`` / ``fminf(e, name)`` and the like, ``e`` free of ``name``."""
        if value.type != "call_expression" or value.child_by_field_name("function") is None:
            return None
        arguments = value.child_by_field_name("arguments")
        args: list[Node] = arguments.named_children if arguments else []
        called = self.math_call(value)
        if called not in _MAX_CALLS | _MIN_CALLS or len(args) != 2:
            return None
        mine = [a for a in args if canon(a) == name]
        rest = [a for a in args if canon(a) != name]
        if len(mine) == 1 and len(rest) == 1 and not mentions(rest[0], name):
            return ReductionOp.MAX if called in _MAX_CALLS else ReductionOp.MIN
        return None

    def guarded_extreme(
        self, name: str, write: Node, value: Node
    ) -> tuple[ReductionOp, Node] | None:
        """``if (e > m) m = e;`` (and its mirror images) as a max or min."""
        statement = write.parent
        if statement is None or statement.type != "expression_statement":
            return None
        holder = statement.parent
        if holder is not None and holder.type == "compound_statement":
            if holder.named_child_count != 1:
                return None
            holder = holder.parent
        if holder is None or holder.type != "if_statement":
            return None
        if holder.child_by_field_name("alternative") is not None:
            return None
        condition = holder.child_by_field_name("condition")
        test = strip_parens(condition.named_children[0]) if condition else None
        if test is None or test.type != "binary_expression":
            return None
        left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
        if left is None or right is None:
            return None
        op = _operator(test)
        greater = {">": True, ">=": True, "<": False, "<=": False}.get(op)
        if greater is None:
            return None
        if canon(left) == canon(value) and canon(right) == name:
            return (ReductionOp.MAX if greater else ReductionOp.MIN), holder
        if canon(right) == canon(value) and canon(left) == name:
            return (ReductionOp.MIN if greater else ReductionOp.MAX), holder
        return None

    # -- ownership of written arrays -------------------------------------------------------

    def invariant(self, node: Node) -> bool:
        reductions = {r.var for r in self.facts.reductions}
        for leaf in walk(node):
            if leaf.type in ("subscript_expression", "call_expression", "pointer_expression"):
                return False
            if leaf.type != "identifier":
                continue
            name = node_text(leaf)
            if name in self.body_locals or name == self.loop.var or name in reductions:
                return False
            param = self.params.get(name)
            if param is not None and param.pointer:
                return False
        return True

    def inner_offset(self, term: Node, stride: str, access: Node) -> bool:
        """``term`` is an inner loop variable running over ``[0, stride)`` around ``access``."""
        term = strip_parens(term)
        loops = self.facts.inner_loops.get(node_text(term), []) if term.type == "identifier" else []
        around = [
            loop for loop in loops if loop.body.start_byte <= access.start_byte < loop.body.end_byte
        ]
        if not around:
            return False
        inner = max(around, key=lambda loop: loop.body.start_byte)  # the innermost one
        return inner.inside(stride)

    def column_owned(self, access: Access, form: Affine) -> bool:
        """``k * S + i`` with ``i`` over ``[0, S)`` and ``k`` an inner loop variable around
        the access: each (k, i) is a distinct element, and iteration ``i`` owns column
        ``i`` whatever ``k`` is (``out[j * m + i]`` in a loop ``for (i = 0; i < m; ++i)``)."""
        loop = self.loop
        if form.sign < 0 or len(form.rest) != 1 or form.rest[0][0] < 0:
            return False
        if not loop.starts_at_zero() or loop.inclusive:
            return False
        term = form.rest[0][1]
        for name, inner_loops in self.facts.inner_loops.items():
            if not any(
                inner.body.start_byte <= access.node.start_byte < inner.body.end_byte
                for inner in inner_loops
            ):
                continue
            by_inner = affine(term, name)
            if (
                by_inner is not None
                and by_inner.sign > 0
                and not by_inner.rest
                and by_inner.stride == stride_key(loop.upper)
                and all(self.invariant(f) for f in by_inner.stride_factors)
            ):
                return True
        return False

    def ownership(self) -> None:
        var = self.loop.var
        for array in sorted(self.facts.written):
            accesses = [a for a in self.facts.accesses if a.array == array]
            forms: list[tuple[Access, Affine]] = []
            for access in accesses:
                if access.node.type != "subscript_expression":
                    raise Refusal(f"the loop writes `{array}` and also uses it as a pointer")
                form = affine(access.index, var)
                if form is None:
                    verb = "writes" if access.write else "reads"
                    raise Refusal(
                        f"the loop {verb} {_quote(access.node)} through an index that is not "
                        f"affine in `{var}`, so iterations may touch the same element"
                    )
                forms.append((access, form))
            self.check_slices(array, forms)

    def check_slices(self, array: str, forms: list[tuple[Access, Affine]]) -> None:
        first_access, first = forms[0]
        for access, form in forms:
            if (form.sign, form.stride) != (first.sign, first.stride):
                raise Refusal(
                    f"{_quote(access.node)} and {_quote(first_access.node)} index `{array}` "
                    "with different strides: a loop-carried dependence cannot be ruled out"
                )
            if not all(self.invariant(f) for f in form.stride_factors):
                raise Refusal(f"the stride in {_quote(access.node)} changes inside the loop")
        if first.stride == "":
            self.check_elements(forms)
        else:
            self.check_rows(array, forms)

    def check_elements(self, forms: list[tuple[Access, Affine]]) -> None:
        """Unit stride: every access is the same element, or each owns a column."""
        if all(self.column_owned(access, form) for access, form in forms):
            return
        first_access, first = forms[0]
        key = first.rest_key()
        for access, form in forms:
            if form.rest_key() != key or not all(self.invariant(n) for _, n in form.rest):
                raise Refusal(
                    f"the loop writes {_quote(first_access.node)} but also touches "
                    f"{_quote(access.node)}, which another iteration owns: "
                    "a loop-carried dependence"
                )

    def check_rows(self, array: str, forms: list[tuple[Access, Affine]]) -> None:
        """Stride ``S``: every access stays in ``[S*i, S*i + S)``, the row iteration i owns."""
        first = forms[0][1]
        literal_stride = (
            literal_int(first.stride_factors[0]) if len(first.stride_factors) == 1 else None
        )
        for access, form in forms:
            if form.sign < 0:
                raise Refusal(f"{_quote(access.node)} walks `{array}` backwards by rows")
            if len(form.rest) == 0 and literal_stride is not None and literal_stride > 0:
                continue
            single = len(form.rest) == 1 and form.rest[0][0] > 0
            if not single or not self.in_row(form.rest[0][1], first.stride, literal_stride, access):
                raise Refusal(
                    f"cannot prove {_quote(access.node)} stays inside the row of `{array}` "
                    "that its iteration owns"
                )

    def in_row(self, term: Node, stride: str, literal_stride: int | None, access: Access) -> bool:
        """The offset ``term`` stays in ``[0, stride)``: a literal, or an inner loop variable."""
        value = literal_int(term)
        if literal_stride is not None and value is not None and 0 <= value < literal_stride:
            return True
        return self.inner_offset(term, stride, access.node)


def analyse_loop(
    entry: EntryFunction, symbols: FileSymbols, *, prove_ownership: bool = True
) -> LoopFacts:
    """What the loop reads, writes and reduces, or a :class:`Refusal` saying what blocks it.

    ``prove_ownership=False`` does not refuse when the proof that iterations touch disjoint
    elements fails; ``LoopFacts.unowned`` says why instead. A scaffold whose body the model
    rewrites for concurrency (atomics) needs every other fact, and the verifier judges it.
    """
    return _Analysis(entry, symbols).run(prove_ownership)
