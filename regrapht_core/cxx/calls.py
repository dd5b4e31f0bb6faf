"""What the loop body may call on the device: math functions, and helpers of this file.

A helper the body calls must itself only use device-visible names and may not write
through its parameters; it gets ``__host__ __device__`` (its prototypes too).
"""

from __future__ import annotations

from regrapht_core.cxx.loop_scope import (
    LoopScope,
    quote,
)
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit
from regrapht_core.cxx.symbols import IO_NAMES, local_names

__all__ = ["CAST_OPERATORS", "CallAnalysis", "is_cast"]

CAST_OPERATORS = frozenset({"static_cast", "const_cast"})
"""Conversions spelled as calls: they mean the same on the device."""


def is_cast(function: Node | None) -> bool:
    """``static_cast<T>`` in ``static_cast<T>(x)``."""
    if function is None:
        return False
    name = function.child_by_field_name("name") if function.type == "template_function" else None
    return name is not None and node_text(name) in CAST_OPERATORS


class CallAnalysis(LoopScope):
    def calls(self, scope: Node, names: set[str], where: str) -> None:
        for node in walk(scope):
            if node.type != "call_expression":
                continue
            function = node.child_by_field_name("function")
            if function is None:
                raise Refusal(f"{where} makes a call without a name")
            if any(c.type == "kernel_call_syntax" for c in node.children):
                raise Refusal(f"{where} launches a kernel ({quote(node)})")
            if is_cast(function) or self.clamp(node, function):
                continue
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
                raise Refusal(f"{where} does I/O ({quote(node)})")
            raise Refusal(
                f"{where} calls `{name}`, which is neither defined in this file nor a "
                "device math function"
            )

    def clamp(self, call: Node, function: Node) -> bool:
        """``std::clamp(v, lo, hi)``, a host-only function, spelled as its definition on the
        device: ``v < lo ? lo : hi < v ? hi : v``; only for arguments without side effects
        (each may be evaluated twice)."""
        if "".join(node_text(function).split()) != "std::clamp":
            return False
        arguments = call.child_by_field_name("arguments")
        parts = arguments.named_children if arguments is not None else []
        effects = ("call_expression", "assignment_expression", "update_expression")
        if len(parts) != 3 or any(n.type in effects for part in parts for n in walk(part)):
            return False
        v, lo, hi = (f"({node_text(part)})" for part in parts)
        self.facts.edits.append(
            Edit.replace(call, f"({v} < {lo} ? {lo} : {hi} < {v} ? {hi} : {v})")
        )
        return True

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
                raise Refusal(f"{where} takes {quote(parameter)}, through which it may write")

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
