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

}  // namespace cub
