"""Which rewriters apply which technique.

Keyed by the taxonomy's technique ids, so the search can look a rewriter up by the graph
node it is expanding. A technique may have several rewriters, tried in order: the
parallelization node lists the tiled transpose first (it refuses every loop but a
transpose-like nest, and there it beats the map rewriter's 2-D mapping, which strides one
side), then the row reduction (it refuses every loop but one over rows that each reduce,
and there a block or a warp per row beats one thread per row), then the register-blocked
and the shared-memory-tiled matrix products (they refuse every loop but a `C = A B` nest,
where they beat one thread per output), then the map rewriter,
the reduction rewriter, the two shared-update rewriters (privatized first, then plain
atomics), the running-total scan, the linear recurrence, the first-match search and the
arg-reduction, because the same first step turns any of those loops into CUDA; for a
histogram both shared-update rewriters answer, and the plain atomics are the next
candidate when the privatized one fails. Last, an entry with several top-level loops has
each mapped by the first of those that takes it (:mod:`regrapht_core.rewrite.loop_by_loop`);
the others refuse such an entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from regrapht_core.graph.taxonomy import TECHNIQUES
from regrapht_core.rewrite.arg_reduction import ArgReduction
from regrapht_core.rewrite.atomics import AtomicUpdates
from regrapht_core.rewrite.compaction import Compaction
from regrapht_core.rewrite.constant_memory import ConstantMemory
from regrapht_core.rewrite.counting_sort import CountingSort
from regrapht_core.rewrite.fast_math import FastMath
from regrapht_core.rewrite.first_match import FirstMatch
from regrapht_core.rewrite.grid_stride import GridStrideLoop
from regrapht_core.rewrite.launch_config import LaunchConfiguration
from regrapht_core.rewrite.loop_by_loop import LoopByLoop
from regrapht_core.rewrite.matmul import BlockedMatmul, TiledMatmul
from regrapht_core.rewrite.parallelize import Parallelize
from regrapht_core.rewrite.privatize import PrivatizedUpdates
from regrapht_core.rewrite.protocol import Rewriter
from regrapht_core.rewrite.recurrence import LinearFold, LinearRecurrence
from regrapht_core.rewrite.reduction import ParallelReduction
from regrapht_core.rewrite.restrict import ReadOnlyRestrict
from regrapht_core.rewrite.rows import RowReduction
from regrapht_core.rewrite.scan import LibraryScan
from regrapht_core.rewrite.scatter import LastWriterScatter
from regrapht_core.rewrite.swap_transpose import InPlaceTranspose
from regrapht_core.rewrite.tiling import TiledTranspose
from regrapht_core.rewrite.top_two import TopTwo
from regrapht_core.rewrite.transfers import PinnedMemory, TransferMinimization
from regrapht_core.rewrite.unroll import LoopUnrolling
from regrapht_core.rewrite.vectorize import VectorizedAccess

__all__ = ["Registry", "default_registry", "registry_of"]

Registry = Mapping[str, tuple[Rewriter, ...]]

_KNOWN = frozenset(t.id for t in TECHNIQUES)


def registry_of(entries: Iterable[tuple[str, Rewriter]]) -> Registry:
    """A registry from ``(technique id, rewriter)`` pairs, refusing ids the taxonomy lacks."""
    table: dict[str, list[Rewriter]] = {}
    for technique, rewriter in entries:
        if technique not in _KNOWN:
            raise ValueError(f"{technique!r} is not a technique id of the taxonomy")
        table.setdefault(technique, []).append(rewriter)
    return MappingProxyType({k: tuple(v) for k, v in table.items()})


def default_registry() -> Registry:
    reduction, private, atomics = ParallelReduction(), PrivatizedUpdates(), AtomicUpdates()
    scan, recurrence, search = LibraryScan(), LinearRecurrence(), FirstMatch()
    arg, scatter, fold, top = ArgReduction(), LastWriterScatter(), LinearFold(), TopTwo()
    counting, compaction = CountingSort(), Compaction()
    tiled, rows, swapped = TiledTranspose(), RowReduction(), InPlaceTranspose()
    blocked, matmul, mapped = BlockedMatmul(), TiledMatmul(), Parallelize()
    rewriters: list[Rewriter] = [
        tiled,
        swapped,
        blocked,
        matmul,
        mapped,
        reduction,
        rows,
        private,
        atomics,
        scan,
        recurrence,
        search,
        arg,
        scatter,
        fold,
        top,
        counting,
        compaction,
        GridStrideLoop(),
        LaunchConfiguration(),
        ReadOnlyRestrict(),
        LoopUnrolling(),
        VectorizedAccess(),
        TransferMinimization(),
        PinnedMemory(),
        ConstantMemory(),
        FastMath(),
    ]
    pairs: list[tuple[str, Rewriter]] = [("parallelization", tiled), ("parallelization", rows)]
    pairs.append(("parallelization", swapped))
    pairs += [("parallelization", blocked), ("parallelization", matmul)]
    pairs += [(r.technique, r) for r in rewriters]
    later = (reduction, private, atomics, scan, recurrence, search, arg, scatter, fold, top)
    pairs += [("parallelization", counting), ("parallelization", compaction)]
    pairs += [("parallelization", r) for r in later]
    single = (tiled, rows, swapped, blocked, matmul, mapped, *later)
    pairs.append(("parallelization", LoopByLoop(single, explains=mapped)))
    return registry_of(pairs)
