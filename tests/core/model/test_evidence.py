"""Which techniques an answer's text shows, and which it cannot."""

from __future__ import annotations

import pytest

from regrapht_core.model.evidence import missing, shows

PLAIN = """__global__ void k(int n, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}"""


@pytest.mark.parametrize(
    ("technique", "line"),
    [
        ("library_call", "cublasSgemv(handle, CUBLAS_OP_T, n, n, &one, a, n, x, 1, &zero, y, 1);"),
        ("library_call", "thrust::transform(x, x + n, y, f);"),
        ("library_call", "cub::DeviceReduce::Sum(tmp, bytes, x, out, n);"),
        ("shared_memory_tiling", "__shared__ float tile[32][33];"),
        ("warp_shuffle_reduction", "v += __shfl_down_sync(0xffffffff, v, 16);"),
        ("atomics", "atomicAdd(&out[0], v);"),
        ("constant_memory", "__constant__ float taps[33];"),
        ("pinned_memory", "cudaMallocHost(&h, bytes);"),
        ("vectorized_access", "float4 v = reinterpret_cast<const float4*>(x)[i];"),
        ("vectorized_access", "__half2 h = a[i];"),
        ("read_only_cache", "float v = __ldg(&x[i]);"),
        ("grid_stride_loop", "for (; i < n; i += blockDim.x * gridDim.x) {}"),
        ("async_streams", "cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);"),
        ("fast_math", "y[i] = __expf(x[i]);"),
        ("fast_math", "y[i] = __fdividef(1.0f, x[i]);"),
    ],
)
def test_a_technique_with_a_mark_is_shown_by_it(technique: str, line: str) -> None:
    assert shows(technique, PLAIN, f"{PLAIN}\nvoid f() {{ {line} }}") is True
    assert shows(technique, PLAIN, PLAIN) is False
    assert missing(technique)


def test_a_plain_kernel_is_not_a_library_call_even_including_a_librarys_header() -> None:
    """The 0.5B model's dense_sgemm answer at 753e058: `<cub/cub.cuh>` included, unused."""
    assert shows("library_call", "void f() {}", f"#include <cub/cub.cuh>\n{PLAIN}") is False


def test_only_marks_the_answer_added_count() -> None:
    tiled = PLAIN.replace("{\n", "{\n  __shared__ float t[256];\n", 1)
    assert shows("shared_memory_tiling", tiled, tiled) is False
    assert shows("shared_memory_tiling", tiled, tiled + "\n__shared__ float u[8];") is True


def test_comments_and_strings_are_not_code() -> None:
    answer = f'{PLAIN}\n// uses __shared__ memory and atomicAdd\nconst char* s = "__ldg(";'
    for technique in ("shared_memory_tiling", "atomics", "read_only_cache"):
        assert shows(technique, PLAIN, answer) is False


@pytest.mark.parametrize(
    "technique", ["parallelization", "launch_configuration", "loop_unrolling", "cuda_port"]
)
def test_techniques_the_text_cannot_tell_are_taken_as_asked(technique: str) -> None:
    assert shows(technique, PLAIN, PLAIN) is None
    assert missing(technique) == ""
