"""The entry's sequential loop, found and analysed: what the loop rewriters start from.

An entry whose body only calls a function of its file hands its work to a concrete copy
of that function (:mod:`regrapht_core.rewrite.delegation`); an entry over containers is
then split into its pointer form (:mod:`regrapht_core.rewrite.pointer_form`), so the map,
the reduction and the scaffold rewriters all see a function of pointers and sizes; an
entry with several top-level loops is mapped loop by loop (:func:`analysed_loop` with
``loop=k``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from regrapht_core.contracts.task import Task
from regrapht_core.cxx.dependence import LoopFacts, analyse_loop
from regrapht_core.cxx.entry import EntryFunction, entry_function
from regrapht_core.cxx.parse import Node, node_text
from regrapht_core.cxx.refusal import Refusal
from regrapht_core.cxx.splice import Edit, apply_edits
from regrapht_core.cxx.symbols import file_symbols
from regrapht_core.cxx.syntax import NameAllocator, parse
from regrapht_core.rewrite.assemble import (
    KernelInterface,
    assemble,
    kernel_interface,
    loop_var_type,
)
from regrapht_core.rewrite.bounds import hoisted_bounds
from regrapht_core.rewrite.delegation import delegated
from regrapht_core.rewrite.hostcode import DeviceBuffer, buffer_plan
from regrapht_core.rewrite.pointer_form import pointer_form
from regrapht_core.rewrite.protocol import RewriteContext

__all__ = [
    "SequentialLoop",
    "SplitEntry",
    "analysed_loop",
    "as_map",
    "map_loop",
    "sequential_loop",
    "split_entry",
    "split_entry_function",
]


@dataclass(frozen=True, slots=True)
class SequentialLoop:
    """A parsed, analysed sequential entry: what both loop rewriters start from."""

    code: str
    """The code the loop is in: the user's, or its pointer form (:mod:`.pointer_form`)."""
    task: Task
    """The task of the function the loop is in (the pointer form's, when split)."""
    root: Node
    entry: EntryFunction
    facts: LoopFacts
    written: str = ""
    """The loop as the user wrote it, when the analysed loop's body stands in for it
    (:meth:`SplitEntry.with_body`): what runs when the facts' guards fail."""

    def interface(self, names: NameAllocator) -> tuple[list[DeviceBuffer], KernelInterface]:
        """The device buffers the loop needs, and the kernel's parameters and arguments."""
        buffers = buffer_plan(self.entry, self.facts, self.task, names)
        return buffers, kernel_interface(self.entry, self.facts, buffers)

    def candidate(self, kernel: str, gpu_lines: list[str]) -> str:
        """The code with ``kernel`` added and the loop replaced by ``gpu_lines``."""
        return assemble(
            self.code,
            self.root,
            self.entry,
            self.facts,
            kernels=kernel,
            gpu_lines=gpu_lines,
            written=self.written or None,
        )


def split_entry(code: str, task: Task) -> tuple[str, Task]:
    """The code and task the loop rewriters work on: the callee's concrete copy when the
    entry only calls a function of the file, then its pointer form when it takes
    containers or references, else the code as it is; in each, the top-level loops' bounds
    that read a read-only array are read once before the loop (:mod:`.bounds`)."""
    code, task = delegated(code, task)
    split = pointer_form(code, task)
    if split is not None:
        code, task = split.code, split.task
    return hoisted_bounds(code, task), task


@dataclass(frozen=True, slots=True)
class SplitEntry:
    """The split code, its task and parse, and the entry around its only loop, not yet
    analysed: what a rewriter reads when it recognises a loop the analysis would refuse
    (a scan, a recurrence, a search) and rewrites it into one it accepts."""

    code: str
    task: Task
    root: Node
    entry: EntryFunction

    def terms_map(self, statement: str) -> SequentialLoop:
        """The loop with ``statement`` as its whole body, analysed as a map."""
        return as_map(self.with_body(statement))

    def with_body(self, statement: str) -> SequentialLoop:
        """The loop with ``statement`` as its whole body, analysed; the loop as written is
        kept for the host to run when the facts' guards fail."""
        body = f"{{\n    {statement}\n  }}"
        code = apply_edits(self.code.encode("utf-8"), [Edit.replace(self.entry.loop.body, body)])
        found = analysed_loop(code, self.task)
        return dataclasses.replace(found, written=node_text(self.entry.loop.node))


def split_entry_function(code: str, task: Task) -> SplitEntry:
    """:func:`split_entry`, parsed, with the entry function around its only loop."""
    code, task = split_entry(code, task)
    root = parse(code).root_node
    return SplitEntry(code, task, root, entry_function(root, task))


def analysed_loop(
    code: str,
    task: Task,
    *,
    loop: int | None = None,
    prove_ownership: bool = True,
    atomic: frozenset[str] = frozenset(),
) -> SequentialLoop:
    """Top-level loop number ``loop`` of ``task``'s entry in ``code`` (already split);
    ``None``: the only one. ``atomic``: arrays left out of the ownership proof
    (:func:`~regrapht_core.cxx.dependence.analyse_loop`)."""
    root = parse(code).root_node
    entry = entry_function(root, task, loop)
    facts = analyse_loop(entry, file_symbols(root), prove_ownership=prove_ownership, atomic=atomic)
    loop_var_type(entry)
    return SequentialLoop(code, task, root, entry, facts)


def sequential_loop(
    code: str, context: RewriteContext, *, prove_ownership: bool = True
) -> SequentialLoop:
    """The entry's only loop, analysed; an entry over containers is split first."""
    code, task = split_entry(code, context.task)
    return analysed_loop(code, task, prove_ownership=prove_ownership)


def map_loop(code: str, context: RewriteContext, *, prove_ownership: bool = True) -> SequentialLoop:
    """The entry's loop when it is a map (no reduction); see :func:`sequential_loop`."""
    return as_map(sequential_loop(code, context, prove_ownership=prove_ownership))


def as_map(found: SequentialLoop) -> SequentialLoop:
    """``found`` when it reduces nothing, else the refusal naming the reduction."""
    if found.facts.reductions:
        first = found.facts.reductions[0]
        raise Refusal(
            f"the loop accumulates into `{first.var}` (a {first.op} reduction); the "
            "reduction rewriter (warp_shuffle_reduction) handles it"
        )
    return found
