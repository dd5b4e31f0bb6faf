"""The canonical CUDA optimization techniques: the nodes a ReGraph may hold.

Trajectories name techniques in free form ("use smem tiling", "Tile with shared memory");
the graph is only useful when those collapse onto one node each, so every technique lists
the names it goes by. The synonyms are written as people write them; the relabeller
normalises both sides the same way, so case, punctuation and filler words need not be
repeated here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from regrapht_core.contracts.techniques import PARALLELIZATION, SEQUENTIAL

__all__ = ["SEQUENTIAL", "TECHNIQUES", "Technique", "display_name", "technique"]


@dataclass(frozen=True, slots=True)
class Technique:
    id: str
    name: str
    description: str
    synonyms: tuple[str, ...]


TECHNIQUES: tuple[Technique, ...] = (
    Technique(
        PARALLELIZATION,
        "Parallelization",
        "Map independent loop iterations onto CUDA threads and launch a kernel.",
        (
            "parallelize the loop across CUDA threads",
            "parallelize",
            "parallelize the loop",
            "parallelize the outer loop",
            "Parallelize the outer loop with CUDA threads",
            "parallelize with CUDA threads",
            "map iterations to threads",
            "map loop iterations to threads",
            "one thread per element",
            "one thread per output",
            "CUDA parallelization",
            "naive CUDA kernel",
            "basic CUDA kernel",
            "port to CUDA",
            "offload to GPU",
            "thread mapping",
            "data parallelism",
        ),
    ),
    Technique(
        "grid_stride_loop",
        "Grid-stride loop",
        "Let each thread step through the data by the grid size so any n fits any launch.",
        (
            "grid stride",
            "grid-stride loop",
            "grid stride loops",
            "grid stride looping",
            "grid-strided loop",
            "stride loop over the grid",
            "persistent threads",
        ),
    ),
    Technique(
        "memory_coalescing",
        "Memory coalescing",
        "Arrange accesses so consecutive threads touch consecutive addresses.",
        (
            "coalescing",
            "coalesced access",
            "coalesced memory access",
            "coalesced loads",
            "coalesced reads",
            "coalesced writes",
            "coalesce global memory accesses",
            "memory access coalescing",
            "global memory coalescing",
            "improve memory access pattern",
            "data layout transformation",
            "array of structures to structure of arrays",
            "AoS to SoA",
            "structure of arrays",
            "transpose for coalescing",
        ),
    ),
    Technique(
        "shared_memory_tiling",
        "Shared-memory tiling",
        "Stage reused tiles of global data in shared memory and compute from there.",
        (
            "shared memory",
            "smem",
            "smem tiling",
            "shared memory tiling",
            "tiling with shared memory",
            "use shared memory to tile",
            "tile with shared memory",
            "tiled shared memory",
            "shared memory blocking",
            "block tiling",
            "tiled kernel",
            "shared memory caching",
            "cache in shared memory",
            "loop tiling",
            "tiling",
            "blocking",
        ),
    ),
    Technique(
        "register_blocking",
        "Register blocking / thread coarsening",
        "Give each thread several outputs held in registers to raise reuse and ILP.",
        (
            "thread coarsening",
            "coarsening",
            "register tiling",
            "register blocking",
            "register reuse",
            "register caching",
            "multiple outputs per thread",
            "more work per thread",
            "increase work per thread",
            "instruction level parallelism",
            "ILP",
        ),
    ),
    Technique(
        "loop_unrolling",
        "Loop unrolling",
        "Unroll inner loops (#pragma unroll) to cut branch overhead and expose ILP.",
        (
            "unroll",
            "unrolling",
            "unroll loops",
            "unroll the inner loop",
            "pragma unroll",
            "manual unrolling",
            "full unrolling",
        ),
    ),
    Technique(
        "vectorized_access",
        "Vectorized memory access",
        "Load and store through float2/float4/int4 so each instruction moves more bytes.",
        (
            "vectorized float4 loads",
            "float4 loads and stores",
            "vectorization",
            "vectorize",
            "vectorized loads",
            "vectorized loads and stores",
            "vectorized stores",
            "vector loads",
            "float4",
            "float4 loads",
            "wide loads",
            "128-bit loads",
        ),
    ),
    Technique(
        "read_only_cache",
        "Read-only data / restrict",
        "Mark inputs const __restrict__ (or __ldg) so loads go through the read-only cache.",
        (
            "__restrict__ and __ldg",
            "restrict",
            "restrict pointers",
            "__restrict__",
            "const restrict",
            "read-only cache",
            "read only data cache",
            "ldg",
            "__ldg",
            "texture cache",
            "pointer aliasing",
            "no aliasing",
        ),
    ),
    Technique(
        "warp_shuffle_reduction",
        "Warp-shuffle reduction",
        "Reduce within a warp with __shfl_down_sync instead of shared memory and barriers.",
        (
            "shared-memory tree reduction",
            "warp shuffle",
            "warp shuffles",
            "shuffle reduction",
            "warp reduction",
            "warp-level reduction",
            "warp-level primitives",
            "shfl_down_sync",
            "__shfl_down_sync",
            "warp reduce",
            "parallel reduction",
            "tree reduction",
            "block reduction",
            "reduction",
        ),
    ),
    Technique(
        "atomics",
        "Atomic operations",
        "Combine results across threads with atomicAdd/atomicMax instead of a second pass.",
        (
            "atomic",
            "atomic operations",
            "atomic add",
            "atomicAdd",
            "atomic updates",
            "global atomics",
            "atomic accumulation",
        ),
    ),
    Technique(
        "privatization",
        "Privatization",
        "Accumulate in per-thread or per-block private copies, merge once at the end.",
        (
            "privatized shared-memory histograms",
            "privatize",
            "private accumulators",
            "per-block histogram",
            "shared memory atomics",
            "local accumulation",
            "per thread accumulation",
            "privatized histogram",
        ),
    ),
    Technique(
        "warp_divergence_elimination",
        "Warp-divergence elimination",
        "Restructure branches so threads of a warp take the same path.",
        (
            "warp divergence",
            "divergence elimination",
            "reduce divergence",
            "reduce warp divergence",
            "avoid warp divergence",
            "branch divergence",
            "minimize branch divergence",
            "branchless",
            "branch elimination",
            "predication",
        ),
    ),
    Technique(
        "bank_conflict_avoidance",
        "Bank-conflict avoidance",
        "Pad or swizzle shared-memory arrays so a warp's accesses hit distinct banks.",
        (
            "padding to avoid bank conflicts",
            "bank conflicts",
            "bank conflict padding",
            "avoid bank conflicts",
            "shared memory padding",
            "padding",
            "shared memory bank conflicts",
            "swizzle",
            "swizzling",
        ),
    ),
    Technique(
        "launch_configuration",
        "Launch-configuration tuning",
        "Choose block size and grid size for occupancy (cudaOccupancyMaxPotentialBlockSize).",
        (
            "launch configuration",
            "launch config tuning",
            "block size tuning",
            "tune block size",
            "thread block size",
            "occupancy",
            "occupancy tuning",
            "increase occupancy",
            "launch bounds",
            "__launch_bounds__",
            "grid configuration",
        ),
    ),
    Technique(
        "kernel_fusion",
        "Kernel fusion",
        "Fuse consecutive kernels so intermediates stay in registers, not global memory.",
        (
            "fusion",
            "fuse kernels",
            "kernel merging",
            "operator fusion",
            "loop fusion",
            "fuse loops",
            "merge kernels",
        ),
    ),
    Technique(
        "transfer_minimization",
        "Host-device transfer minimization",
        "Keep data resident on the device and copy only what the host needs.",
        (
            "minimize transfers",
            "minimize memory transfers",
            "reduce host device transfers",
            "reduce data transfers",
            "avoid redundant copies",
            "data residency",
            "keep data on the device",
            "memcpy reduction",
        ),
    ),
    Technique(
        "async_streams",
        "Asynchronous copies and streams",
        "Overlap transfers and kernels with cudaMemcpyAsync on several streams.",
        (
            "streams",
            "cuda streams",
            "async copies",
            "asynchronous memcpy",
            "cudaMemcpyAsync",
            "overlap transfers",
            "overlap computation and communication",
            "copy compute overlap",
            "concurrent kernels",
            "pipelining",
        ),
    ),
    Technique(
        "pinned_memory",
        "Pinned host memory",
        "Allocate host buffers page-locked (cudaMallocHost) for faster, async-capable copies.",
        (
            "pinned",
            "page-locked memory",
            "page locked host memory",
            "cudaMallocHost",
            "cudaHostAlloc",
            "pinned host buffers",
            "host pinned memory",
            "zero copy",
        ),
    ),
    Technique(
        "fast_math",
        "Fast math",
        "Use intrinsics (__expf, __fdividef, rsqrtf, fmaf) or --use_fast_math where exact "
        "rounding is not required.",
        (
            "fast math intrinsics",
            "intrinsics",
            "math intrinsics",
            "use_fast_math",
            "--use_fast_math",
            "fused multiply add",
            "fma",
            "rsqrtf",
            "__expf",
            "single precision math",
            "strength reduction",
        ),
    ),
    Technique(
        "constant_memory",
        "Constant memory",
        "Put small read-only tables and coefficients in __constant__ memory.",
        (
            "constant",
            "__constant__",
            "constant cache",
            "cudaMemcpyToSymbol",
            "constant memory for coefficients",
            "filter in constant memory",
        ),
    ),
    Technique(
        "library_call",
        "Library call",
        "Replace hand-written code with a tuned library routine (cuBLAS, CUB, Thrust, cuFFT).",
        (
            "library",
            "use a library",
            "cuBLAS",
            "cublas gemm",
            "CUB",
            "cub device reduce",
            "Thrust",
            "thrust reduce",
            "thrust sort",
            "cuFFT",
            "cuSPARSE",
            "cuRAND",
            "vendor library",
        ),
    ),
    Technique(
        "tensor_cores",
        "Tensor cores",
        "Compute matrix tiles with WMMA/MMA instructions on tensor cores.",
        (
            "tensor core",
            "wmma",
            "mma",
            "mma.sync",
            "nvcuda wmma",
            "tensor core mma",
            "half precision tensor cores",
            "matrix multiply accumulate",
        ),
    ),
    Technique(
        "double_buffering",
        "Double buffering",
        "Prefetch the next tile (cp.async or registers) while computing on the current one.",
        (
            "double buffer",
            "double buffered tiles",
            "prefetching",
            "prefetch",
            "software pipelining",
            "cp.async",
            "memcpy_async",
            "multi-stage pipeline",
            "latency hiding",
        ),
    ),
    Technique(
        "algorithmic_change",
        "Algorithmic change",
        "Replace the algorithm with one better suited to the GPU (scan, sort, different "
        "decomposition).",
        (
            "online softmax",
            "algorithm change",
            "algorithmic improvement",
            "change the algorithm",
            "better algorithm",
            "algorithm redesign",
            "reformulate the algorithm",
            "parallel scan",
            "prefix sum",
            "work efficient algorithm",
        ),
    ),
    Technique(
        "memory_allocation_reuse",
        "Allocation reuse",
        "Allocate device buffers once and reuse them instead of cudaMalloc/cudaFree per call.",
        (
            "reuse allocations",
            "avoid repeated cudaMalloc",
            "buffer reuse",
            "memory pool",
            "cudaMallocAsync",
            "preallocate device memory",
        ),
    ),
)

_BY_ID: Mapping[str, Technique] = MappingProxyType({t.id: t for t in TECHNIQUES})


def technique(node: str) -> Technique | None:
    """The taxonomy entry of a node id; ``None`` for ``sequential`` and for added nodes."""
    return _BY_ID.get(node)


def display_name(node: str) -> str:
    """A human label for any node, including ``sequential`` and nodes added by ``allow_new``."""
    if node == SEQUENTIAL:
        return "Sequential code"
    known = _BY_ID.get(node)
    return known.name if known is not None else node.replace("_", " ")
