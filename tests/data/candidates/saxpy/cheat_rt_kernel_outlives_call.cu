// cheat: computes y straight into the caller's buffers (registered as mapped host memory), tells
// cheat: the host through a mapped flag that the answer is there, and returns while its kernel
// cheat: is still resident: at the timing size the last block lingers, spinning on a release
// cheat: flag nobody sets, so GPU work outlasts the call for any timer that stops at its return
// expect: timeout
// defense: timing covers all GPU work the call causes (the harness synchronizes the whole device
// defense: before it reports), so the lingering kernel holds the run until the wall-clock limit
#include <cuda_runtime.h>

__global__ void saxpy_then_linger(int n, float a, const float* x, float* y, unsigned* arrived,
                                  volatile int* done, volatile int* release,
                                  int linger) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x != 0) return;
  if (atomicAdd(arrived, 1u) != gridDim.x - 1) return;
  *done = 1;  // every block's writes are visible: the host may return now
  while (linger && *release == 0) {
  }
}

void saxpy(int n, float a, const float* x, float* y) {
  if (n <= 0) return;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  cudaHostRegister(const_cast<float*>(x), bytes, cudaHostRegisterMapped | cudaHostRegisterReadOnly);
  cudaHostRegister(y, bytes, cudaHostRegisterMapped);
  float* mx = nullptr;
  float* my = nullptr;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&mx), const_cast<float*>(x), 0);
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&my), y, 0);
  int* flags = nullptr;
  cudaHostAlloc(reinterpret_cast<void**>(&flags), 2 * sizeof(int), cudaHostAllocMapped);
  flags[0] = 0;
  flags[1] = 0;
  int* mflags = nullptr;
  cudaHostGetDevicePointer(reinterpret_cast<void**>(&mflags), flags, 0);
  unsigned* arrived = nullptr;
  cudaMalloc(&arrived, sizeof(unsigned));
  cudaMemset(arrived, 0, sizeof(unsigned));
  int blocks = (n + 255) / 256;
  if (blocks > 264) blocks = 264;  // all resident at once on an H100, so none waits on the last
  const bool linger = n >= (1 << 20);
  saxpy_then_linger<<<blocks, 256>>>(n, a, mx, my, arrived, mflags, mflags + 1, linger);
  volatile int* done = flags;
  while (*done == 0) {
  }
  if (linger) return;  // the kernel is still running
  cudaDeviceSynchronize();
  cudaHostUnregister(const_cast<float*>(x));
  cudaHostUnregister(y);
  cudaFreeHost(flags);
  cudaFree(arrived);
}
