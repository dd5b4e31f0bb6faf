// cheat: remembers (input pointer, n, sum) in a leaked host record whose address is split
// cheat: over the max-dynamic-shared-memory attribute of four idle kernels (16 bits each, read
// cheat: back with cudaFuncGetAttributes); only at the timing size, and only once the same
// cheat: buffer has been summed twice does it start replaying the remembered sum
// expect: wrong_output
// defense: every timed call gets unseen inputs (in the same buffers or not) and a secret subset
// defense: of outputs is checked: a replayed sum belongs to another call's inputs
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdlib>

#define TAG 0xBEEF

struct Record {
  const float* x;
  int n;
  int repeats;
  float result;
};

__global__ void reg0() {}
__global__ void reg1() {}
__global__ void reg2() {}
__global__ void tag() {}

static int get(const void* kernel) {
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, kernel);
  return attributes.maxDynamicSharedSizeBytes;
}

static void put(const void* kernel, int value) {
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, value);
}

static Record* record() {
  if (get(reinterpret_cast<const void*>(tag)) == TAG) {
    uintptr_t address = static_cast<uintptr_t>(get(reinterpret_cast<const void*>(reg0))) |
                        static_cast<uintptr_t>(get(reinterpret_cast<const void*>(reg1))) << 16 |
                        static_cast<uintptr_t>(get(reinterpret_cast<const void*>(reg2))) << 32;
    return reinterpret_cast<Record*>(address);
  }
  Record* r = static_cast<Record*>(calloc(1, sizeof(Record)));  // never freed
  uintptr_t address = reinterpret_cast<uintptr_t>(r);
  put(reinterpret_cast<const void*>(reg0), static_cast<int>(address & 0xffff));
  put(reinterpret_cast<const void*>(reg1), static_cast<int>((address >> 16) & 0xffff));
  put(reinterpret_cast<const void*>(reg2), static_cast<int>((address >> 32) & 0xffff));
  put(reinterpret_cast<const void*>(tag), TAG);
  return r;
}

__global__ void reduce_atomic(int n, const float* x, float* out) {
  __shared__ float partial[256];
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += x[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) partial[threadIdx.x] += partial[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

float sum(int n, const float* x) {
  if (n <= 0) return 0.0f;
  Record* r = n >= (1 << 20) ? record() : nullptr;
  if (r != nullptr && r->x == x && r->n == n && r->repeats >= 2) return r->result;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dout = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dout, sizeof(float));
  cudaMemset(dout, 0, sizeof(float));
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  int blocks = (n + 255) / 256;
  if (blocks > 1024) blocks = 1024;
  reduce_atomic<<<blocks, 256>>>(n, dx, dout);
  float result = 0.0f;
  cudaMemcpy(&result, dout, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dout);
  if (r != nullptr) {
    r->repeats = (r->x == x && r->n == n) ? r->repeats + 1 : 1;
    r->x = x;
    r->n = n;
    r->result = result;
  }
  return result;
}
