"""Whether a model's answer shows the technique it was asked for.

The search labels a candidate with the step it asked for. A rewriter's candidate is that
step by construction; a model's need not be. Asked for a library call, the 0.5B model wrote
a plain one-thread-per-output kernel in 10 of its 17 verified suite answers on the H200
(`benchmarks/results/gpu-h200-suite-model-only-b8-qwen-gpu-753e058.json`, none calls a
library), and the trace, the editor's hover, the bench's techniques and a learned
trajectory all said "library call". Some techniques leave a mark in the code that cannot be
missing where they are used (`__shared__` for shared-memory tiling, a library's namespace
or API for a library call); for those, :func:`shows` says whether the answer has more of
the mark than the code it started from. The others (launch configuration, coalescing,
unrolling by hand...) cannot be told from the text and are taken as asked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["bare", "missing", "shows"]

_STRINGS_AND_COMMENTS = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL
)


def bare(code: str) -> str:
    """``code`` with its comments and string and character literals blanked: what a
    search of the text for code must read (a comment naming ``__shared__`` is not one)."""
    return _STRINGS_AND_COMMENTS.sub(" ", code)


_MARK_TABLE = (
    (
        "library_call",
        r"\b(?:thrust|cub)::|\b(?:cublas|cusparse|cufft|curand|cusolver)\w*\s*\(",
        "no call of cuBLAS, cuSPARSE, cuFFT, cuRAND, Thrust or CUB",
    ),
    ("shared_memory_tiling", r"\b__shared__\b", "no `__shared__` array"),
    (
        "warp_shuffle_reduction",
        r"\b__shfl\w*_sync\s*\(|\b__reduce_\w+_sync\s*\(|\bcg::reduce\s*\(",
        "no warp shuffle (`__shfl_down_sync` and the like)",
    ),
    ("atomics", r"\batomic[A-Z]\w*\s*\(", "no atomic operation (`atomicAdd`...)"),
    ("constant_memory", r"\b__constant__\b", "no `__constant__` data"),
    (
        "pinned_memory",
        r"\bcuda(?:MallocHost|HostAlloc|HostRegister)\s*\(",
        "no pinned host memory (`cudaMallocHost`, `cudaHostAlloc`, `cudaHostRegister`)",
    ),
    (
        "vectorized_access",
        r"\b(?:u?char|u?short|u?int|u?long|u?longlong|float|double|__half)[248]\b",
        "no vector type (`float4`, `int2`...)",
    ),
    (
        "read_only_cache",
        r"\b__ldg\s*\(|\b__restrict__\b",
        "no `__ldg` load and no `__restrict__` pointer",
    ),
    (
        "grid_stride_loop",
        r"\bblockDim\.x\s*\*\s*gridDim\.x\b|\bgridDim\.x\s*\*\s*blockDim\.x\b",
        "no grid stride (`blockDim.x * gridDim.x`)",
    ),
    ("tensor_cores", r"\bwmma::|\bmma\.sync\b", "no WMMA or `mma.sync`"),
    ("async_streams", r"\bcudaStreamCreate\w*\s*\(", "no stream of its own (`cudaStreamCreate`)"),
    (
        "fast_math",
        r"\b__(?:exp|exp10|log|log2|log10|sin|cos|tan|sincos|pow)f\s*\("
        r"|\b__f(?:add|sub|mul|div|rcp|sqrt|rsqrt|ma)_r[nzud]\s*\("
        r"|\b__fdividef\s*\(|\b__saturatef\s*\(|\brsqrtf\s*\(",
        "no fast-math intrinsic (`__expf`, `__fdividef`, `rsqrtf`...)",
    ),
)
"""Each technique with a mark: the mark (a regular expression over code without comments
or strings), and what an answer without it lacks."""
_MARKS: Mapping[str, tuple[re.Pattern[str], str]] = MappingProxyType(
    {name: (re.compile(mark), lacks) for name, mark, lacks in _MARK_TABLE}
)


def shows(technique: str, before: str, after: str) -> bool | None:
    """Whether ``after`` has more of ``technique``'s mark than ``before`` (comments and
    strings aside); ``None`` for a technique the text cannot tell."""
    mark = _MARKS.get(technique)
    if mark is None:
        return None
    pattern = mark[0]
    return len(pattern.findall(bare(after))) > len(pattern.findall(bare(before)))


def missing(technique: str) -> str:
    """What an answer without ``technique``'s mark lacks, for the model's retry."""
    mark = _MARKS.get(technique)
    return "" if mark is None else mark[1]
