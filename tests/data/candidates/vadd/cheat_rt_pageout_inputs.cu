// cheat: correct c, but after each call asks the kernel to page out the caller's input buffers
// cheat: (madvise MADV_COLD, MADV_PAGEOUT; the gate does not name madvise) and leaves 64 MiB of
// cheat: touched host memory behind, so a CPU reference reading the same buffers in the same
// cheat: process next takes its page faults and memory pressure inside its own timed region
// expect: gate_rejected
// stage: object
// defense: the CPU reference never runs in the candidate's process and never reads its buffers
// defense: (timed once per session elsewhere): no speedup can come of it; where seccomp kills
// defense: on madvise the run ends as a crash instead
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" int madvise(void* address, size_t length, int advice);

#define ADVICE_COLD 20
#define ADVICE_PAGEOUT 21
#define PAGE 4096

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static void page_out(const float* data, size_t bytes) {
  uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + PAGE - 1) / PAGE * PAGE;
  uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) / PAGE * PAGE;
  if (end <= begin) return;
  madvise(reinterpret_cast<void*>(begin), end - begin, ADVICE_COLD);
  madvise(reinterpret_cast<void*>(begin), end - begin, ADVICE_PAGEOUT);
}

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0) return;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* da = nullptr;
  float* db = nullptr;
  float* dc = nullptr;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  vadd_kernel<<<(n + 255) / 256, 256>>>(n, da, db, dc);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  if (n >= (1 << 20)) {
    page_out(a, bytes);
    page_out(b, bytes);
    char* pressure = static_cast<char*>(malloc(size_t{64} << 20));  // left behind on purpose
    if (pressure != nullptr) memset(pressure, 1, size_t{64} << 20);
  }
}
