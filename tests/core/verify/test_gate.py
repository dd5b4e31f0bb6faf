"""The static gate: each rule refuses its snippet on the marked line, honest code passes.

Snippets mark every line the gate must flag with ``// gate: <rule>`` (the corpus's
convention), and the gate must report exactly those (line, rule) pairs: a missed cheat
and a spurious complaint about honest code are both failures.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import replace

import pytest

from regrapht_core.contracts.task import ArgSpec, ParamKind, Role, Task, TaskMode
from regrapht_core.errors import TaskError
from regrapht_core.verify.gate import GatePolicy, Rule, check
from tests.data.candidates.corpus import gate_marks
from tests.data.candidates.tasks import SAXPY, SUM, VADD

ENTRY = """void saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
"""

MATMUL = Task(
    name="matmul",
    source=(
        "void matmul(int n, const float* A, const float* B, float* C) {\n"
        "  for (int i = 0; i < n; ++i)\n"
        "    for (int j = 0; j < n; ++j) {\n"
        "      float s = 0.0f;\n"
        "      for (int k = 0; k < n; ++k) s += A[i * n + k] * B[k * n + j];\n"
        "      C[i * n + j] = s;\n"
        "    }\n"
        "}\n"
    ),
    entry="matmul",
    signature="void matmul(int n, const float* A, const float* B, float* C)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("A", ParamKind.POINTER, "float", length="n*n"),
        ArgSpec("B", ParamKind.POINTER, "float", length="n*n"),
        ArgSpec("C", ParamKind.POINTER, "float", Role.OUT, length="n*n"),
    ),
    correctness_sizes=({"n": 1}, {"n": 33}),
    timing_size={"n": 1024},
)

KERNEL_TASK = Task(
    name="scale_kernel",
    source="__global__ void scale(int n, float* y) { if (threadIdx.x < n) y[0] *= 2; }\n",
    entry="scale",
    signature="__global__ void scale(int n, float* y)",
    args=(
        ArgSpec("n", ParamKind.SCALAR, "int", value="n"),
        ArgSpec("y", ParamKind.POINTER, "float", Role.INOUT, length="n"),
    ),
    correctness_sizes=({"n": 1},),
    timing_size={"n": 1 << 20},
    mode=TaskMode.KERNEL_TO_KERNEL,
)


def found(source: str, task: Task = SAXPY, policy: GatePolicy | None = None) -> set[object]:
    return {(v.line, v.rule) for v in check(source, task, policy).violations}


# Each case: a candidate for SAXPY whose marked lines, and only those, must be flagged.
REFUSED = {
    "parse-error": "#include <cuda_runtime.h>\n"
    "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  y[0] = ;  // gate: parse\n"
    "}\n",
    "parse-trigraph": "#include <cuda_runtime.h>\n" + ENTRY + "// sneaky ??/  // gate: parse\n",
    "parse-ucn-identifier": "#include <cuda_runtime.h>\n"
    "void saxpy(int n, float a, const float* x, float* y) {\n"
    '  \\u0070rintf("x");  // gate: parse, io\n'
    "}\n",
    "include-iostream": "#include <iostream>  // gate: include\n" + ENTRY,
    "include-local": '#include "harness.h"  // gate: include\n' + ENTRY,
    "include-computed": "#define HDR <cstdio>\n#include HDR  // gate: include\n" + ENTRY,
    "include-thrust-omp": "#include <thrust/system/omp/execution_policy.h>  // gate: include\n"
    + ENTRY,
    "include-escape": "#include <cub/../../../etc/passwd>  // gate: include\n" + ENTRY,
    "pragma-omp": ENTRY + "#pragma omp parallel for  // gate: pragma\n",
    "pragma-gcc": '#pragma GCC optimize("O0")  // gate: pragma\n' + ENTRY,
    "pragma-operator": '#define UNROLL _Pragma("omp parallel")  // gate: pragma\n' + ENTRY,
    "directive-line": "#line 1  // gate: directive\n" + ENTRY,
    "directive-include-next": "#include_next <cmath>  // gate: directive\n" + ENTRY,
    "macro-main": "#define main harness_main  // gate: macro\n" + ENTRY,
    "macro-system-name": "#define printf(...) 0  // gate: macro\n" + ENTRY,
    "macro-undef-entry": "#undef saxpy  // gate: macro\n" + ENTRY,
    "macro-reserved": "#define __CUDA_ARCH__ 900  // gate: macro\n" + ENTRY,
    "macro-keyword": "#define float double  // gate: macro\n" + ENTRY,
    "macro-cuda-api": "#define cudaMemcpy(...) cudaSuccess  // gate: macro\n" + ENTRY,
    "macro-token-paste": "#define GLUE(a, b) a##b  // gate: macro\n" + ENTRY,
    "macro-spliced-body": "#define SHOW(m) /* gate: io */ pri\\\nntf(m)\n" + ENTRY,
    "macro-body-asm": '#define NOP asm("nop")  // gate: inline_asm\n' + ENTRY,
    "io-device-printf": "#include <cuda_runtime.h>\n"
    '__global__ void k() { printf("hi\\n"); }  // gate: io\n' + ENTRY,
    "io-cout": "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  std::cout << n;  // gate: io\n"
    "}\n",
    "io-posix-write": "void saxpy(int n, float a, const float* x, float* y) {\n"
    '  write(1, "x", 1);  // gate: io\n'
    "}\n",
    "io-builtin-alias": "void saxpy(int n, float a, const float* x, float* y) {\n"
    '  __builtin_printf("x");  // gate: io\n'
    '  fopen64("x", "r");  // gate: io\n'
    "}\n",
    "io-filesystem": "void saxpy(int n, float a, const float* x, float* y) {\n"
    '  std::filesystem::exists("seed");  // gate: io\n'
    "}\n",
    "process-system": "void saxpy(int n, float a, const float* x, float* y) {\n"
    '  system("ls");  // gate: process\n'
    '  auto v = std::getenv("SEED");  // gate: process\n'
    "  if (n < 0) exit(1);  // gate: process\n"
    "  if (n < 0) abort();  // gate: process\n"
    "  signal(11, nullptr);  // gate: process\n"
    '  dlopen("libx.so", 2);  // gate: process\n'
    "  fork();  // gate: process\n"
    "}\n",
    "process-setjmp": "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  jmp_buf env;\n"
    "  if (setjmp(env)) return;  // gate: process\n"
    "}\n",
    "thread-std": "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  std::thread t([] {});  // gate: thread\n"
    "  auto f = std::async([] {});  // gate: thread\n"
    "  std::this_thread::yield();  // gate: thread\n"
    "}\n",
    "thread-pthread-omp": "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  pthread_t t;  // gate: thread\n"
    "  int k = omp_get_num_threads();  // gate: thread\n"
    "}\n",
    "clock-reads": "__global__ void k(long long* t) { *t = clock64(); }  // gate: clock\n"
    "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  auto t0 = std::chrono::steady_clock::now();  // gate: clock\n"
    "  long c = clock();  // gate: clock\n"
    "  float ms = 0; cudaEventElapsedTime(&ms, 0, 0);  // gate: clock\n"
    "  unsigned long long r = __builtin_readcyclecounter();  // gate: clock\n"
    "}\n",
    "inline-asm": "__global__ void k(int* r) {\n"
    '  asm volatile("mov.u32 %0, %%clock;" : "=r"(*r));  // gate: inline_asm\n'
    "}\n"
    'void helper() asm("saxpy_ref");  // gate: inline_asm\n' + ENTRY,
    "stream-create": "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  cudaStream_t s;\n"
    "  cudaStreamCreate(&s);  // gate: stream\n"
    "  k<<<1, 1, 0, s>>>(n);  // gate: stream\n"
    "}\n",
    "graph": "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  cudaGraphExec_t g;  // gate: graph\n"
    "  cudaGraphLaunch(g, 0);  // gate: graph\n"
    "  cudaLaunchHostFunc(0, nullptr, nullptr);  // gate: graph\n"
    "}\n",
    "l2-policy": "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  cudaCtxResetPersistingL2Cache();  // gate: l2_policy\n"
    "}\n",
    "managed": "__managed__ float m;  // gate: managed_memory\n"
    "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  float* p; cudaMallocManaged(&p, 4);  // gate: managed_memory\n"
    "  cudaMemAdvise(p, 4, cudaMemAdviseSetReadMostly, 0);  // gate: managed_memory\n"
    "}\n",
    "device-control": "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  cudaDeviceReset();  // gate: device_control\n"
    "  cudaSetDevice(1);  // gate: device_control\n"
    "  cuLaunchKernel(0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0);  // gate: device_control\n"
    "  nvrtcCreateProgram(0, 0, 0, 0, 0, 0);  // gate: device_control\n"
    "}\n",
    "harness-symbol": "extern int regrapht_seed;  // gate: harness_symbol, global_state\n"
    "int main() { return 0; }  // gate: harness_symbol\n"
    "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  void* f = __builtin_frame_address(0);  // gate: harness_symbol\n"
    "}\n",
    "harness-ifdef": "#ifdef REGRAPHT_TIMING  // gate: harness_symbol\n#endif\n" + ENTRY,
    "reference-call": "float axpy_element(float a, float x, float y);  // gate: reference_symbol\n"
    "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  for (int i = 0; i < n; ++i) y[i] = axpy_element(a, x[i], y[i]);  // gate: reference_symbol\n"
    "}\n",
    "global-state": "int calls = 0;  // gate: global_state\n"
    "__device__ float last;  // gate: global_state\n"
    "float* const scratch = nullptr;  // gate: global_state\n"
    "const float* cursor = nullptr;  // gate: global_state\n"
    "thread_local int tl;  // gate: global_state\n"
    "struct S { mutable int hits; static int total; };  // gate: global_state\n"
    "namespace { float cached[16]; }  // gate: global_state\n"
    "void saxpy(int n, float a, const float* x, float* y) {\n"
    "  static const float* last_x = nullptr;  // gate: global_state\n"
    "  extern float elsewhere;  // gate: global_state\n"
    "  cudaMemcpyFromSymbol(&y[0], last, 4);  // gate: global_state\n"
    "}\n",
    "attribute": "__attribute__((constructor)) void early() {}  // gate: attribute\n"
    "[[gnu::destructor]] void late() {}  // gate: attribute\n"
    'void other() __attribute__((alias("saxpy")));  // gate: attribute\n' + ENTRY,
    "interpose": "#include <cstddef>\n"
    "void* operator new(std::size_t n) { return nullptr; }  // gate: interpose\n"
    "cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }  // gate: interpose\n"
    'extern "C" void* malloc(std::size_t n) { return nullptr; }  // gate: interpose\n'
    "void __wrap_cudaLaunchKernel() {}  // gate: interpose\n"
    "struct Pool { void* operator new(std::size_t n); };\n"
    "void cuda_helper() {}\n" + ENTRY,
    "entry-missing": "// gate: entry\n"
    "void saxpy_fast(int n, float a, const float* x, float* y) {}\n",
    "entry-twice": ENTRY
    + "void saxpy(int n, double a, const float* x, float* y) {}  // gate: entry\n",
    "entry-wrong-type": "void saxpy(int n, double a, const float* x, float* y) {}"
    "  // gate: entry\n",
    "entry-wrong-const": "void saxpy(int n, float a, float* x, float* y) {}  // gate: entry\n",
    "entry-wrong-return": "int saxpy(int n, float a, const float* x, float* y) { return 0; }"
    "  // gate: entry\n",
    "entry-extern-c": 'extern "C" {\n'
    "void saxpy(int n, float a, const float* x, float* y) {}  // gate: entry\n"
    "}\n",
    "entry-static": "static void saxpy(int n, float a, const float* x, float* y) {}"
    "  // gate: entry\n",
    "entry-namespace": "namespace fast {\n"
    "void saxpy(int n, float a, const float* x, float* y) {}  // gate: entry\n"
    "}\n",
    "entry-template": "template <int B>\n"
    "void saxpy(int n, float a, const float* x, float* y) {}  // gate: entry\n",
    "entry-kernel": "__global__ void saxpy(int n, float a, const float* x, float* y) {}"
    "  // gate: entry\n",
}


@pytest.mark.parametrize("source", REFUSED.values(), ids=REFUSED.keys())
def test_refused_on_exactly_the_marked_lines(source: str) -> None:
    marks = gate_marks(source)
    assert marks, "a refused case must mark what the gate should flag"
    assert found(source) == marks


def test_every_rule_has_a_refused_case() -> None:
    covered = {rule for source in REFUSED.values() for _, rule in gate_marks(source)}
    assert covered == set(Rule)


def test_violations_carry_a_message_and_feedback_names_line_and_rule() -> None:
    result = check(REFUSED["process-setjmp"], SAXPY)
    assert not result.ok
    (violation,) = result.violations
    assert "setjmp" in violation.message
    assert result.feedback.startswith("line 3: [process] `setjmp`")


ACCEPTED_SAXPY = {
    "naive": """#include <cuda_runtime.h>
__global__ void k(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
void saxpy(int n, float a, const float* x, float* y) {
  float *dx, *dy;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dy, n * sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice);
  k<<<(n + 255) / 256, 256, 0, 0>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx); cudaFree(dy);
}
""",
    "signature-spelled-differently": """#include <cstddef>
__host__ void saxpy(signed int count, float const alpha, const float* __restrict__ in,
                    float* const __restrict__ out) {
  for (int i = 0; i < count; ++i) out[i] = alpha * in[i] + out[i];
}
""",
    "own-helper-named-like-the-reference": """__host__ __device__ inline float axpy_element(
    float a, float x, float y) { return a * x + y; }
void saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = axpy_element(a, x[i], y[i]);
}
""",
    "allowed-state-and-attributes": """#include <cuda_runtime.h>
#include <cmath>
#pragma once
constexpr int kBlock = 256;
static const float kTable[4] = {1.0f, 2.0f, 3.0f, 4.0f};
const char* const kName = "saxpy";
__constant__ float c_coef[4];
struct alignas(16) Pair { float a, b; };
__attribute__((aligned(16))) static const float kPad[4] = {0, 0, 0, 0};
[[nodiscard]] __device__ __forceinline__ float twice(float v) { return 2.0f * v; }
__global__ void __launch_bounds__(kBlock) k(int n, float* y) {
  extern __shared__ float dyn[];
  __shared__ float tile[kBlock];
  static __shared__ float more[4];
#pragma unroll 4
  for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = twice(y[i]) + tile[0] + dyn[0];
#pragma nounroll
  for (int i = 0; i < 1; ++i) more[i] = 0;
}
void saxpy(int n, float a, const float* x, float* y) {
  cudaMemcpyToSymbol(c_coef, kTable, sizeof(kTable));
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  cudaStreamSynchronize(0);
  cudaDeviceSynchronize();
  for (int i = 0; i < n; ++i) y[i] = std::fma(a, x[i], y[i]);
}
""",
    "cooperative-groups-and-thrust-lambda": """#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <thrust/device_vector.h>
#include <thrust/transform.h>
namespace cg = cooperative_groups;
__global__ void k(int n, float* y) {
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  float v = cg::reduce(warp, y[threadIdx.x], cg::plus<float>());
  if (warp.thread_rank() == 0) atomicAdd(y, v);
}
void saxpy(int n, float a, const float* x, float* y) {
  thrust::device_vector<float> dx(x, x + n), dy(y, y + n);
  thrust::transform(dx.begin(), dx.end(), dy.begin(), dy.begin(),
                    [a] __device__ (float xv, float yv) { return a * xv + yv; });
  thrust::copy(dy.begin(), dy.end(), y);
}
""",
}


@pytest.mark.parametrize("source", ACCEPTED_SAXPY.values(), ids=ACCEPTED_SAXPY.keys())
def test_honest_saxpy_accepted(source: str) -> None:
    assert check(source, SAXPY).violations == ()


TILED_MATMUL = """#include <cuda_runtime.h>
#define TILE 16

__global__ void matmul_tiled(int n, const float* __restrict__ A, const float* __restrict__ B,
                             float* __restrict__ C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
    const int ac = t * TILE + threadIdx.x;
    const int br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = acc;
}

void matmul(int n, const float* A, const float* B, float* C) {
  const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  cudaMalloc(&dA, bytes);
  cudaMalloc(&dB, bytes);
  cudaMalloc(&dC, bytes);
  cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice);
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  matmul_tiled<<<grid, block>>>(n, dA, dB, dC);
  cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
}
"""

WARP_SHUFFLE_SUM = """#include <cuda_runtime.h>
template <int WIDTH>
__device__ float warp_reduce(float v) {
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__global__ void reduce(int n, const float* x, float* out) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  s = warp_reduce<32>(s);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}
float sum(int n, const float* x) {
  float *dx, *dout;
  float result = 0.0f;
  cudaMalloc(&dx, n * sizeof(float));
  cudaMalloc(&dout, sizeof(float));
  cudaMemset(dout, 0, sizeof(float));
  cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice);
  reduce<<<256, 256>>>(n, dx, dout);
  cudaMemcpy(&result, dout, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dout);
  return result;
}
"""

CUB_THRUST_VADD = """#include <cub/device/device_transform.cuh>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>
#include <thrust/functional.h>
void vadd(int n, const float* a, const float* b, float* c) {
  thrust::device_vector<float> da(a, a + n), db(b, b + n), dc(n);
  thrust::transform(thrust::device, da.begin(), da.end(), db.begin(), dc.begin(),
                    thrust::plus<float>());
  thrust::copy(dc.begin(), dc.end(), c);
}
"""


@pytest.mark.parametrize(
    ("source", "task"),
    [(TILED_MATMUL, MATMUL), (WARP_SHUFFLE_SUM, SUM), (CUB_THRUST_VADD, VADD)],
    ids=["tiled-matmul", "warp-shuffle-sum", "cub-thrust-vadd"],
)
def test_honest_candidates_accepted(source: str, task: Task) -> None:
    assert check(source, task).violations == ()


SHADOWING = """#include <cuda_runtime.h>
static float weigh(const float* signal, int k, float time) { return signal[k] * time; }
void saxpy(int n, float a, const float* x, float* y) {
  const float time = a;
  for (int i = 0; i < n; ++i) {
    bool read = x[i] > 0;
    float clock = weigh(x, i, time);
    y[i] = read ? clock + y[i] : y[i];
  }
}
"""
"""Variables named like refused functions (``signal``, ``time``, ``read``, ``clock``):
ordinary names in signal processing and physics code, which reach no function."""


def test_variables_named_like_refused_functions_are_accepted() -> None:
    assert check(SHADOWING, SAXPY).violations == ()


@pytest.mark.parametrize(
    "body",
    [
        "{ int time = 0; (void)time; } y[0] = (float)time(nullptr);",  # shadowed in a block gone
        "float clock = 1; y[0] = (float)::clock();",  # qualified: the function itself
        "void (*exit)(int) = nullptr; std::exit(1);",
        "int signal(int, void (*)(int)); signal(2, nullptr);",  # a prototype of the function
        "auto read = [](int fd) { return ::read(fd, nullptr, 0); }; read(0);",
    ],
    ids=["sibling-block", "qualified", "std-qualified", "prototype", "lambda-body"],
)
def test_a_refused_function_behind_a_variable_of_its_name_is_still_refused(body: str) -> None:
    source = (
        "#include <cuda_runtime.h>\nvoid saxpy(int n, float a, const float* x, float* y) {\n"
        f"  {body}\n}}\n"
    )
    assert check(source, SAXPY).violations != ()


def test_streams_allowed_only_by_policy() -> None:
    source = REFUSED["stream-create"]
    assert found(source, policy=GatePolicy(allow_streams=True)) == set()
    graph = REFUSED["graph"]
    assert found(graph, policy=GatePolicy(allow_streams=True)) == gate_marks(graph)


def test_kernel_task_needs_a_global_entry() -> None:
    kernel = "__global__ void scale(int n, float* __restrict__ y) { y[0] = n; }\n"
    host = "void scale(int n, float* y) { y[0] = n; }  // gate: entry\n"
    assert found(kernel, KERNEL_TASK) == set()
    assert found(host, KERNEL_TASK) == gate_marks(host)


def test_reference_names_come_from_the_task() -> None:
    source = REFUSED["reference-call"]
    other_reference = replace(SAXPY, source="void saxpy(int, float, const float*, float*);\n")
    assert found(source, other_reference) == set()


def test_unparsable_task_signature_is_a_task_error() -> None:
    broken = replace(SAXPY, signature="saxpy takes numbers")
    with pytest.raises(TaskError, match="signature"):
        check(ENTRY, broken)


def test_fast_enough_for_every_candidate() -> None:
    times = []
    for _ in range(21):
        start = time.perf_counter()
        check(TILED_MATMUL, MATMUL)
        times.append(time.perf_counter() - start)
    assert statistics.median(times) < 0.010
