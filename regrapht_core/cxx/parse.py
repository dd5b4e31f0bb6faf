"""One tree-sitter front end for C, C++ and CUDA sources.

Parsers are built once per language and reused: the language server re-parses on every
code-action request and must stay fast. Syntax errors are reported with a line and
column because extraction from half-typed code would silently build the wrong task.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import PurePath

import tree_sitter
import tree_sitter_cpp
import tree_sitter_cuda

from regrapht_core.contracts.task import SourceLanguage
from regrapht_core.errors import TaskError

__all__ = [
    "Node",
    "Query",
    "QueryCursor",
    "Tree",
    "grammar",
    "included_header",
    "language_for_path",
    "node_text",
    "parse_isolated",
    "parse_source",
    "query",
    "syntax_error",
    "walk",
]

Node = tree_sitter.Node
"""Syntax-tree types, re-exported so that no module outside ``cxx`` imports tree-sitter."""
Tree = tree_sitter.Tree
Query = tree_sitter.Query
QueryCursor = tree_sitter.QueryCursor

_SUFFIXES = {
    ".cu": SourceLanguage.CUDA,
    ".cuh": SourceLanguage.CUDA,
    ".c": SourceLanguage.CPP,
    ".cc": SourceLanguage.CPP,
    ".cpp": SourceLanguage.CPP,
    ".cxx": SourceLanguage.CPP,
    ".h": SourceLanguage.CPP,
    ".hh": SourceLanguage.CPP,
    ".hpp": SourceLanguage.CPP,
}


def language_for_path(path: str | PurePath) -> SourceLanguage:
    suffix = PurePath(path).suffix.lower()
    try:
        return _SUFFIXES[suffix]
    except KeyError:
        raise TaskError(
            f"{path}: not a C, C++ or CUDA file (known suffixes: {', '.join(_SUFFIXES)})"
        ) from None


@cache
def grammar(language: SourceLanguage) -> tree_sitter.Language:
    """The CUDA grammar extends C++ with launches and qualifiers; plain C++ needs no more."""
    module = tree_sitter_cuda if language is SourceLanguage.CUDA else tree_sitter_cpp
    return tree_sitter.Language(module.language())


@cache
def _parser(language: SourceLanguage) -> tree_sitter.Parser:
    return tree_sitter.Parser(grammar(language))


@cache
def query(language: SourceLanguage, pattern: str) -> tree_sitter.Query:
    return tree_sitter.Query(grammar(language), pattern)


def parse_source(source: str, language: SourceLanguage) -> tree_sitter.Tree:
    return _parser(language).parse(source.encode("utf-8"))


def parse_isolated(code: bytes, language: SourceLanguage = SourceLanguage.CUDA) -> tree_sitter.Tree:
    """Parse with a parser of its own, for callers on worker threads (parsers are not safe to
    share between threads; the static gate runs on the job's thread)."""
    return tree_sitter.Parser(grammar(language)).parse(code)


def node_text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def included_header(include: tree_sitter.Node) -> str:
    """The header a ``preproc_include`` names, without its ``<>`` or quotes (``""`` for a
    computed include)."""
    path = include.child_by_field_name("path")
    return node_text(path).strip('<>"') if path is not None else ""


def walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Pre-order, children in source order, without recursion (deep code stays safe)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def syntax_error(node: tree_sitter.Node) -> str | None:
    """``line L, column C: <what>`` for the first error inside ``node`` (1-based)."""
    if not node.has_error:
        return None
    for child in walk(node):
        if child.is_missing:
            row, col = child.start_point
            return f"line {row + 1}, column {col + 1}: missing {child.type!r}"
        if child.type == "ERROR":
            row, col = child.start_point
            snippet = node_text(child).splitlines()[0][:40] if child.text else ""
            return f"line {row + 1}, column {col + 1}: cannot parse {snippet!r}"
    return "the code has a syntax error"
