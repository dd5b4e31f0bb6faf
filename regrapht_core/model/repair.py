"""Repair the syntax slips a small model makes, so more of its answers reach the compiler.

A 0.5B-1.5B code model gets the CUDA right more often than the C++ around it: it defines a
kernel *inside* the host function that launches it, launches a kernel it defines further
down, echoes the original function before its rewrite, adds an ``int main`` of its own,
drops a brace. Each of those fails to compile (or, for ``main``, to link against the
verifier's driver, which has its own) although the code says unambiguously what it means.

:func:`repair` makes exactly those edits, read off the tree-sitter parse
(:mod:`regrapht_core.cxx`), never off the text:

- a function defined inside a function body moves out to file scope, just before the
  function that held it (unless it uses a name that function declares: then it is not
  self-contained and stays where it is);
- of two definitions of one function (same name, execution space, template parameters and
  parameter types), the earlier is removed: the model echoed the code, then rewrote it;
- an ``int main`` is removed: the harness links its own driver, and the static gate
  refuses the name; so are includes of I/O headers, which the gate refuses too, and of
  headers that cannot exist (an example's identifier in angle brackets, ``<kBlockSize>``);
- a function called before its definition gets a prototype before its first caller;
- an unmatched ``}`` at file scope is removed, and a single missing ``}`` at the very end is
  added when the tree and the indentation both show it closes the last function;
- in an answer cut at the token limit, the definition the cut fell in is dropped when whole
  definitions come before it.

Includes are never added: nvcc includes the CUDA runtime itself. Everything else stays byte
for byte. When the code has any other syntax error, or a result would not parse cleanly or
would change the entry's signature, the code comes back unchanged with no fixes: the
verifier's gate refuses unparsable code anyway, and a guess could change what it computes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from regrapht_core.cxx.declarators import declarator_name
from regrapht_core.cxx.declared import declared_names, declared_types
from regrapht_core.cxx.functions import execution_spaces, function_name, signature_text
from regrapht_core.cxx.parse import Node, included_header, node_text, parse_isolated, walk
from regrapht_core.cxx.signatures import Signature, signature_of
from regrapht_core.cxx.splice import Edit, apply_edits, indent_block

__all__ = ["Repaired", "repair"]


@dataclass(frozen=True, slots=True)
class Repaired:
    """The code to verify, and what repair changed in it (the trace shows both, so a
    candidate that passes thanks to a fix is not mistaken for the model's own work)."""

    code: str
    fixes: tuple[str, ...] = ()
    """What was changed, one short phrase each, for the trace; empty: ``code`` is the input."""


_Fix = tuple[list[Edit], list[str]]
"""The edits of one repair step and the phrases that describe them."""


@dataclass(frozen=True, slots=True)
class _Parsed:
    """A tree with the bytes it was parsed from: node offsets index ``source``, while the
    root's own text starts at the first token, not at byte 0."""

    root: Node
    source: bytes


_NOT_REPEATABLE = frozenset(
    {"comment", "optional_parameter_declaration", "optional_type_parameter_declaration"}
)
"""Header parts a prototype cannot repeat: a default is given once; a comment would swallow
the rest of the header once it is joined onto one line."""
_BRACED = frozenset({"compound_statement", "declaration_list", "field_declaration_list"})


def repair(code: str, *, entry_name: str | None = None, truncated: bool = False) -> Repaired:
    """``code`` with the model's syntax slips fixed, or unchanged when there are none or
    when the parse does not make the fix certain.

    ``entry_name`` is the function the verifier calls: its signature is never changed, and a
    task whose entry is ``main`` keeps it. ``truncated`` says the answer hit the token limit:
    a missing final ``}`` is then where the cut fell, with code still to come, so it is not
    added (the other fixes still apply).
    """
    balanced = _balance(code, truncated)
    if balanced is None:
        return Repaired(code)
    source, fixes = balanced
    steps: tuple[Callable[[_Parsed], _Fix], ...] = (
        _hoist_nested,  # first: a moved kernel may be an echo, or the only thing main held
        _drop_duplicates,
        lambda parsed: _drop_main(parsed, entry_name),
        _drop_includes,
        _declare_early,  # last: removals move first uses after definitions
    )
    for step in steps:
        parsed = _clean(source)
        if parsed is None:
            return Repaired(code)
        edits, done = step(parsed)
        source = apply_edits(parsed.source, edits)
        fixes += done
    if not fixes or not _same_entry(code, source, entry_name):
        return Repaired(code)
    return Repaired(source, _counted(fixes))


def _counted(fixes: list[str]) -> tuple[str, ...]:
    """Each fix once, with how often it was made when more than once (a model stuck in a
    loop echoes one function many times)."""
    counts = Counter(fixes)
    return tuple(f if counts[f] == 1 else f"{f} ({counts[f]} times)" for f in counts)


def _parse(code: str) -> _Parsed:
    source = code.encode("utf-8")
    return _Parsed(parse_isolated(source).root_node, source)


def _clean(code: str) -> _Parsed | None:
    """The parse of ``code`` when it has no error at all."""
    parsed = _parse(code)
    return None if parsed.root.has_error else parsed


def _same_entry(before: str, after: str, entry_name: str | None) -> bool:
    """The result parses and defines the entry exactly as the input did (when it did)."""
    parsed = _clean(after)
    if parsed is None:
        return False
    if entry_name is None:
        return True
    wanted = _entry_signature(_parse(before).root, entry_name)
    return wanted is None or wanted == _entry_signature(parsed.root, entry_name)


def _entry_signature(root: Node, entry_name: str) -> str | None:
    found = [signature_text(d) for _, d in _top_definitions(root) if _name(d) == entry_name]
    return found[-1] if found else None


# --- Tree helpers -----------------------------------------------------------------------------


def _top_definitions(root: Node) -> Iterator[tuple[Node, Node]]:
    """``(owner, definition)`` of each file-scope function definition; ``owner`` is its
    ``template_declaration`` for a template, else the definition itself."""
    for child in root.named_children:
        definition = _definition_of(child)
        if definition is not None:
            yield child, definition


def _definition_of(node: Node) -> Node | None:
    """The function definition ``node`` is or wraps as a template."""
    if node.type == "function_definition":
        return node
    if node.type == "template_declaration":
        return next((c for c in node.named_children if c.type == "function_definition"), None)
    return None


def _name(definition: Node) -> str | None:
    """A plain (unqualified) function name; members and operators are left alone."""
    name = function_name(definition)
    return name if name is not None and name.isidentifier() else None


def _template_parameters(owner: Node) -> str:
    params = (
        owner.child_by_field_name("parameters") if owner.type == "template_declaration" else None
    )
    return "" if params is None else " ".join(node_text(params).split())


def _line_span(node: Node, source: bytes) -> Edit:
    """Delete ``node`` with the comments on top of it (they describe it), the indentation
    before and the line break after, when it has its lines to itself, so no blank husk is
    left behind."""
    start, end = _anchor(node, source), node.end_byte
    line_start = source.rfind(b"\n", 0, start) + 1
    if not source[line_start:start].strip():
        start = line_start
    line_end = source.find(b"\n", end)
    line_end = len(source) if line_end < 0 else line_end + 1
    if not source[end:line_end].strip():
        end = line_end
    return Edit(start, end, "")


def _anchor(node: Node, source: bytes) -> int:
    """Where ``node`` starts, counting the comments directly on top of it as its own."""
    start = node.start_byte
    previous = node.prev_sibling
    while (
        previous is not None
        and previous.type == "comment"
        and previous.end_point.row + 1 >= _row_at(source, start)
        and _starts_line(previous, source)
    ):
        start = previous.start_byte
        previous = previous.prev_sibling
    return start


def _row_at(source: bytes, byte: int) -> int:
    return source.count(b"\n", 0, byte)


def _indent(source: bytes, byte: int) -> int:
    """The indentation width of the line holding ``byte``."""
    line_start = source.rfind(b"\n", 0, byte) + 1
    line = source[line_start:byte]
    return len(line) - len(line.lstrip(b" \t"))


def _starts_line(node: Node, source: bytes) -> bool:
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    return not source[line_start : node.start_byte].strip()


# --- Braces: the only errors repaired -----------------------------------------------------


def _balance(code: str, truncated: bool) -> tuple[str, list[str]] | None:
    """``code`` with a stray or a missing brace fixed when that is its only error; ``None``
    when it has another error (nothing is repaired then)."""
    parsed = _parse(code)
    root, source = parsed.root, parsed.source
    if not root.has_error:
        return code, []
    errors = [n for n in walk(root) if n.type == "ERROR" or n.is_missing]
    if all(_stray_brace(n, root) for n in errors):
        fixed = apply_edits(source, [_line_span(n, source) for n in errors])
        fixes = [f"removed an unmatched `}}` (line {n.start_point.row + 1})" for n in errors]
    elif not truncated and len(errors) == 1 and _missing_last_brace(errors[0], parsed):
        fixed = code.rstrip() + "\n}\n"
        fixes = ["added the missing `}` that ends the last function"]
    elif truncated and (kept := _before_cut(parsed, errors)) is not None:
        fixed = kept
        fixes = ["dropped the last definition, cut off at the token limit"]
    else:
        return None
    return (fixed, fixes) if _clean(fixed) is not None else None


def _before_cut(parsed: _Parsed, errors: list[Node]) -> str | None:
    """The file-scope items before the one the token limit cut, when at least one function
    is complete before it: a small model stuck in a loop writes the same kernel until the
    limit, and what came before the cut is whole."""
    first = min(n.start_byte for n in errors)
    items = [c for c in parsed.root.children if c.start_byte <= first]
    if len(items) < 2:
        return None
    kept = parsed.source[: items[-1].start_byte].decode("utf-8", "replace").rstrip() + "\n"
    whole = _clean(kept)
    if whole is None or not any(_definition_of(c) for c in whole.root.named_children):
        return None
    return kept


def _stray_brace(node: Node, root: Node) -> bool:
    """A ``}`` at file scope that closes nothing."""
    return node.type == "ERROR" and node.parent == root and node_text(node).strip() == "}"


def _missing_last_brace(missing: Node, parsed: _Parsed) -> bool:
    """The one error is the missing ``}`` of the last file-scope function, and the layout
    agrees: every other block closes at its opener's indentation and everything in the
    unclosed body is indented past the function. A brace forgotten in the middle puts a
    later ``}`` out of line, and a body that swallowed the next function holds it unindented.
    """
    body = missing.parent
    if not missing.is_missing or missing.type != "}" or body is None:
        return False
    root, source = parsed.root, parsed.source
    function = body.parent
    last = root.named_children[-1] if root.named_child_count else None
    if body.type != "compound_statement" or function is None or last is None:
        return False
    if _definition_of(last) != function or missing.start_byte < len(source.rstrip()):
        return False
    column = _indent(source, function.start_byte)
    inside = all(
        _indent(source, c.start_byte) > column
        for c in body.named_children
        if _starts_line(c, source)
    )
    return inside and all(_closes_in_line(n, source) for n in walk(body) if n != body)


def _closes_in_line(node: Node, source: bytes) -> bool:
    """A braced block's ``}``, when it starts its line, sits at its opener line's indent."""
    if node.type not in _BRACED or not node.children or node.children[-1].type != "}":
        return True
    close = node.children[-1]
    if not _starts_line(close, source):
        return True
    return _indent(source, close.start_byte) == _indent(source, node.start_byte)


# --- (a) Functions defined inside functions ---------------------------------------------------


def _hoist_nested(parsed: _Parsed) -> _Fix:
    """Move each function defined among a function's statements to file scope, before the
    function. Only those at the top of its body: one defined inside a loop or branch was
    probably meant as a call or as inline code, and moving it would empty that statement."""
    root, source = parsed.root, parsed.source
    edits: list[Edit] = []
    fixes: list[str] = []
    for owner, definition in _top_definitions(root):
        body = definition.child_by_field_name("body")
        inside = body.named_children if body is not None else []
        movable = [n for n in inside if _definition_of(n) and not _captures(n, definition)]
        if not movable:
            continue
        moved = "".join(_dedented(n, source) + "\n\n" for n in movable)
        edits.append(Edit.insert(_anchor(owner, source), moved))
        edits.extend(_line_span(n, source) for n in movable)
        host = function_name(definition) or "its host function"
        for node in movable:
            nested = _definition_of(node)
            name = function_name(nested) if nested is not None else None
            fixes.append(f"moved {name or 'a function'} out of {host} to file scope")
    return edits, fixes


def _dedented(node: Node, source: bytes) -> str:
    """``node`` with the comments on top of it, moved to column 0."""
    start = _anchor(node, source)
    column = start - (source.rfind(b"\n", 0, start) + 1)
    return indent_block(source[start : node.end_byte].decode("utf-8", errors="replace"), column, "")


def _captures(nested: Node, host: Node) -> bool:
    """``nested`` uses a name it does not declare but ``host`` does: at file scope that name
    would mean something else (or nothing), so it must stay where the model wrote it."""
    own = declared_names(nested)
    used = {
        node_text(n)
        for n in walk(nested)
        if n.type in ("identifier", "type_identifier") and node_text(n) not in own
    }
    return bool(used & declared_names(host))


# --- (c) Echoed definitions ---------------------------------------------------------------


def _drop_duplicates(parsed: _Parsed) -> _Fix:
    """Remove every definition that a later one of the same function replaces."""
    root, source = parsed.root, parsed.source
    seen: dict[tuple[str, Signature, frozenset[str], str], Node] = {}
    edits: list[Edit] = []
    fixes: list[str] = []
    for owner, definition in _top_definitions(root):
        name = _name(definition)
        signature = signature_of(definition, source)
        if name is None or signature is None:
            continue
        key = (name, signature, execution_spaces(definition), _template_parameters(owner))
        earlier = seen.get(key)
        if earlier is not None:
            edits.append(_line_span(earlier, source))
            fixes.append(f"removed an earlier definition of {name}")
        seen[key] = owner
    return edits, fixes


# --- (f) The model's own main, and what it included for it -------------------------------------


_IO_HEADERS = frozenset({"iostream", "cstdio", "stdio.h", "fstream", "sstream", "iomanip"})
"""What an answer includes for the ``main`` or the error printing it should not have written.
The verifier's gate refuses a candidate that includes them (I/O is the harness's job)."""


def _drop_includes(parsed: _Parsed) -> _Fix:
    """Remove includes of I/O headers and of headers no toolkit has. Code that uses an I/O
    header is refused anyway, so this only keeps a candidate that includes one and prints
    nothing; a header that does not exist only stops the compile."""
    root, source = parsed.root, parsed.source
    edits: list[Edit] = []
    fixes: list[str] = []
    for include in (n for n in root.named_children if n.type == "preproc_include"):
        header = included_header(include)
        if header in _IO_HEADERS:
            fixes.append(f"removed #include <{header}>: a candidate does no I/O")
        elif _invented(header):
            fixes.append(f"removed #include <{header}>: no such header")
        else:
            continue
        edits.append(_line_span(include, source))
    return edits, fixes


def _invented(header: str) -> bool:
    """A header name no toolkit has: one identifier with a capital letter and no file
    extension. The C++ standard headers are lower-case words (``<cmath>``), the CUDA, CUB
    and Thrust ones have an extension or a folder; the 0.5B model writes an example's
    constant or class in angle brackets (``<kBlockSize>``, ``<DeviceBuffer>``)."""
    return header.isidentifier() and not header.islower()


def _drop_main(parsed: _Parsed, entry_name: str | None) -> _Fix:
    """Remove ``main``: the harness is the program, and a second ``main`` fails to link."""
    if entry_name == "main":
        return [], []
    root, source = parsed.root, parsed.source
    mains = [owner for owner, d in _top_definitions(root) if _name(d) == "main"]
    return (
        [_line_span(owner, source) for owner in mains],
        ["removed main: the verifier links its own"] * len(mains),
    )


# --- (b) Use before definition ---------------------------------------------------------------


def _declare_early(parsed: _Parsed) -> _Fix:
    """Declare each function called before it is declared, just before its first caller."""
    root, source = parsed.root, parsed.source
    definitions: dict[str, list[tuple[Node, Node]]] = {}
    known: dict[str, int] = {}
    for child in root.named_children:
        for declared in _file_scope_names(child, source):
            known.setdefault(declared, child.start_byte)
        definition = _definition_of(child)
        name = _name(definition) if definition is not None else None
        if definition is not None and name is not None:
            definitions.setdefault(name, []).append((child, definition))
    prototypes: dict[int, list[str]] = {}
    fixes: list[str] = []
    for caller, name in _early_calls(root, known):
        found = definitions.get(name, [])
        prototype = _prototype(*found[0], parsed, caller) if len(found) == 1 else None
        if prototype is not None:
            prototypes.setdefault(_anchor(caller, source), []).append(prototype)
            fixes.append(f"declared {name} before its first use")
    edits = [Edit.insert(at, "\n".join(lines) + "\n\n") for at, lines in prototypes.items()]
    return edits, fixes


def _file_scope_names(node: Node, source: bytes) -> Iterator[str]:
    """The names a file-scope ``node`` defines or declares: a function (a prototype too) or
    a variable, which a call could also mean."""
    definition = _definition_of(node)
    if definition is not None:
        yield from filter(None, [_name(definition)])
        return
    inner = (c for c in node.named_children if c.type == "declaration")
    declaration = node if node.type == "declaration" else next(inner, None)
    if declaration is not None:
        for declarator in declaration.children_by_field_name("declarator"):
            yield from filter(None, [declarator_name(declarator, source)])


def _early_calls(root: Node, known: dict[str, int]) -> Iterator[tuple[Node, str]]:
    """``(top-level node, name)`` for the first call of each function that comes before
    anything declares it."""
    done: set[str] = set()
    for top in root.named_children:
        for call in (n for n in walk(top) if n.type == "call_expression"):
            name = _callee(call)
            if name is None or name in done or known.get(name, -1) <= call.start_byte:
                continue
            done.add(name)
            yield top, name


def _callee(call: Node) -> str | None:
    """The plain name a call (or launch) calls: ``f(...)``, ``k<<<...>>>(...)``, ``k<8>(...)``."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "template_function":
        function = function.child_by_field_name("name")
    return node_text(function) if function is not None and function.type == "identifier" else None


def _prototype(owner: Node, definition: Node, parsed: _Parsed, caller: Node) -> str | None:
    """The header of ``definition`` as a declaration on one line, or ``None`` when it cannot
    be repeated before ``caller``: defaults may be given only once, a comment in the header
    would swallow the rest of the joined line, and a type defined between the caller and the
    definition is not known yet where the prototype goes."""
    parts = list(_header_nodes(owner, definition))
    if any(n.type in _NOT_REPEATABLE for n in parts):
        return None
    used = {node_text(n) for n in parts if n.type == "type_identifier"}
    between = (
        c
        for c in parsed.root.named_children
        if caller.start_byte <= c.start_byte < owner.start_byte
    )
    if any(used & declared_types(c) for c in between):
        return None
    body = definition.child_by_field_name("body")
    end = body.start_byte if body is not None else definition.end_byte
    header = parsed.source[owner.start_byte : end].decode("utf-8", errors="replace")
    return " ".join(header.split()) + ";"


def _header_nodes(owner: Node, definition: Node) -> Iterator[Node]:
    """The nodes of a definition (with its template parameters) outside its body."""
    body = definition.child_by_field_name("body")
    stack = [owner]
    while stack:
        node = stack.pop()
        if node != body:
            yield node
            stack.extend(node.children)
