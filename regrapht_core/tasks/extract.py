"""From a function in a source file to a checkable task.

The annotation comment, when present, is the user's word and wins; everything it leaves
out is inferred from the code. When something is still unknown the error shows the exact
annotation to write, pre-filled with what was inferred, so fixing it is a paste, not a
read of the documentation.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from regrapht_core.contracts.task import (
    ArgSpec,
    Distribution,
    LaunchSpec,
    LoopSelection,
    ParamKind,
    Record,
    Role,
    SourceLanguage,
    Task,
    TaskMode,
    TimingMode,
    Tolerance,
)
from regrapht_core.cxx.algorithms import expand_algorithms
from regrapht_core.cxx.aliases import inline_pointer_aliases
from regrapht_core.cxx.countdowns import count_up
from regrapht_core.cxx.counters import spell_deduced_counters
from regrapht_core.cxx.distribute import distribute_literal_factors
from regrapht_core.cxx.entry import top_level_for_loops
from regrapht_core.cxx.functions import (
    function_declarator,
    function_name,
    is_kernel,
    signature_text,
    unqualified,
)
from regrapht_core.cxx.hoist import hoist_loop_bounds
from regrapht_core.cxx.iterators import index_iterators
from regrapht_core.cxx.lambdas import inline_local_lambdas
from regrapht_core.cxx.params import Parameter
from regrapht_core.cxx.parse import (
    Node,
    QueryCursor,
    node_text,
    parse_source,
    query,
    syntax_error,
    walk,
)
from regrapht_core.cxx.pragmas import drop_loop_hints
from regrapht_core.cxx.strides import unit_strides
from regrapht_core.cxx.syntax import enclosing
from regrapht_core.cxx.walks import index_pointer_walks
from regrapht_core.cxx.while_loops import counted_whiles
from regrapht_core.errors import ReferenceCompileError, TaskError
from regrapht_core.tasks.annotation import (
    MARKER,
    Annotation,
    annotation_text,
    default_dist,
    parse_annotation,
    render_annotation,
)
from regrapht_core.tasks.check import STRUCTURED_KINDS, check_binding, check_task
from regrapht_core.tasks.dtypes import is_arithmetic, numpy_dtype, vector_element
from regrapht_core.tasks.expr import evaluate, free_names
from regrapht_core.tasks.infer import FileContext, Inferred, infer_usage, vector_size_name
from regrapht_core.tasks.records import RecordTable, resolve_type
from regrapht_core.tasks.reference import reference_unit
from regrapht_core.tasks.signature import (
    declaration,
    entry_params,
    return_type,
    typedefs,
)
from regrapht_core.tasks.sizes import default_timing_value, derive_correctness_sizes
from regrapht_core.tasks.validate import HOST_COMPILER, validate_task

__all__ = ["ACCUMULATING_TOLERANCE", "SOURCE_REWRITES", "extract_task", "suggested_annotation"]

_FUNCTIONS = "(function_definition) @fn"
_DEFINITIONS = frozenset(
    {
        "function_definition",
        "template_declaration",
        "class_specifier",
        "struct_specifier",
        "namespace_definition",
        "linkage_specification",
    }
)
"""What an annotation above them could be meant for: a detached one stops at them."""
_FLOAT_DEFAULTS = ("1.5", "0.5", "2.5", "-0.75", "3.25")
"""Distinct values, so that two scalars never cancel (``hi - lo`` is not zero)."""
ACCUMULATING_TOLERANCE = Tolerance(atol=1e-3, rtol=1e-3, per_term=3 * 2.0**-24)
"""Float sums reordered across threads differ from the sequential order by about this: the
sequential sum's own rounding grows with its length (``Tolerance.per_term``), three unit
roundoffs (2^-24) per term, over four times the largest error measured in 50 draws of
2^20 or 2^22 terms (``benchmarks/results/cpu-float-sum-error.json``)."""
_BLOCKS = {1: ("256",), 2: ("16", "16"), 3: ("8", "8", "4")}


SOURCE_REWRITES = (
    drop_loop_hints,
    expand_algorithms,
    inline_local_lambdas,
    hoist_loop_bounds,
    counted_whiles,
    index_pointer_walks,
    inline_pointer_aliases,
    index_iterators,
    unit_strides,
    count_up,
    distribute_literal_factors,
    spell_deduced_counters,
)
"""What extraction writes out before it reads a function, in this order, each only where
it is the same program and each on the lines it rewrites: CPU loop hints (``#pragma omp``)
blanked, standard algorithms as their
loops, local lambdas inlined, a bound declared beside the counter declared before the
loop, counting ``while`` loops as ``for`` loops, pointer walks and row pointers as
subscripts, iterator loops, strides and countdowns as loops counting up by one,
interleaved indices distributed, deduced counter types spelled (docs/task-format.md).
Each may give the next a loop it reads: a ``while`` a ``for`` whose pointer walk becomes
subscripts of an alias, which becomes subscripts of what it points into."""


def extract_task(
    source: str,
    language: SourceLanguage,
    *,
    function: str | None = None,
    line: int | None = None,
    origin: str = "<source>",
    validate: bool | None = None,
) -> Task:
    """The task for ``function``, or for the function around zero-based ``line``.

    A ``line`` inside one of a host function's top-level ``for`` loops (at any depth in it)
    selects that loop (``Task.loop``): only it is to be optimized, the rest of the function
    stays on the host. A line elsewhere in the function, and any line of a kernel, selects
    the whole function.

    A spec that inference completed (any pointer or vector whose length or role the
    annotation does not give) is checked by running the reference under AddressSanitizer
    (:func:`~regrapht_core.tasks.validate.validate_task`): ``validate=None`` does so when a
    host compiler is installed, ``True`` requires it, ``False`` skips it (the caller takes
    the spec on trust). A fully annotated spec is the user's word and is not run.
    """
    tree = parse_source(source, language)
    root = tree.root_node
    fn = _find_function(root, language, function, line, origin)
    for normalized in SOURCE_REWRITES:
        written = normalized(source, fn)
        if written != source:  # the same lines, so ``line`` and messages still match the file
            source, root = written, parse_source(written, language).root_node
            fn = _find_function(root, language, function, line, origin)
    name = unqualified(function_name(fn) or "?")
    where = f"{origin}:{fn.start_point.row + 1} ({name})"
    problem = syntax_error(fn)
    if problem is not None:
        raise TaskError(f"{origin}: {problem}, inside {name!r}; fix the syntax first")
    if fn.parent is not None and fn.parent.type == "template_declaration":
        raise TaskError(f"{where}: templates cannot be tasks; write a non-template wrapper")
    aliases = typedefs(root)
    member = _member(root, fn, name, aliases, where)
    constants = _constants(root)
    table = RecordTable(root, aliases, constants, origin)
    params = entry_params(fn, aliases, where, table=table, constants=constants)
    returns = return_type(fn, aliases, where, table=table)
    records = table.records
    ctx = FileContext(_functions(root, language), constants, aliases, records)
    _refuse_detached_annotation(fn, where)
    note = parse_annotation(_annotations(fn), where)
    inferred = infer_usage(fn, params, ctx)
    _refuse_filters(fn, note, inferred.returned, where)
    kernel = is_kernel(fn)
    if kernel:
        _kernel_params(params, where)
    args, sizes, derived, return_length = _merge(
        params, note, inferred, returns=returns, records=records, where=where
    )
    if member is not None and kernel:
        raise TaskError(f"{where}: a kernel cannot be a member function")
    unit_root = member.node if member is not None and fn.parent != root else fn
    reference, unit_language = reference_unit(root, unit_root, language)
    task = Task(
        name=name,
        source=reference,
        entry=name,
        signature=signature_text(fn),
        args=args,
        correctness_sizes=(),
        timing_size=sizes,
        returns=returns,
        mode=TaskMode.KERNEL_TO_KERNEL if kernel else TaskMode.SEQUENTIAL_TO_CUDA,
        tolerance=_tolerance(note, inferred, args, returns, records),
        timing_mode=note.timing or (TimingMode.KERNEL_ONLY if kernel else TimingMode.END_TO_END),
        launch=(
            _launch(note=note, inferred=inferred, kernel=name, args=args, sizes=sizes, where=where)
            if kernel
            else None
        ),
        language=unit_language,
        records=records,
        declaration="" if kernel else declaration(name, returns, params, c_linkage=_c_linkage(fn)),
        return_length=return_length,
        owner=member.name if member is not None else "",
        owner_args=member.args if member is not None else (),
        owner_static=member.static if member is not None else False,
        loop=None if line is None or kernel else _loop_at(fn, line),
    )
    _check_annotation_names(task, note, where)
    dims = [k for k in sizes if k not in derived and _is_size(k, args)]
    correctness = []
    for binding in derive_correctness_sizes(sizes, dims, derived):
        try:
            check_binding(task, binding, where)
        except TaskError:
            if binding == sizes:
                raise
            continue
        correctness.append(binding)
    task = replace(task, correctness_sizes=tuple(correctness))
    check_task(task, where)
    if _should_validate(validate, task, params, note):
        _validate(task, where)
    return task


def _should_validate(
    validate: bool | None, task: Task, params: tuple[Parameter, ...], note: Annotation
) -> bool:
    if validate is not None:
        return validate
    annotated = all(
        (given := note.arrays.get(p.name)) is not None
        and (given.length or p.kind not in (ParamKind.POINTER, ParamKind.VECTOR, ParamKind.SPAN))
        and given.role
        for p in params
        if p.kind is not ParamKind.SCALAR or p.writable_reference
    ) and (vector_element(task.returns) is None or "return" in note.arrays)
    runnable = task.language is SourceLanguage.CPP and shutil.which(HOST_COMPILER) is not None
    return runnable and not annotated


def _validate(task: Task, where: str) -> None:
    try:
        validate_task(task, compiler=HOST_COMPILER)
    except ReferenceCompileError as err:
        raise ReferenceCompileError(f"{where}: {err}") from None
    except TaskError as err:
        hint = (
            ""
            if MARKER in str(err)
            else "\nIf inference got a length or role wrong, annotate it directly above "
            f"{task.entry!r}, starting from what was inferred:\n    " + suggested_annotation(task)
        )
        raise TaskError(
            f"{where}: the inferred spec of {task.entry!r} fails when the reference runs "
            f"under AddressSanitizer: {err}{hint}"
        ) from None


def suggested_annotation(task: Task) -> str:
    """The annotation comment that reproduces ``task``'s arguments and timing size."""
    return render_annotation(task.args, task.timing_size, return_length=task.return_length)


def _find_function(
    root: Node, language: SourceLanguage, name: str | None, line: int | None, origin: str
) -> Node:
    found = QueryCursor(query(language, _FUNCTIONS)).captures(root).get("fn", [])
    if name is not None:
        matches = [fn for fn in found if function_name(fn) == name]
        if not matches:  # a member function defined after its class: Owner::name
            matches = [
                fn
                for fn in found
                if fn.parent is not None
                and fn.parent.type == "translation_unit"
                and "::" in (function_name(fn) or "")
                and unqualified(function_name(fn) or "") == name
            ]
        what = f"a function named {name!r}"
    elif line is not None:
        matches = [fn for fn in found if fn.start_point.row <= line <= fn.end_point.row]
        matches = matches[-1:]
        what = f"a function around line {line + 1}"
    else:
        raise TaskError(f"{origin}: name a function or a line to extract")
    if len(matches) > 1:
        raise TaskError(f"{origin}: {what} is defined {len(matches)} times (overloads); rename one")
    if not matches:
        problem = syntax_error(root)
        hint = f" The file has a syntax error at {problem}." if problem else ""
        raise TaskError(f"{origin}: no definition of {what}.{hint}")
    return matches[0]


def _loop_at(fn: Node, line: int) -> LoopSelection | None:
    """The top-level ``for`` loop of ``fn`` that zero-based ``line`` falls in, or ``None``."""
    loops = top_level_for_loops(fn)
    for index, loop in enumerate(loops):
        if loop.start_point.row <= line <= loop.end_point.row:
            return LoopSelection(index, len(loops), signature_text(loop))  # its head
    return None


def _functions(root: Node, language: SourceLanguage) -> dict[str, Node]:
    found = QueryCursor(query(language, _FUNCTIONS)).captures(root).get("fn", [])
    return {n: fn for fn in found if (n := function_name(fn)) is not None and n != "main"}


def _constants(root: Node) -> dict[str, int]:
    """Object-like macros and const globals with a literal integer value."""
    out: dict[str, int] = {}
    for node in root.named_children:
        name = value = None
        if node.type == "preproc_def":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        elif node.type == "declaration" and {"const", "constexpr"} & {
            node_text(c) for c in node.children
        }:
            decls = node.children_by_field_name("declarator")
            if len(decls) == 1 and decls[0].type == "init_declarator":
                name = decls[0].child_by_field_name("declarator")
                value = decls[0].child_by_field_name("value")
        if name is None or value is None:
            continue
        try:
            number = evaluate(node_text(value), out, where="constant")
        except TaskError:
            continue
        if isinstance(number, int):
            out[node_text(name)] = number
    return out


def _comments_above(fn: Node) -> tuple[list[Node], Node | None]:
    """The comments directly above ``fn`` (no blank line between), in source order, and the
    node above them."""
    block: list[Node] = []
    above = fn.prev_sibling
    row = fn.start_point.row
    while above is not None and above.type == "comment" and above.end_point.row >= row - 1:
        block.insert(0, above)
        row, above = above.start_point.row, above.prev_sibling
    return block, above


def _annotations(fn: Node) -> list[str]:
    """Comments directly above the function, then inside it."""
    comments = _comments_above(fn)[0] + [node for node in walk(fn) if node.type == "comment"]
    texts = [annotation_text(node_text(node)) for node in comments]
    return [text for text in texts if text is not None]


def _refuse_detached_annotation(fn: Node, where: str) -> None:
    """An annotation above ``fn`` but not directly (an ``#include`` or a declaration between,
    nothing defined in between that it could be for) would be ignored, and the spec the user
    wrote silently replaced by an inferred one: say where it is instead."""
    above = _comments_above(fn)[1]
    while above is not None and above.type not in _DEFINITIONS and not _prototype(above):
        if above.type == "comment" and annotation_text(node_text(above)) is not None:
            raise TaskError(
                f"{where}: the annotation on line {above.start_point.row + 1} is not directly "
                "above the function, so it would apply to nothing: move it to the lines just "
                "above the function's first line"
            )
        above = above.prev_sibling


def _prototype(node: Node) -> bool:
    """A function declared without its body: an annotation above it is for that function."""
    return node.type == "declaration" and any(n.type == "function_declarator" for n in walk(node))


def _merge(
    params: tuple[Parameter, ...],
    note: Annotation,
    inferred: Inferred,
    *,
    returns: str,
    records: tuple[Record, ...],
    where: str,
) -> tuple[tuple[ArgSpec, ...], dict[str, int | float], dict[str, str], str | None]:
    """Arguments, timing size, derived size variables and a returned vector's length, or
    the actionable error."""
    unsized = [name for name in inferred.appended_to if name not in note.arrays]
    if unsized:
        raise TaskError(
            f"{where}: {unsized[0]!r} grows by push_back from what the caller passed, so how "
            "long it ends depends on the caller: clear it first (then one push_back per "
            "iteration of a loop counting from 0 sizes it), or return a new vector"
        )
    rename = _placeholder_names(params, note, inferred, where)
    arrays, unknown_roles, unknown_lengths, problems = _arrays(params, note, inferred, rename)
    return_length = _return_length(
        params, note=note, inferred=inferred, returns=returns, arrays=arrays, rename=rename
    )
    if vector_element(returns) is not None and return_length is None:
        unknown_lengths |= {"return"}
        problems.append(
            "the length of the returned vector (it is not a local sized once, as in "
            "'std::vector<float> out(n)', or filled by one push_back per iteration of a "
            "loop counting from 0, as in 'for (i = 0; i < n; ++i) out.push_back(...)')"
        )
    sizes, derived = _sizes(
        params, arrays, note, inferred, rename=rename, return_length=return_length, where=where
    )
    by_name = {a.name: a for a in arrays}
    args: list[ArgSpec] = []
    for p in params:
        if p.kind is not ParamKind.SCALAR:
            args.append(by_name[p.name])
            continue
        args.append(
            _scalar(
                p, note=note, inferred=inferred, sizes=sizes, position=len(args), records=records
            )
        )
    if problems:
        shown = {k: v for k, v in sizes.items() if k not in derived}
        comment = render_annotation(
            args,
            shown,
            unknown_lengths,
            unknown_roles,
            return_length=return_length or "?" if vector_element(returns) is not None else None,
        )
        raise TaskError(
            f"{where}: cannot infer {'; '.join(problems)}. Write this annotation directly "
            f"above the function, replacing each '?':\n    {comment}"
        )
    return tuple(args), sizes, derived, return_length


def _scalar(
    p: Parameter,
    *,
    note: Annotation,
    inferred: Inferred,
    sizes: Mapping[str, int | float],
    position: int,
    records: tuple[Record, ...],
) -> ArgSpec:
    """A scalar: by value or ``const&`` (``in``), or a ``T&`` the function writes."""
    given = note.arrays.get(p.name)
    role = Role.IN
    if p.writable_reference:
        role = (given.role if given else None) or inferred.roles.get(p.name) or Role.INOUT
    if not is_arithmetic(p.element):
        dist = (given.dist if given and given.dist else None) or default_dist(p.element)
        return ArgSpec(p.name, ParamKind.SCALAR, p.element, role, dist=dist)
    value = p.name if p.name in sizes else note.assignments.get(p.name)
    if value is None:
        value = _scalar_default(p.element, position)
    return ArgSpec(p.name, ParamKind.SCALAR, p.element, role, value=value)


def _arrays(
    params: tuple[Parameter, ...], note: Annotation, inferred: Inferred, rename: dict[str, str]
) -> tuple[list[ArgSpec], frozenset[str], frozenset[str], list[str]]:
    """Pointer, vector and array specs: annotation first, inference for the rest."""
    args: list[ArgSpec] = []
    unknown_roles: set[str] = set()
    unknown_lengths: set[str] = set()
    problems: list[str] = []
    for p in params:
        kind = p.kind
        if kind is None or kind is ParamKind.SCALAR:
            continue
        given = note.arrays.get(p.name)
        role = (given.role if given else None) or inferred.roles.get(p.name)
        length = given.length if given and given.length else None
        if kind is ParamKind.ARRAY:
            length = p.extent  # the type says it; an annotation cannot change it
        if length is None:
            poly = inferred.lengths.get(p.name)
            length = _substituted(poly.render(), rename) if poly is not None else None
        dist = (given.dist if given and given.dist else None) or default_dist(p.element)
        reason = inferred.reasons.get(p.name, "")
        if role is None:
            unknown_roles.add(p.name)
            problems.append(f"the role of {p.name!r} ({reason})")
        if length is None:
            unknown_lengths.add(p.name)
            problems.append(f"the length of {p.name!r} ({reason})")
        args.append(ArgSpec(p.name, kind, p.element, role or Role.IN, length, dist=dist))
    return _link_companions(args), frozenset(unknown_roles), frozenset(unknown_lengths), problems


def _refuse_filters(fn: Node, note: Annotation, returned: str | None, where: str) -> None:
    """Refuse, saying what to write instead, a returned vector filled by a ``push_back``
    under a condition (a filter): its length depends on the data, and the verifier and
    the GPU code need every output's length from the sizes alone (unless annotated)."""
    if "return" in note.arrays:
        return
    for node in walk(fn):
        function = node.child_by_field_name("function") if node.type == "call_expression" else None
        if function is None or function.type != "field_expression" or returned is None:
            continue
        owner, field = (
            function.child_by_field_name("argument"),
            function.child_by_field_name("field"),
        )
        if owner is None or field is None or node_text(owner) != returned:
            continue
        conditions = ("if_statement", "conditional_expression", "switch_statement")
        if node_text(field) not in ("push_back", "emplace_back") or not enclosing(
            node, conditions, fn
        ):
            continue
        raise TaskError(
            f"{where}: the returned vector {returned!r} grows by `{node_text(node)}` under a "
            f"condition (line {node.start_point.row + 1}), so its length depends on the data, "
            "and the GPU code needs every output's length from the sizes. Write the kept "
            "elements into an output the caller sizes, and return how many: "
            "`std::size_t f(const std::vector<float>& x, std::vector<float>& out)` with "
            "`if (keep) out[at++] = value;` and `return at;`, annotated "
            "`// regrapht: n = 100000; x[n] in; out[n] out`. That loop becomes a GPU "
            "compaction (a scan of the kept flags, then a scatter)."
        )


def _return_length(
    params: tuple[Parameter, ...],
    *,
    note: Annotation,
    inferred: Inferred,
    returns: str,
    arrays: list[ArgSpec],
    rename: dict[str, str],
) -> str | None:
    """A returned vector's element count: annotated (``return[n]``), a vector parameter's
    length (returned by value), or the size a local was given."""
    if vector_element(returns) is None:
        return None
    given = note.arrays.get("return")
    if given is not None and given.length:
        return given.length
    returned = inferred.returned
    vectors = {a.name: a for a in arrays if a.kind is ParamKind.VECTOR}
    if returned in vectors:
        return vectors[returned].length
    if returned in {p.name for p in params}:
        return None
    if inferred.return_length is not None:
        return _substituted(inferred.return_length.render(), rename)
    return None


WINDOW = 31
"""The timing value of a window size (a 1-D convolution's taps), where a filter's is."""


def _windows(names: list[str], lengths: list[str]) -> set[str]:
    """The sizes some array's length shrinks as they grow (``out[n - k + 1]``, ``k`` a
    convolution's kernel length). Timed at the others' value, such an array would hold one
    element; a window is timed at ``WINDOW`` and does not count as a dimension."""
    base = dict.fromkeys(names, 1 << 10)
    found: set[str] = set()
    for name in names:
        grown = {**base, name: base[name] + 1}
        for length in lengths:
            try:
                if evaluate(length, grown, where="length") < evaluate(length, base, where="length"):
                    found.add(name)
            except TaskError:
                continue  # a length that reads other names says nothing about these
    return found if len(found) < len(names) else set()


def _sizes(
    params: tuple[Parameter, ...],
    arrays: list[ArgSpec],
    note: Annotation,
    inferred: Inferred,
    *,
    rename: dict[str, str],
    return_length: str | None,
    where: str,
) -> tuple[dict[str, int | float], dict[str, str]]:
    """Size variables with their timing values, and those derived from others."""
    names = {p.name for p in params}
    length_names: set[str] = set()
    for arg in arrays:
        length_names |= free_names(arg.length, where=where) if arg.length else set()
        for key in ("cols", "width", "height", "channels"):
            text = arg.dist.param(key)
            length_names |= free_names(text, where=where) if text else set()
    if return_length is not None:
        length_names |= free_names(return_length, where=where)
    bound: list[str] = []
    for n in inferred.size_vars:
        bound += sorted(free_names(_substituted(n, rename), where=where))
    candidates = _ordered(
        [n for n in bound if n in names or n in length_names or n in note.assignments]
        + sorted(length_names - set(bound), key=lambda n: (n not in names, n))
        + [n for n in note.assignments if n not in names]
    )
    scalars = {p.name: p for p in params if p.kind is ParamKind.SCALAR}
    size_names = [
        n
        for n in candidates
        if n not in scalars or (_integral(scalars[n].element) and not scalars[n].writable_reference)
    ]
    derived = {
        n: e for n, e in note.assignments.items() if n in size_names and free_names(e, where=where)
    }
    independent = [n for n in size_names if n not in derived]
    lengths = [a.length for a in arrays if a.length] + ([return_length] if return_length else [])
    windows = _windows(independent, lengths)
    default = default_timing_value(
        len(independent) - len(windows), max(inferred.work_degree - len(windows), 1)
    )
    sizes: dict[str, int | float] = {}
    for n in independent:
        given = note.assignments.get(n)
        value = WINDOW if n in windows else default
        sizes[n] = value if given is None else evaluate(given, {}, where=where)
    for n, e in derived.items():
        sizes[n] = evaluate(e, sizes, where=f"{where}: size variable {n!r}")
    return sizes, derived


@dataclass(frozen=True, slots=True)
class _Member:
    """The class a member entry belongs to, and how to make the object it is called on."""

    name: str
    node: Node
    args: tuple[str, ...]
    static: bool


def _member(
    root: Node, fn: Node, name: str, aliases: Mapping[str, str], where: str
) -> _Member | None:
    """The entry's class when it is a member function (defined in the class, or as
    ``Owner::name`` at file scope after it), with the constructor arguments; ``None`` for
    a free function. Refuses what the wrapper cannot call: a nested, namespaced, template
    or anonymous class, a private entry, a constructor, a class no object can be made of."""
    body = fn.parent
    if body is not None and body.type == "field_declaration_list":
        spec = body.parent
        inside = fn
    else:
        qualified = function_name(fn) or ""
        if "::" not in qualified:
            return None
        scope = qualified.rsplit("::", 1)[0]
        spec = next(
            (
                c
                for c in root.named_children
                if c.type in _CLASSES
                and (tag := c.child_by_field_name("name")) is not None
                and node_text(tag) == scope
            ),
            None,
        )
        if spec is None:
            return None  # a namespace's function: not a member
        declared = _declaration_in(spec, name)
        if declared is None:
            raise TaskError(f"{where}: {scope!r} declares no member {name!r}")
        inside = declared
    if spec is None or spec.type not in _CLASSES:
        raise TaskError(f"{where}: a member of a union or an unnamed class cannot be an entry")
    tag = spec.child_by_field_name("name")
    if tag is None or tag.type != "type_identifier":
        raise TaskError(
            f"{where}: the class of {name!r} has no plain name; give it one (class Name {{...}})"
        )
    owner = node_text(tag)
    if spec.parent is None or spec.parent.type != "translation_unit":
        raise TaskError(
            f"{where}: {owner!r} is not defined at file scope (it is nested, in a namespace or "
            "a template); member entries need a class defined at file scope"
        )
    if name == owner:
        raise TaskError(f"{where}: a constructor cannot be an entry; name a member function")
    if not _public(spec, inside):
        raise TaskError(
            f"{where}: {owner}::{name} is not public; make it public so that it can be called"
        )
    static = any(
        c.type == "storage_class_specifier" and node_text(c) == "static" for c in inside.children
    )
    if static:
        return _Member(owner, spec, (), True)
    return _Member(owner, spec, _constructor_args(spec, owner, aliases, where), False)


_CLASSES = ("class_specifier", "struct_specifier")


def _declaration_in(spec: Node, name: str) -> Node | None:
    """The in-class declaration of member ``name`` (for one defined after the class)."""
    body = spec.child_by_field_name("body")
    for child in body.named_children if body is not None else ():
        if child.type in ("field_declaration", "declaration", "function_definition"):
            declarator = function_declarator(child)
            inner = declarator.child_by_field_name("declarator") if declarator else None
            if inner is not None and node_text(inner) == name:
                return child
    return None


def _public(spec: Node, member: Node) -> bool:
    """Whether ``member`` (a child of ``spec``'s body) is public: the last access label
    before it, or the default (public in a struct, private in a class)."""
    public = spec.type == "struct_specifier"
    body = spec.child_by_field_name("body")
    for child in body.named_children if body is not None else ():
        if child == member:
            break
        if child.type == "access_specifier":
            public = node_text(child).strip().rstrip(":").strip() == "public"
    return public


def _constructor_args(
    spec: Node, owner: str, aliases: Mapping[str, str], where: str
) -> tuple[str, ...]:
    """Arguments for the object a member entry is called on: none when the class can be
    value-initialized (no constructor, or one every parameter of which has a default),
    else distinct numbers for the first public constructor that takes only numbers."""
    constructors = []
    body = spec.child_by_field_name("body")
    for child in body.named_children if body is not None else ():
        if child.type not in ("field_declaration", "declaration", "function_definition"):
            continue
        if child.child_by_field_name("type") is not None:
            continue
        declarator = function_declarator(child)
        inner = declarator.child_by_field_name("declarator") if declarator else None
        if declarator is None or inner is None or node_text(inner) != owner:
            continue
        deleted = re.search(r"=\s*delete\s*;?\s*$", node_text(child)) is not None
        constructors.append((child, declarator, deleted))
    if not constructors:
        return ()
    numbers: tuple[str, ...] | None = None
    for child, declarator, deleted in constructors:
        if deleted or not _public(spec, child):
            continue
        plist = declarator.child_by_field_name("parameters")
        params = [
            p
            for p in (plist.named_children if plist is not None else ())
            if p.type in ("parameter_declaration", "optional_parameter_declaration")
        ]
        required = [p for p in params if p.type == "parameter_declaration"]
        if not required:
            return ()
        if numbers is None:
            numbers = _numbers(required, aliases)
    if numbers is not None:
        return numbers
    raise TaskError(
        f"{where}: cannot make a {owner} object to call the entry on: {owner} has no public "
        f"default constructor and no public constructor taking only numbers; add one (for "
        f"example `{owner}() = default;`, or a constructor whose parameters are numbers)"
    )


def _numbers(params: list[Node], aliases: Mapping[str, str]) -> tuple[str, ...] | None:
    """A distinct literal for each parameter when all are numbers by value or ``const&``."""
    out: list[str] = []
    for position, param in enumerate(params):
        type_node = param.child_by_field_name("type")
        declarator = param.child_by_field_name("declarator")
        const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in param.children)
        if declarator is not None and declarator.type == "reference_declarator" and const:
            declarator = declarator.named_children[0] if declarator.named_child_count else None
        if type_node is None or (declarator is not None and declarator.type != "identifier"):
            return None
        ctype = resolve_type(node_text(type_node), aliases)
        if not is_arithmetic(ctype):
            return None
        out.append(_literal(ctype, position))
    return tuple(out)


def _literal(ctype: str, position: int) -> str:
    """A number of type ``ctype`` written so that C++ reads it as that type."""
    dtype = numpy_dtype(ctype)
    if dtype.kind == "f":
        value = _FLOAT_DEFAULTS[position % len(_FLOAT_DEFAULTS)]
        return value + {4: "f", 8: ""}.get(dtype.itemsize, "L")
    if dtype.kind == "b":
        return "true"
    return str(position + 2) + ("u" if dtype.kind == "u" else "")


def _scalar_default(ctype: str, position: int) -> str:
    kind = numpy_dtype(ctype).kind
    if kind == "f":
        return _FLOAT_DEFAULTS[position % len(_FLOAT_DEFAULTS)]
    return "1" if kind == "b" else "3"


def _integral(ctype: str) -> bool:
    return is_arithmetic(ctype) and numpy_dtype(ctype).kind in "iu"


def _substituted(text: str, rename: Mapping[str, str]) -> str:
    """``text`` with each placeholder (``x_size``) replaced by what it stands for."""
    for placeholder, meaning in rename.items():
        if placeholder == meaning:
            continue
        shown = meaning if meaning.isidentifier() else f"({meaning})"
        text = re.sub(rf"\b{re.escape(placeholder)}\b", shown, text)
    return text


def _placeholder_names(
    params: tuple[Parameter, ...], note: Annotation, inferred: Inferred, where: str
) -> dict[str, str]:
    """What each vector's ``size()`` placeholder (``x_size``) stands for.

    A vector whose length the annotation gives (``x[m]``) has that length. Otherwise an
    annotation size variable no argument uses (``n = 1<<22``) names the one vector size
    the code leaves unbound; failing both, the first free name of ``n``, ``m``, ``k``,
    ``len``: what a person would have written.
    """
    names = {p.name for p in params}
    vectors = [p.name for p in params if p.kind in (ParamKind.VECTOR, ParamKind.SPAN)]
    rename: dict[str, str] = {}
    for v in vectors:
        given = note.arrays.get(v)
        if given is not None and given.length:
            rename[vector_size_name(v)] = given.length
    used: set[str] = set()
    for poly in inferred.lengths.values():
        used |= set(poly.names) if poly is not None else set()
    used |= set(inferred.size_vars)
    if inferred.return_length is not None:
        used |= set(inferred.return_length.names)
    open_ = [
        vector_size_name(v)
        for v in vectors
        if vector_size_name(v) in used and vector_size_name(v) not in rename
    ]
    mentioned: set[str] = set()
    for text in note.assignments.values():
        mentioned |= free_names(text, where=where)
    for array in note.arrays.values():
        mentioned |= free_names(array.length, where=where) if array.length else set()
        for key, text in array.dist.params if array.dist else ():
            if key in ("cols", "width", "height", "channels"):
                mentioned |= free_names(text, where=where)
    unbound = [n for n in note.assignments if n not in names and n not in mentioned]
    if len(open_) == 1 and len(unbound) == 1:
        rename[open_[0]] = unbound[0]
        return rename
    if (open_ and len(unbound) > 1) or (len(open_) > 1 and unbound):
        vectors_shown = ", ".join(repr(ph.removesuffix("_size")) for ph in open_)
        shown = "; ".join(f"{ph.removesuffix('_size')}[?]" for ph in open_)
        raise TaskError(
            f"{where}: annotation: cannot tell which of {', '.join(map(repr, unbound))} is "
            f"the size of which vector ({vectors_shown}); give each vector its length, "
            f"replacing each '?': // {MARKER} {shown}"
        )
    taken = names | set(note.assignments) | set(rename.values())
    free = [c for c in ("n", "m", "k", "len") if c not in taken]
    for ph in open_:
        rename[ph] = free.pop(0) if free else ph
    return rename


def _ordered(names: list[str]) -> list[str]:
    out: list[str] = []
    for n in names:
        if n not in out:
            out.append(n)
    return out


def _is_size(name: str, args: tuple[ArgSpec, ...]) -> bool:
    scalar = next((a for a in args if a.name == name), None)
    return scalar is None or _integral(scalar.ctype)


def _kernel_params(params: tuple[Parameter, ...], where: str) -> None:
    """A ``__global__`` kernel takes pointers and numbers by value, nothing else."""
    for p in params:
        at = f"{where}: kernel parameter {p.name!r} ({p.declaration})"
        if p.kind in (ParamKind.VECTOR, ParamKind.ARRAY, ParamKind.SPAN) or p.reference:
            raise TaskError(f"{at}: a kernel takes pointers and values; pass a device pointer")
        if p.kind is ParamKind.SCALAR and not is_arithmetic(p.element):
            raise TaskError(
                f"{at}: kernel tasks pass number scalars only; pass its fields as numbers"
            )


def _c_linkage(fn: Node) -> bool:
    """Defined inside ``extern "C"``: the harness must declare it so, or it will not link."""
    node = fn.parent
    while node is not None:
        if node.type == "linkage_specification":
            value = node.child_by_field_name("value")
            return value is not None and node_text(value).strip('"') == "C"
        node = node.parent
    return False


def _check_annotation_names(task: Task, note: Annotation, where: str) -> None:
    """Every name the annotation sets must be a parameter or a size something uses."""
    used: set[str] = {a.name for a in task.args}
    texts = [a.length for a in task.args] + [a.value for a in task.args]
    texts += [text for a in task.args for _, text in a.dist.params]
    texts += [task.return_length, *note.assignments.values()]
    if task.launch is not None:
        texts += [*task.launch.grid, *task.launch.block, task.launch.shared_bytes]
    for text in texts:
        if text:
            try:
                used |= free_names(text, where=where)
            except TaskError:
                continue
    arguments = {a.name for a in task.args} | {"return"}
    for name in note.arrays:
        if name not in arguments:
            raise TaskError(f"{where}: annotation: {name!r} is not a parameter of {task.entry!r}")
    for name in note.assignments:
        if name not in used:
            raise TaskError(
                f"{where}: annotation: {name!r} is not a parameter, a size used by any "
                "argument's length, or a value another item uses; remove it, or use it in a "
                f"length (x[{name}])"
            )


def _link_companions(args: list[ArgSpec]) -> list[ArgSpec]:
    """``rp ~ csr(col=ci)`` implies ``ci ~ part(of=rp)``; the user need not write both."""
    owners: dict[str, str] = {}
    for arg in args:
        key = STRUCTURED_KINDS.get(arg.dist.kind)
        companion = arg.dist.param(key) if key else None
        if companion:
            owners[companion] = arg.name
    out = []
    for arg in args:
        if arg.name in owners and arg.dist.kind != "part":
            part = Distribution(kind="part", params=(("of", owners[arg.name]),))
            out.append(replace(arg, dist=part))
        else:
            out.append(arg)
    return out


def _tolerance(
    note: Annotation,
    inferred: Inferred,
    args: tuple[ArgSpec, ...],
    returns: str,
    records: tuple[Record, ...],
) -> Tolerance:
    outputs = [a.ctype for a in args if a.role is not Role.IN] + (
        [vector_element(returns) or returns] if returns != "void" else []
    )
    singles = any(_is_float32(t, records) for t in outputs)
    base = ACCUMULATING_TOLERANCE if inferred.accumulates and singles else Tolerance()
    return Tolerance(
        atol=note.atol if note.atol is not None else base.atol,
        rtol=note.rtol if note.rtol is not None else base.rtol,
        per_term=0.0 if note.atol is not None else base.per_term,
    )


def _is_float32(ctype: str, records: tuple[Record, ...]) -> bool:
    try:
        dtype = numpy_dtype(ctype, records=records)
    except TaskError:
        return False
    if dtype.kind == "c":
        return dtype.itemsize == 8
    return any(leaf.kind == "f" and leaf.itemsize <= 4 for leaf in _leaves(dtype))


def _leaves(dtype: np.dtype[np.generic]) -> list[np.dtype[np.generic]]:
    if dtype.subdtype is not None:
        return _leaves(dtype.subdtype[0])
    if dtype.names is None:
        return [dtype]
    return [leaf for name in dtype.names for leaf in _leaves(dtype.fields[name][0])]  # type: ignore[index]


def _launch(
    *,
    note: Annotation,
    inferred: Inferred,
    kernel: str,
    args: tuple[ArgSpec, ...],
    sizes: Mapping[str, int | float],
    where: str,
) -> LaunchSpec:
    if note.grid is not None and note.block is not None:
        return LaunchSpec(kernel, note.grid, note.block, note.shared or "0")
    extents = [inferred.thread_extent.get(axis) for axis in ("x", "y", "z")]
    known = [e for e in extents if e is not None]
    if not known or extents[: len(known)] != known:
        comment = render_annotation(args, sizes) + "; grid = ?; block = ?"
        raise TaskError(
            f"{where}: cannot infer the launch of kernel {kernel!r} (no bound check on "
            f"threadIdx-derived indices). Write this annotation directly above it, "
            f"replacing each '?':\n    {comment}"
        )
    block = note.block or _BLOCKS[len(known)]
    grid = tuple(f"({e.render()} + {int(b) - 1})/{b}" for e, b in zip(known, block, strict=False))
    return LaunchSpec(kernel, note.grid or grid, block, note.shared or "0")
