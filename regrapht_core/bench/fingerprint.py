"""The engine a benchmark ran: a SHA-256 over the code a `regrapht bench run` can execute and
the package's data (the bundled snapshot), so that runs longer than one GPU lease resume and
merge across commits that changed anything else.

It used to cover every file of the package (issue 16's five-method run, engine 526981c0…),
so a run spanning several leases froze all work on the package while it lasted, task
generation and mining included, which no bench run executes. The code that counts is found
statically: the modules that ``bench/runner.py`` and ``bench/cli.py`` import, directly or
through one another (imports inside functions too), and the packages above each (Python
runs their ``__init__``). The command-line group above them (``cli.py``) is left out: it
imports every command, and only hands ``bench run`` its arguments. A module loaded by name
at run time (``importlib``) is not found this way; the package's only such loader,
``api.py``, is outside what a bench run imports.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = [
    "CONTINUED_ENGINES",
    "ENTRIES",
    "PACKAGE",
    "counted_as",
    "engine_files",
    "engine_fingerprint",
]

ENTRIES = ("bench/runner.py", "bench/cli.py")
"""What a bench run executes first, relative to the package."""

_REPORT_ONLY = frozenset({"bench/report.py"})
"""Package files that only read results: a report never changes what was measured."""


PACKAGE = Path(__file__).resolve().parents[1]


def engine_fingerprint(package: Path = PACKAGE) -> str:
    """SHA-256 over ``engine_files``, by path and content."""
    digest = hashlib.sha256()
    for path in sorted(engine_files(package)):
        digest.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


CONTINUED_ENGINES: dict[str, str] = {}
"""Earlier engines whose runs resume and merge with this engine's, each with why its
results still hold here: a fix to code that raised, which no completed search ran. Issue
16's run went on across such a fix (engine 526981c0…, docs/search.md); a change that could
alter a completed search, as this way of fingerprinting and the shared GPU lock do, empties
it."""


def counted_as(engine: str | None) -> str | None:
    """``engine`` as the engine it counts as: this one for an engine it continues."""
    return engine_fingerprint() if engine in CONTINUED_ENGINES else engine


def engine_files(package: Path) -> set[Path]:
    """The modules a bench run can import and every data file of the package."""
    files = {p for p in package.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    data = {p for p in files if p.suffix != ".py"}
    code = _closure(package, [package / entry for entry in ENTRIES])
    return {p for p in data | code if p.relative_to(package).as_posix() not in _REPORT_ONLY}


def _closure(package: Path, entries: Iterable[Path]) -> set[Path]:
    seen: set[Path] = set()
    todo = [path for path in entries if path.is_file()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(_inits_above(package, path))
        todo.extend(_imported(package, path))
    return seen


def _inits_above(package: Path, path: Path) -> Iterator[Path]:
    folder = path.parent
    while folder == package or package in folder.parents:
        init = folder / "__init__.py"
        if init.is_file():
            yield init
        folder = folder.parent


def _imported(package: Path, path: Path) -> Iterator[Path]:
    """The package's modules that ``path`` imports anywhere in its body: ``import
    pkg.a.b``, ``from pkg.a import b`` (a module or a name in ``pkg/a``) and relative
    imports."""
    parts = list(path.relative_to(package).with_suffix("").parts)
    here = parts[:-1]  # the importing module's package, as relative imports count from it
    for node in ast.walk(ast.parse(path.read_bytes(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1] + (node.module or "").split(".")
                base = [package.name, *(part for part in base if part)]
            else:
                base = (node.module or "").split(".")
            names = [base, *([*base, alias.name] for alias in node.names)]
        else:
            continue
        for name in names:
            if name and name[0] == package.name:
                yield from _module_file(package, name[1:])


def _module_file(package: Path, parts: list[str]) -> Iterator[Path]:
    target = package.joinpath(*parts)
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        if candidate.is_file():
            yield candidate
