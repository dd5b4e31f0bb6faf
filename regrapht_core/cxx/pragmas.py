"""Loop hints for CPU compilers and runtimes, blanked before a function is read.

``#pragma omp parallel for``, ``#pragma omp simd``, ``#pragma acc kernels``, ``#pragma GCC
ivdep``, ``#pragma clang loop vectorize(enable)``: what a CPU programmer writes over a loop to
run it on several cores or vector lanes. The sequential program is the same without them
(the reference is built without ``-fopenmp``, where they are ignored), while the CUDA the
rewriters write may not carry them: the verifier's gate allows only ``#pragma unroll``,
``nounroll`` and ``once``, so a kept ``omp`` line failed every candidate. Each hint's line
stays, empty, so messages keep the user's line numbers. ``#pragma unroll`` is CUDA's own and
is kept.
"""

from __future__ import annotations

from regrapht_core.cxx.parse import Node, node_text, walk
from regrapht_core.cxx.splice import Edit, apply_edits

__all__ = ["drop_loop_hints"]

_FIRST = frozenset({"omp", "acc", "simd", "ivdep", "vector", "novector", "loop_count"})
"""Hints known by their first word: OpenMP, OpenACC, Intel's loop pragmas."""
_FIRST_TWO = frozenset({"GCC ivdep", "GCC unroll", "GCC novector", "clang loop"})
"""Hints of GCC and Clang, known by their first two words (``GCC optimize`` is not one)."""


def drop_loop_hints(source: str, function: Node) -> str:
    """``source`` with every loop hint inside ``function`` blanked (see the module);
    ``source`` itself when there is none."""
    edits = [
        # a hint continued with `\` spans lines: its newlines stay
        Edit(call.start_byte, argument.end_byte, "\n" * node_text(argument).count("\n"))
        for call in walk(function)
        if call.type == "preproc_call"
        and (argument := call.child_by_field_name("argument")) is not None
        and node_text(call.child_by_field_name("directive") or call) == "#pragma"
        and _hint(node_text(argument))
    ]
    return apply_edits(source.encode("utf-8"), edits) if edits else source


def _hint(argument: str) -> bool:
    words = argument.split()
    return bool(words) and (words[0] in _FIRST or " ".join(words[:2]) in _FIRST_TWO)
