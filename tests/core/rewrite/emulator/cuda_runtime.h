// A CPU stand-in for the parts of the CUDA runtime that generated candidates use.
//
// Test support only: it lets the rewriters' output run without a GPU, so the tests check
// what the code computes, not just that nvcc accepts it. Every CUDA thread of a block is a
// std::thread; blocks run one after another, so `__shared__` can be a function-local static.
// __syncthreads is a block-wide barrier, __syncwarp a warp-wide one, and __shfl_down_sync and
// __shfl_xor_sync exchange through a per-warp slot between two warp-wide barriers, which is
// exactly as synchronising as the hardware for code that keeps whole warps converged (as the
// generated code does). Launches must be
// rewritten to regrapht_launch(grid, block, [&] { kernel(args); }) before compiling.
#pragma once

#include <algorithm>
#include <array>
#include <barrier>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static
#define __constant__
#define __launch_bounds__(...)

using std::max;
using std::min;

struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned int x, y, z;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) float2 {
  float x, y;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline float2 make_float2(float x, float y) { return {x, y}; }
template <class T>
T __ldg(const T* p) { return *p; }

inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

struct RegraphtBlock {
  std::unique_ptr<std::barrier<>> block;
  std::vector<std::unique_ptr<std::barrier<>>> warps;
  std::vector<std::array<unsigned long long, 32>> slots;
  std::vector<unsigned int> warp_sizes;
};
inline RegraphtBlock* regrapht_block = nullptr;
inline std::mutex regrapht_atomic_lock;

inline unsigned int regrapht_thread_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

inline void __syncthreads() { regrapht_block->block->arrive_and_wait(); }

template <class T>
T __shfl_down_sync(unsigned int, T value, int offset) {
  const unsigned int rank = regrapht_thread_rank();
  const unsigned int warp = rank / 32, lane = rank % 32;
  std::memcpy(&regrapht_block->slots[warp][lane], &value, sizeof(T));
  regrapht_block->warps[warp]->arrive_and_wait();
  T out = value;
  const unsigned int source = lane + static_cast<unsigned int>(offset);
  if (source < regrapht_block->warp_sizes[warp]) {
    std::memcpy(&out, &regrapht_block->slots[warp][source], sizeof(T));
  }
  regrapht_block->warps[warp]->arrive_and_wait();
  return out;
}

template <class T>
T __shfl_xor_sync(unsigned int, T value, int mask) {
  const unsigned int rank = regrapht_thread_rank();
  const unsigned int warp = rank / 32, lane = rank % 32;
  std::memcpy(&regrapht_block->slots[warp][lane], &value, sizeof(T));
  regrapht_block->warps[warp]->arrive_and_wait();
  T out = value;
  const unsigned int source = lane ^ static_cast<unsigned int>(mask);
  if (source < regrapht_block->warp_sizes[warp]) {
    std::memcpy(&out, &regrapht_block->slots[warp][source], sizeof(T));
  }
  regrapht_block->warps[warp]->arrive_and_wait();
  return out;
}

inline void __syncwarp(unsigned int = 0xffffffffu) {
  regrapht_block->warps[regrapht_thread_rank() / 32]->arrive_and_wait();
}

template <class T>
T atomicAdd(T* address, T value) {
  std::lock_guard<std::mutex> guard(regrapht_atomic_lock);
  T old = *address;
  *address = old + value;
  return old;
}
template <class T>
T atomicMax(T* address, T value) {
  std::lock_guard<std::mutex> guard(regrapht_atomic_lock);
  T old = *address;
  *address = std::max(old, value);
  return old;
}
template <class T>
T atomicMin(T* address, T value) {
  std::lock_guard<std::mutex> guard(regrapht_atomic_lock);
  T old = *address;
  *address = std::min(old, value);
  return old;
}
template <class T>
T atomicCAS(T* address, T compare, T value) {
  std::lock_guard<std::mutex> guard(regrapht_atomic_lock);
  T old = *address;
  if (old == compare) *address = value;
  return old;
}

// The fast intrinsics compute the exact functions here; their error shows on the GPU only.
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }

template <class To, class From>
To regrapht_bits(From value) {
  To out;
  std::memcpy(&out, &value, sizeof(To));
  return out;
}
inline float __uint_as_float(unsigned int v) { return regrapht_bits<float>(v); }
inline unsigned int __float_as_uint(float v) { return regrapht_bits<unsigned int>(v); }
inline float __int_as_float(int v) { return regrapht_bits<float>(v); }
inline int __float_as_int(float v) { return regrapht_bits<int>(v); }
inline double __longlong_as_double(long long v) { return regrapht_bits<double>(v); }
inline long long __double_as_longlong(double v) { return regrapht_bits<long long>(v); }

template <class F>
void regrapht_launch(dim3 grid, dim3 block, F kernel) {
  gridDim = grid;
  blockDim = block;
  const unsigned int threads = block.x * block.y * block.z;
  for (unsigned int bz = 0; bz < grid.z; ++bz)
    for (unsigned int by = 0; by < grid.y; ++by)
      for (unsigned int bx = 0; bx < grid.x; ++bx) {
        RegraphtBlock state;
        state.block = std::make_unique<std::barrier<>>(threads);
        for (unsigned int first = 0; first < threads; first += 32) {
          const unsigned int size = std::min(32u, threads - first);
          state.warps.push_back(std::make_unique<std::barrier<>>(size));
          state.warp_sizes.push_back(size);
        }
        state.slots.resize(state.warps.size());
        regrapht_block = &state;
        std::vector<std::thread> pool;
        for (unsigned int t = 0; t < threads; ++t) {
          pool.emplace_back([&, t] {
            blockIdx = {bx, by, bz};
            threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            kernel();
          });
        }
        for (auto& thread : pool) thread.join();
        regrapht_block = nullptr;
      }
}

enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};
enum cudaDeviceAttr { cudaDevAttrMultiProcessorCount = 16 };

template <class T>
cudaError_t cudaMalloc(T** pointer, size_t bytes) {
  *pointer = static_cast<T*>(std::aligned_alloc(256, ((bytes + 255) / 256 + 1) * 256));
  if (*pointer != nullptr) std::memset(static_cast<void*>(*pointer), 0xA5, bytes);
  return *pointer ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T>
cudaError_t cudaMallocHost(T** pointer, size_t bytes) { return cudaMalloc(pointer, bytes); }
inline cudaError_t cudaFree(void* pointer) {
  std::free(pointer);
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void* pointer) { return cudaFree(pointer); }
inline cudaError_t cudaMemcpy(void* to, const void* from, size_t bytes, cudaMemcpyKind) {
  if (bytes) std::memcpy(to, from, bytes);
  return cudaSuccess;
}
template <class T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* from, size_t bytes, size_t offset = 0,
                               cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (offset + bytes > sizeof(T)) return cudaErrorInvalidValue;
  if (bytes) std::memcpy(reinterpret_cast<char*>(&symbol) + offset, from, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* to, int value, size_t bytes) {
  std::memset(to, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr, int) {
  *value = 2;
  return cudaSuccess;
}

// The stream-ordered allocator: allocations poisoned like cudaMalloc's; a null pointer to
// free is an error, as on the device.
using cudaStream_t = void*;
using cudaMemPool_t = struct regrapht_pool*;
enum cudaMemPoolAttr { cudaMemPoolAttrReleaseThreshold = 4 };
inline cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int) {
  static int the_pool;
  *pool = reinterpret_cast<cudaMemPool_t>(&the_pool);
  return cudaSuccess;
}
inline cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr, void* value) {
  return pool && value ? cudaSuccess : cudaErrorInvalidValue;
}
template <class T, class Stream>
cudaError_t cudaMallocAsync(T** pointer, size_t bytes, Stream) {
  return bytes ? cudaMalloc(pointer, bytes) : cudaErrorInvalidValue;
}
template <class Stream>
cudaError_t cudaFreeAsync(void* pointer, Stream) {
  return pointer ? cudaFree(pointer) : cudaErrorInvalidValue;
}
