"""Helpers for the tests of the extraction rewrites (``cxx.algorithms``, ``cxx.strides``,
``cxx.countdowns``...): each rewrites a function's text, and each is checked by running the
rewritten function against the written one under g++."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.cxx.parse import Node, node_text, parse_source

Rewrite = Callable[[str, Node], str]


def rewritten(source: str, rewrite: Rewrite) -> str:
    """``source`` with its last top-level node (the test's function) rewritten; the lines
    keep their numbers, as every extraction rewrite promises."""
    function = parse_source(source, SourceLanguage.CPP).root_node.named_children[-1]
    written = rewrite(source, function)
    assert written.count("\n") == source.count("\n"), "lines keep their numbers"
    return written


def each_rewritten(source: str, names: Iterable[str], rewrite: Rewrite) -> str:
    """``source`` with each function whose declarator holds ``name(`` rewritten."""
    for name in names:
        root = parse_source(source, SourceLanguage.CPP).root_node
        (function,) = [
            f
            for f in root.named_children
            if f.type == "function_definition"
            and f"{name}(" in node_text(f.child_by_field_name("declarator"))
        ]
        source = rewrite(source, function)
    return source


def renamed(source: str, names: Iterable[str]) -> str:
    """``source`` with each named function called ``x_name``, to link beside the original."""
    for name in names:
        source = source.replace(f" {name}(", f" x_{name}(")
    return source


def printed_by(program: str, tmp_path: Path) -> str:
    """What the C++ ``program`` prints, built with g++."""
    (tmp_path / "main.cpp").write_text(program)
    built = subprocess.run(
        ["g++", "-std=c++17", "-O1", str(tmp_path / "main.cpp"), "-o", str(tmp_path / "main")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=False)
    return ran.stdout.strip()
