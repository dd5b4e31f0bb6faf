"""The house rules of docs/architecture.md, checked on the code's own imports.

Each rule is one that a refactor once had to restore; these tests keep it so. They read the
sources with ``ast`` (nothing is imported), so a violation names the file and the import.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "regrapht_core"
SERVER = ROOT / "server" / "regrapht_server"

FLOORS = {
    "contracts": 1,
    "errors": 1,
    "datatypes": 1,
    "files": 1,
    "lifetime": 1,
    "similarity": 1,
    "cxx": 1,
    "tasks": 2,
    "model": 2,
    "graph": 2,
    "verify": 3,
    "rewrite": 3,
    "search": 4,
    "optimize": 5,
    "api": 6,
    "checkup": 6,
    "cli": 6,
    "bench": 6,
    "__main__": 6,
}
"""Top-level part of ``regrapht_core`` → floor. A module imports from its own floor or the
floors below it, never above; parts on one floor import each other without a circle
(docs/architecture.md draws them)."""

MAX_SERVER_CORE_MODULES = 6


def _sources(folder: Path) -> Iterator[Path]:
    yield from sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> Iterator[tuple[str, int]]:
    """Every imported module name (``from a.b import c`` gives ``a.b`` and ``a.b.c``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
            for alias in node.names:
                yield f"{node.module}.{alias.name}", node.lineno


def _part(path: Path) -> str:
    relative = path.relative_to(CORE)
    return relative.parts[0].removesuffix(".py")


def test_every_core_part_has_a_floor() -> None:
    parts = {_part(p) for p in _sources(CORE)} - {"__init__"}
    assert parts <= FLOORS.keys(), f"give these a floor here and in docs: {parts - FLOORS.keys()}"


def test_imports_run_down_the_floors_only() -> None:
    wrong = []
    for path in _sources(CORE):
        part = _part(path)
        if part == "__init__":
            continue
        for name, line in _imports(path):
            if not name.startswith("regrapht_core."):
                continue
            target = name.split(".")[1]
            if target in FLOORS and FLOORS[target] > FLOORS[part]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} ({part}) imports {name}")
    assert not wrong, "\n".join(sorted(set(wrong)))


def test_no_two_parts_import_each_other() -> None:
    graph: dict[str, set[str]] = {}
    for path in _sources(CORE):
        for name, _ in _imports(path):
            if name.startswith("regrapht_core.") and name.split(".")[1] in FLOORS:
                graph.setdefault(_part(path), set()).add(name.split(".")[1])
    circles = []
    for start, targets in graph.items():
        seen, stack = set(), [n for n in targets if n != start]
        while stack:
            node = stack.pop()
            if node == start:
                circles.append(start)
                break
            if node not in seen:
                seen.add(node)
                stack.extend(n for n in graph.get(node, ()) if n != node)
    assert not circles, f"parts on an import circle: {sorted(circles)}"


def test_only_cxx_imports_tree_sitter() -> None:
    importers = {
        str(path.relative_to(ROOT))
        for folder in (CORE, SERVER)
        for path in _sources(folder)
        for name, _ in _imports(path)
        if name.split(".")[0] in {"tree_sitter", "tree_sitter_cpp", "tree_sitter_cuda"}
    }
    assert all(p.startswith("regrapht_core/cxx/") for p in importers), sorted(importers)


def test_search_knows_no_verifier_model_or_rewriter() -> None:
    allowed = (
        "regrapht_core.contracts",
        "regrapht_core.errors",
        "regrapht_core.search",
        "regrapht_core.similarity",  # plain text ranking: how alike two codes are
    )
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _sources(CORE / "search")
        for name, line in _imports(path)
        if name.startswith("regrapht_core.") and not name.startswith(allowed)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_server_calls_a_handful_of_core_modules() -> None:
    modules = set()
    for path in _sources(SERVER):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("regrapht_core"):
                modules.add(node.module)
            elif isinstance(node, ast.Import):
                modules.update(a.name for a in node.names if a.name.startswith("regrapht_core"))
    assert len(modules) <= MAX_SERVER_CORE_MODULES, sorted(modules)


def _writes_environment(node: ast.AST) -> bool:
    """``os.environ[k] = v``, ``del os.environ[k]``, ``os.environ.update/pop/...``, ``putenv``."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store | ast.Del):
        return ast.unparse(node.value).endswith("environ")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner, method = ast.unparse(node.func.value), node.func.attr
        mutators = {"update", "pop", "popitem", "setdefault", "clear", "__setitem__"}
        return (owner.endswith("environ") and method in mutators) or method in {
            "putenv",
            "unsetenv",
        }
    return False


@pytest.mark.parametrize("folder", [CORE, SERVER], ids=["core", "server"])
def test_nothing_writes_the_process_environment(folder: Path) -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in _sources(folder)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if _writes_environment(node)
    ]
    assert not wrong, wrong


def test_no_module_is_named_after_a_standard_library_module() -> None:
    shadowing = [
        str(path.relative_to(ROOT))
        for folder in (CORE, SERVER)
        for path in _sources(folder)
        if path.stem in sys.stdlib_module_names
    ]
    assert not shadowing, shadowing
