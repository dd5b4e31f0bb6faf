"""What the loop analysis finds, and the state its parts share.

The analysis of a loop (:mod:`regrapht_core.cxx.dependence`) is split by question: which
calls the body may make (:mod:`~regrapht_core.cxx.calls`), which scalars it reduces
(:mod:`~regrapht_core.cxx.reductions`), which elements each iteration owns
(:mod:`~regrapht_core.cxx.ownership`). Each part extends :class:`LoopScope`, the loop under
analysis and the facts found so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from regrapht_core.cxx.entry import EntryFunction
from regrapht_core.cxx.loops import CountedLoop
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit
from regrapht_core.cxx.symbols import DEVICE_MATH, FileSymbols, local_names

__all__ = [
    "Access",
    "LoopFacts",
    "LoopScope",
    "Reduction",
    "ReductionOp",
    "quote",
]


class ReductionOp(StrEnum):
    SUM = "sum"
    MIN = "min"
    MAX = "max"
    PRODUCT = "product"


@dataclass(frozen=True, slots=True)
class Reduction:
    var: str
    op: ReductionOp
    type: str


@dataclass(frozen=True, slots=True)
class Access:
    array: str
    index: Node
    """The index as the analysis reads it: locals that never change after their definition
    read as their initializers, widening integer casts dropped
    (:mod:`regrapht_core.cxx.definitions`). It may belong to a tree of its own; positions
    are those of :attr:`node`."""
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
    integers: dict[str, int] = field(default_factory=dict)
    """The file's integer constants defined as literals that no name of the entry shadows
    (``constexpr int R = 1;``): what a bound such as ``w - R`` may be read with."""
    guards: list[str] = field(default_factory=list)
    """Conditions the ownership proof had to assume, as host expressions of names the loop
    leaves unchanged (``0 <= cols``, ``cols <= pitch``): the iterations own disjoint rows
    only when all of them hold, so the loop runs on the GPU only then and as written
    otherwise (``rewrite.assemble``)."""
    sub_rows: dict[str, frozenset[int]] = field(default_factory=dict)
    """Per array written by rows, the inner loops (by their node's start byte) whose
    iterations each own a sub-row of the row: every access is ``S*i + j*B + r`` with ``j``
    inside ``[0, S/B)`` and ``r`` inside ``[0, B)`` (``ownership.OwnershipAnalysis.digits``),
    so a 2-D mapping may give each ``(i, j)`` a thread of its own."""

    @property
    def written(self) -> set[str]:
        return {a.array for a in self.accesses if a.write}

    @property
    def read(self) -> set[str]:
        return {a.array for a in self.accesses if a.read}


def quote(node: Node) -> str:
    snippet = " ".join(node_text(node).split())
    return f"`{snippet[:60]}{'...' if len(snippet) > 60 else ''}`"


class LoopScope:
    """The loop under analysis, its names, and the facts found so far."""

    def __init__(self, entry: EntryFunction, symbols: FileSymbols) -> None:
        self.entry, self.symbols = entry, symbols
        self.loop = entry.loop
        self.facts = LoopFacts(entry.loop)
        self.body_locals = local_names(self.loop.body)
        self.params = {p.name: p for p in entry.params}
        self.checked_helpers: set[str] = set()
        self.device_tables: set[int] = set()
        """Namespace-scope constant arrays already moved to the device, by declaration."""
        outer = set(self.params) | set(entry.locals) | {self.loop.var}
        shadowed = sorted(self.body_locals & outer)
        if shadowed:
            raise Refusal(f"the loop body redeclares `{shadowed[0]}`, which shadows an outer name")

    def file_root(self) -> Node:
        """The translation unit the entry is defined in."""
        root = self.entry.definition
        while root.parent is not None:
            root = root.parent
        return root

    def math_call(self, call: Node) -> str | None:
        """The function name when ``call`` is a device math function, else ``None``."""
        function = call.child_by_field_name("function")
        if function is None:
            return None
        if function.type == "identifier" and node_text(function) in DEVICE_MATH:
            return node_text(function)
        libcu = _libcu_name(function)
        if libcu is not None:
            return libcu
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


_LIBCU = frozenset(
    {
        "abs", "arg", "norm", "conj", "proj", "polar", "real", "imag", "exp", "log",
        "log10", "sqrt", "pow", "sin", "cos", "tan", "sinh", "cosh", "tanh",
        "complex", "pair", "make_pair",
    }
)  # fmt: skip
"""libcu++ functions and types (``cuda::std::``) usable in device code as calls: the
spelling the pointer form gives complex and pair code (see ``rewrite.device_types``)."""


def _libcu_name(function: Node) -> str | None:
    """``abs`` of ``cuda::std::abs``, ``complex`` of ``cuda::std::complex<float>``."""
    text = "".join(node_text(function).split())
    if not text.startswith("cuda::std::"):
        return None
    leaf = text.removeprefix("cuda::std::").split("<", 1)[0]
    return leaf if leaf in _LIBCU else None
