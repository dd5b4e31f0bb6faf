"""Grids sized from the device: a host helper that caps a launch at N blocks per SM.

Only valid for kernels that cover their data whatever the grid (grid-stride loops, the
reduction kernels); callers decide that. 1-D launches only: a ``dim3`` grid is left alone.
"""

from __future__ import annotations

from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit
from regrapht_core.cxx.syntax import NameAllocator, declared_name
from regrapht_core.rewrite.kernels import enclosing_function

__all__ = ["capped_grid_edits", "capped_grid_helper", "is_dim3"]


def capped_grid_helper(name: str) -> str:
    """A host function ``name(wanted, blocks_per_sm)``: ``wanted`` blocks, at most
    ``blocks_per_sm`` per multiprocessor of the current device."""
    return "\n".join(
        [
            f"static unsigned int {name}(long long wanted, int blocks_per_sm) {{",
            "  int device = 0;",
            "  int sms = 0;",
            "  if (cudaGetDevice(&device) != cudaSuccess ||",
            "      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != "
            "cudaSuccess ||",
            "      sms <= 0) {",
            "    return static_cast<unsigned int>(wanted);",
            "  }",
            "  const long long cap = static_cast<long long>(sms) * blocks_per_sm;",
            "  return static_cast<unsigned int>(wanted < cap ? wanted : cap);",
            "}",
            "",
        ]
    )


def is_dim3(expr: Node, scope: Node | None) -> bool:
    """Whether ``expr`` is (or names a variable declared as) a ``dim3``."""
    if "dim3" in node_text(expr):
        return True
    if expr.type != "identifier" or scope is None:
        return False
    for node in walk(scope):
        if node.type == "declaration":
            for declarator in node.children_by_field_name("declarator"):
                name = declared_name(declarator)
                if name is not None and node_text(name) == node_text(expr):
                    return "dim3" in node_text(node.child_by_field_name("type") or node)
    return False


def capped_grid_edits(
    root: Node, sites: list[Node], per_sm: int, names: NameAllocator
) -> list[Edit]:
    """Edits capping every 1-D launch in ``sites`` (none when any of them is not 1-D)."""
    grids = []
    for site in sites:
        syntax = next(c for c in site.children if c.type == "kernel_call_syntax")
        grid, block = syntax.named_children[0], syntax.named_children[1]
        function = enclosing_function(site)
        if is_dim3(grid, function) or is_dim3(block, function):
            return []
        grids.append(grid)
    if not grids:
        return []
    helper = names.fresh("capped_grid")
    first = next(c for c in root.named_children if c.type not in ("preproc_include", "comment"))
    edits = [Edit.insert(first.start_byte, capped_grid_helper(helper))]
    edits += [Edit.replace(g, f"{helper}({node_text(g)}, {per_sm})") for g in grids]
    return edits
