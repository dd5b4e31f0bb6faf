"""Launch-configuration tuning: block sizes to time, bounds to promise, grids sized by SMs.

The verifier, not a model, knows which configuration is fastest on this GPU, so this
rewriter returns one candidate per configuration: every other block size of 128, 256, 512
and 1024 (each with a matching ``__launch_bounds__`` so the compiler budgets registers for
it), and for kernels that cover their data whatever the grid (grid-stride loops) a grid
capped at ``blocks_per_sm`` (default 16) blocks per multiprocessor.

A launch is tunable when its block size is a literal, or a variable initialised with one,
and its grid is either derived from that variable or spelled ``(x + B-1) / B``. Kernels that
size shared memory or anything else by the block are left alone (only the 32-entry per-warp
arrays of a reduction are known to be safe for every size).
"""

from __future__ import annotations

from dataclasses import dataclass

from regrapht_core.cxx.affine import literal_int, mentions
from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.syntax import NameAllocator, declared_name, parse, strip_parens
from regrapht_core.rewrite.kernels import Kernel, enclosing_function, kernels, launches
from regrapht_core.rewrite.launch_grid import capped_grid_edits, is_dim3
from regrapht_core.rewrite.protocol import (
    RefusingRewriter,
    RewriteCandidate,
    RewriteContext,
    RewriteParams,
)

__all__ = ["LaunchConfiguration"]

_BLOCK_SIZES = (128, 256, 512, 1024)


@dataclass(frozen=True, slots=True)
class _Site:
    """Where a launch's block size lives and how its grid follows it."""

    current: int
    value: Node
    """The literal to replace (in the launch or in the block variable's initialiser)."""
    grid_literal: Node | None
    """``(x + B-1) / B``: the division to respell; ``None`` when the grid follows a variable."""


def _initialiser(function: Node, name: str) -> Node | None:
    found = None
    for node in walk(function):
        if node.type == "init_declarator":
            target = declared_name(node)
            if target is not None and node_text(target) == name:
                found = node.child_by_field_name("value")
        elif node.type == "assignment_expression":
            left = node.child_by_field_name("left")
            if left is not None and node_text(left) == name:
                return None
    return found


def _site(launch: Node) -> _Site:
    syntax = next(c for c in launch.children if c.type == "kernel_call_syntax")
    grid, block = (strip_parens(n) for n in syntax.named_children[:2])
    function = enclosing_function(launch)
    if function is None or is_dim3(grid, function) or is_dim3(block, function):
        raise Refusal("2-D launches (dim3) are not tuned")
    size = literal_int(block)
    if size is not None:
        if grid.type != "binary_expression" or node_text(grid.children[1]) != "/":
            raise Refusal(f"the grid `{node_text(grid)}` is not `(n + {size - 1}) / {size}`")
        divisor = grid.child_by_field_name("right")
        numerator = grid.child_by_field_name("left")
        numerator = strip_parens(numerator) if numerator is not None else None
        added = numerator.child_by_field_name("right") if numerator is not None else None
        if (
            divisor is None
            or literal_int(divisor) != size
            or added is None
            or literal_int(added) != size - 1
        ):
            raise Refusal(f"the grid `{node_text(grid)}` is not `(n + {size - 1}) / {size}`")
        return _Site(size, block, grid)
    if block.type != "identifier":
        raise Refusal(f"the block size `{node_text(block)}` is neither a literal nor a variable")
    value = _initialiser(function, node_text(block))
    size = literal_int(value) if value is not None else None
    if value is None or size is None:
        raise Refusal(f"the block size `{node_text(block)}` is not set from a literal")
    if not _follows(function, grid, node_text(block)):
        raise Refusal(f"the grid `{node_text(grid)}` does not follow the block size")
    return _Site(size, value, None)


def _follows(function: Node, expr: Node, block: str, depth: int = 4) -> bool:
    """``expr`` is computed from ``block``, directly or through initialised locals."""
    if mentions(expr, block):
        return True
    if depth == 0:
        return False
    for name in {node_text(n) for n in walk(expr) if n.type == "identifier"}:
        value = _initialiser(function, name)
        if value is not None and _follows(function, value, block, depth - 1):
            return True
    return False


def _block_sized(kernel: Kernel) -> str | None:
    for node in walk(kernel.body):
        if node.type == "declaration" and "__shared__" in node_text(node):
            arrays = [s for s in walk(node) if s.type == "array_declarator"]
            sizes = [literal_int(a.child_by_field_name("size") or a) for a in arrays]
            if sizes != [32]:
                return f"`{kernel.name}` sizes shared memory for a particular block size"
    return None


def _bounds_edit(kernel: Kernel, size: int) -> Edit:
    existing = next((c for c in kernel.definition.children if c.type == "launch_bounds"), None)
    if existing is not None:
        return Edit.replace(existing, f"__launch_bounds__({size})")
    declarator = kernel.definition.child_by_field_name("declarator")
    assert declarator is not None
    return Edit.insert(declarator.start_byte, f"__launch_bounds__({size}) ")


def _resize(site: _Site, size: int) -> list[Edit]:
    edits = [Edit.replace(site.value, str(size))]
    if site.grid_literal is not None:
        numerator = strip_parens(site.grid_literal.child_by_field_name("left") or site.grid_literal)
        added = numerator.child_by_field_name("right")
        divisor = site.grid_literal.child_by_field_name("right")
        assert added is not None and divisor is not None
        edits += [Edit.replace(added, str(size - 1)), Edit.replace(divisor, str(size))]
    return edits


def _grid_stride(kernel: Kernel) -> bool:
    return any(
        n.type == "for_statement" and "gridDim" in node_text(n.child_by_field_name("update") or n)
        for n in walk(kernel.body)
    )


class LaunchConfiguration(RefusingRewriter):
    technique = "launch_configuration"

    def build(
        self, code: str, context: RewriteContext, params: RewriteParams
    ) -> list[RewriteCandidate]:
        root = parse(code).root_node
        source = code.encode("utf-8")
        tunable: list[tuple[Kernel, list[_Site], list[Node]]] = []
        reasons = []
        for kernel in kernels(root):
            sites_nodes = launches(root, kernel.name)
            why = _block_sized(kernel) or (
                None if sites_nodes else f"`{kernel.name}` is never launched here"
            )
            if why is None:
                try:
                    sites = [_site(s) for s in sites_nodes]
                except Refusal as refusal:
                    why = refusal.reason
            if why is not None:
                reasons.append(why)
                continue
            if len({s.current for s in sites}) != 1:
                reasons.append(f"`{kernel.name}` is launched with different block sizes")
                continue
            tunable.append((kernel, sites, sites_nodes))
        if not tunable:
            raise Refusal("; ".join(reasons) or "the code launches no kernel")
        current = {s.current for _, sites, _ in tunable for s in sites}
        candidates = []
        for size in _BLOCK_SIZES:
            if current == {size}:
                continue
            edits = []
            for kernel, sites, _ in tunable:
                edits.append(_bounds_edit(kernel, size))
                for site in sites:
                    edits += _resize(site, size)
            candidates.append(
                RewriteCandidate(
                    apply_edits(source, edits),
                    f"launched with {size} threads per block and __launch_bounds__({size})",
                )
            )
        strided = [nodes for kernel, _, nodes in tunable if _grid_stride(kernel)]
        per_sm = int(params.get("blocks_per_sm", 16))
        capped = capped_grid_edits(
            root, [n for group in strided for n in group], per_sm, NameAllocator(root)
        )
        if capped:
            candidates.append(
                RewriteCandidate(
                    apply_edits(source, capped),
                    f"sized grid-stride grids from the SM count ({per_sm} blocks per SM)",
                )
            )
        return candidates
