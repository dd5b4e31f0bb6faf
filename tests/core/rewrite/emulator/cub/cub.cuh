// A CPU stand-in for the parts of CUB that generated candidates call (test support only).
//
// Same contract as the library: a first call with a null temporary storage pointer only
// reports how many bytes to allocate, the second computes. The scans themselves are the
// sequential ones, on the emulator's host-memory "device" buffers; in place when the input
// and output are the same buffer, as CUB allows.
#pragma once

#include <cstddef>
#include <type_traits>

#include "../cuda_runtime.h"

namespace cub {

struct DeviceScan {
  template <typename In, typename Out, typename NumItems>
  static cudaError_t InclusiveSum(void* temp, std::size_t& bytes, In in, Out out,
                                  NumItems count) {
    return InclusiveScan(temp, bytes, in, out, [](auto a, auto b) { return a + b; }, count);
  }

  template <typename In, typename Out, typename NumItems>
  static cudaError_t ExclusiveSum(void* temp, std::size_t& bytes, In in, Out out,
                                  NumItems count) {
    return ExclusiveScan(temp, bytes, in, out, [](auto a, auto b) { return a + b; },
                         std::decay_t<decltype(out[0])>{}, count);
  }

  template <typename In, typename Out, typename Op, typename Init, typename NumItems>
  static cudaError_t ExclusiveScan(void* temp, std::size_t& bytes, In in, Out out, Op op,
                                   Init init, NumItems count) {
    if (temp == nullptr) {
      bytes = 16;
      return cudaSuccess;
    }
    auto total = init;
    for (NumItems i = 0; i < count; ++i) {
      const auto term = in[i];  // read before the write: in place when in == out
      out[i] = total;
      total = op(total, term);
    }
    return cudaSuccess;
  }

  template <typename In, typename Out, typename Op, typename NumItems>
  static cudaError_t InclusiveScan(void* temp, std::size_t& bytes, In in, Out out, Op op,
                                   NumItems count) {
    if (temp == nullptr) {
      bytes = 16;
      return cudaSuccess;
    }
    if (count <= 0) return cudaSuccess;
    auto total = in[0];
    out[0] = total;
    for (NumItems i = 1; i < count; ++i) {
      total = op(total, in[i]);
      out[i] = total;
    }
    return cudaSuccess;
  }
};

// A block's exclusive sum of ITEMS per thread, threads in rank order: each thread posts its
// items' sum, reads the sums of the threads before it and of all, then scans its own.
template <typename T, int BLOCK>
struct BlockScan {
  struct TempStorage {
    T sums[BLOCK];
  };

  explicit BlockScan(TempStorage& storage) : storage_(storage) {}

  template <int ITEMS>
  void ExclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS], T& total) {
    const unsigned int rank = regrapht_thread_rank();
    T mine{};
    for (int k = 0; k < ITEMS; ++k) mine += in[k];
    storage_.sums[rank] = mine;
    __syncthreads();
    T before{};
    total = T{};
    for (int t = 0; t < BLOCK; ++t) {
      if (t < static_cast<int>(rank)) before += storage_.sums[t];
      total += storage_.sums[t];
    }
    __syncthreads();
    for (int k = 0; k < ITEMS; ++k) {
      const T term = in[k];  // read before the write: in place when in == out
      out[k] = before;
      before += term;
    }
  }

 private:
  TempStorage& storage_;
};

}  // namespace cub
