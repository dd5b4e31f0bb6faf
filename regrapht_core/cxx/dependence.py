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

from functools import cached_property

from regrapht_core.cxx.calls import CAST_OPERATORS, CallAnalysis, is_cast
from regrapht_core.cxx.definitions import IndexValues, integer_constants, is_integer_type
from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.loop_scope import (
    Access,
    LoopFacts,
    Reduction,
    ReductionOp,
    quote,
)
from regrapht_core.cxx.loops import counted_loop
from regrapht_core.cxx.ownership import OwnershipAnalysis
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.reductions import ReductionAnalysis
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit
from regrapht_core.cxx.symbols import IO_NAMES, ConstTable, FileSymbols
from regrapht_core.cxx.syntax import operator_text, strip_parens

__all__ = ["Access", "LoopFacts", "Reduction", "ReductionOp", "analyse_loop"]

_BREAK_TARGETS = frozenset(
    {"for_statement", "while_statement", "do_statement", "for_range_loop", "switch_statement"}
)
_CONTINUE_TARGETS = _BREAK_TARGETS - {"switch_statement"}


class _Analysis(CallAnalysis, ReductionAnalysis, OwnershipAnalysis):
    index_values: IndexValues

    def run(self, prove_ownership: bool, atomic: frozenset[str]) -> LoopFacts:
        self.bounds()
        self.control_flow()
        self.inner_loops()
        self.facts.integers = self.named_integers()
        self.index_values = IndexValues(
            self.loop, self.facts.inner_loops, self.outer_integers(), self.symbols.function_macros
        )
        candidates = self.writes()
        self.names()
        self.calls(self.loop.body, self.body_locals | {self.loop.var}, "the loop")
        self.reductions(candidates)
        try:
            self.ownership(atomic)
        except Refusal as refusal:
            if prove_ownership:
                raise
            self.facts.unowned = refusal.reason
        return self.facts

    def bounds(self) -> None:
        for bound in self.loop.bounds():
            for node in walk(bound):
                if node.type in ("subscript_expression", "pointer_expression") or (
                    node.type == "call_expression"
                    and self.math_call(node) is None
                    and not is_cast(node.child_by_field_name("function"))
                ):
                    raise Refusal(f"the loop bound {quote(bound)} is not a plain expression")
                if node.type == "identifier" and node.parent is not None:
                    if node.parent.type in ("call_expression", "template_function"):
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
        table = self.symbols.tables.get(name)
        if table is not None:
            self.device_table(name, table, where)
            return
        raise Refusal(f"{where} uses `{name}`, which device code cannot see")

    def device_table(self, name: str, table: ConstTable, where: str) -> None:
        """A namespace-scope constant array (filter taps, weights) becomes a ``__device__``
        one, initialised as written, which the kernel reads under the same name; so no
        code outside the loop may read it, as host code cannot see device memory. Global
        memory rather than ``__constant__``: the constant cache serialises reads whose
        index differs across a warp, and a later step (constant memory) is where a kernel's
        reads are proven uniform."""
        if table.qualifier.start_byte in self.device_tables:
            return
        loop, declaration = self.loop.node, table.declaration
        for node in walk(self.file_root()):
            if (
                node.type == "identifier"
                and node_text(node) == name
                and not loop.start_byte <= node.start_byte < loop.end_byte
                and not declaration.start_byte <= node.start_byte < declaration.end_byte
            ):
                raise Refusal(
                    f"{where} uses `{name}`, a constant array that code outside the loop also "
                    f"reads ({quote(node.parent or node)}), so it cannot move to the device"
                )
        self.device_tables.add(table.qualifier.start_byte)
        self.facts.edits.append(Edit.replace(table.qualifier, "__device__ const"))

    def control_flow(self) -> None:
        for node in walk(self.loop.body):
            kind = node.type
            if kind == "return_statement":
                raise Refusal(f"the loop returns early ({quote(node)}), so it cannot be split")
            if kind in ("goto_statement", "throw_statement", "labeled_statement"):
                raise Refusal(f"the loop uses {kind.split('_')[0]}, which cannot be split")
            if kind in ("lambda_expression", "gnu_asm_expression", "asm_statement"):
                raise Refusal(f"the loop contains {quote(node)}, which is not supported")
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

    def outer_integers(self) -> set[str]:
        """Integer names from outside the body that the loop does not change: what a named
        index may be defined from (:class:`~regrapht_core.cxx.definitions.IndexValues`)."""
        names = {self.loop.var} | self.symbols.enumerators | integer_constants(self.file_root())
        names |= {p.name for p in self.entry.params if not p.pointer and is_integer_type(p.element)}
        names |= {
            local.name
            for local in self.entry.locals.values()
            if local.scalar and is_integer_type(local.type)
        }
        written = {self.target_name(n) for n in walk(self.loop.body) if self.is_write(n)}
        return names - {name for name in written if name is not None}

    @staticmethod
    def is_write(node: Node) -> bool:
        return node.type in ("assignment_expression", "update_expression")

    @staticmethod
    def written_node(node: Node) -> Node | None:
        field_name = "left" if node.type == "assignment_expression" else "argument"
        target = node.child_by_field_name(field_name)
        while target is not None:
            target = strip_parens(target)
            if target.type == "field_expression" and operator_text(target) == ".":
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
                raise Refusal(f"cannot tell what {quote(node)} writes")
            if target.type == "identifier":
                if self.outer_scalar_write(node_text(target), node):
                    candidates.setdefault(node_text(target), []).append(node)
                continue
            if self.array_write(target):
                continue
            if target.type == "pointer_expression":
                raise Refusal(f"the loop writes through a pointer ({quote(node)})")
            raise Refusal(f"the loop writes {quote(target)}, which is not supported")
        return candidates

    def outer_scalar_write(self, name: str, node: Node) -> bool:
        """``True`` for a write to a prelude scalar (a reduction candidate), ``False`` for a
        local of the body; a refusal for anything else."""
        if name in self.body_locals:
            return False
        if name == self.loop.var:
            raise Refusal(f"the body modifies the loop variable `{name}`")
        if name in self.params:
            raise Refusal(f"the loop modifies the parameter `{name}` ({quote(node)})")
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
        if name in self.body_pointers:
            raise Refusal(
                f"the loop writes through `{name}`, a pointer it computes ({quote(target)}); "
                "index the parameter itself so the writes can be checked and copied back"
            )
        return name in self.body_locals or (name in self.params and self.params[name].pointer)

    @cached_property
    def body_pointers(self) -> set[str]:
        """Body locals declared as pointers (``float* row = out + k;``): aliases of buffers."""
        found = set()
        for node in walk(self.loop.body):
            if node.type == "pointer_declarator":
                inner = node.child_by_field_name("declarator")
                while inner is not None and inner.type == "pointer_declarator":
                    inner = inner.child_by_field_name("declarator")
                if inner is not None and inner.type == "identifier":
                    found.add(node_text(inner))
        return found

    def names(self) -> None:
        for node in walk(self.loop.body):
            if node.type != "identifier" or node.parent is None:
                continue
            name = node_text(node)
            parent = node.parent
            if parent.type == "call_expression" and parent.child_by_field_name("function") == node:
                continue
            if parent.type == "template_function" and (name in CAST_OPERATORS or _called(parent)):
                continue  # ``calls`` judges what is called
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
                raise Refusal(f"cannot read the index of {quote(parent)}")
            outer = parent.parent
            if outer is not None and outer.type == "subscript_expression":
                raise Refusal(f"{quote(outer)} indexes a pointer twice")
            write, read = self.access_kind(parent)
            value = self.index_values.value(index)
            self.facts.accesses.append(Access(name, value, write, read, parent))
            return
        self.facts.accesses.append(Access(name, node, False, True, node))

    def access_kind(self, subscript: Node) -> tuple[bool, bool]:
        target = subscript
        while target.parent is not None and target.parent.type in (
            "field_expression",
            "parenthesized_expression",
        ):
            if target.parent.type == "field_expression" and operator_text(target.parent) != ".":
                break
            target = target.parent
        parent = target.parent
        if parent is None:
            return False, True
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") == target:
            return True, operator_text(parent) != "="
        if parent.type == "update_expression":
            return True, True
        if parent.type == "pointer_expression" and node_text(parent.children[0]) == "&":
            raise Refusal(f"the loop takes the address {quote(parent)}")
        return False, True


def _called(function: Node) -> bool:
    """``function`` (under any ``a::b::`` qualification) is what a call calls."""
    holder = function
    while holder.parent is not None and holder.parent.type == "qualified_identifier":
        holder = holder.parent
    call = holder.parent
    return (
        call is not None
        and call.type == "call_expression"
        and call.child_by_field_name("function") == holder
    )


def analyse_loop(
    entry: EntryFunction,
    symbols: FileSymbols,
    *,
    prove_ownership: bool = True,
    atomic: frozenset[str] = frozenset(),
) -> LoopFacts:
    """What the loop reads, writes and reduces, or a :class:`Refusal` saying what blocks it.

    ``prove_ownership=False`` does not refuse when the proof that iterations touch disjoint
    elements fails; ``LoopFacts.unowned`` says why instead. A scaffold whose body the model
    rewrites for concurrency (atomics) needs every other fact, and the verifier judges it.
    ``atomic`` names arrays the caller will update atomically (``rewrite.atomics``): the
    proof leaves them out.
    """
    return _Analysis(entry, symbols).run(prove_ownership, atomic)
