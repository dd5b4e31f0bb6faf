"""The canary: a tiny kernel that proves the GPU works, and reports what the rooflines need.

Run once before the first candidate and again, in a new process, after any candidate
crashed: an illegal address or a failed launch can leave the device unusable for the
next context, and a result measured on a broken GPU must not be trusted.

Besides the DRAM roofline it measures how fast ``cudaMemcpy`` moves pageable host memory
(what a caller's ``std::vector`` or ``malloc`` buffer is) each way: the floor under any
end-to-end candidate that copies its arguments, which no kernel can lower. It takes the
best of a few 16 MiB copies, so the floor it gives is, if anything, too low.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline
from regrapht_core.lifetime import scratch
from regrapht_core.verify.compile import Compiler
from regrapht_core.verify.sandbox import Limits, Runner, prepare_private_dir

__all__ = ["PROBE_SOURCE", "DeviceLimits", "run_probe"]

PROBE_SOURCE = r"""
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
__global__ void canary(int* out) { out[threadIdx.x] = 3 * static_cast<int>(threadIdx.x) + 1; }
static double copy_rate(void* to, const void* from, size_t bytes, cudaMemcpyKind kind) {
  double best = 0.0;
  for (int round = 0; round < 4; ++round) {
    auto start = std::chrono::steady_clock::now();
    if (cudaMemcpy(to, from, bytes, kind) != cudaSuccess) return 0.0;
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (round > 0 && bytes / took.count() > best) best = bytes / took.count();
  }
  return best;
}
int main() {
  int* device = nullptr;
  int host[64] = {0};
  if (cudaMalloc(&device, sizeof host) != cudaSuccess) return 2;
  canary<<<1, 64>>>(device);
  if (cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 2;
  for (int i = 0; i < 64; ++i) if (host[i] != 3 * i + 1) return 3;
  int clock_khz = 0, bus_bits = 0, l2 = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  const size_t bytes = size_t(16) << 20;
  void* pageable = std::malloc(bytes);
  void* copy = nullptr;
  if (pageable == nullptr || cudaMalloc(&copy, bytes) != cudaSuccess) return 2;
  std::memset(pageable, 1, bytes);
  double up = copy_rate(copy, pageable, bytes, cudaMemcpyHostToDevice);
  double down = copy_rate(pageable, copy, bytes, cudaMemcpyDeviceToHost);
  std::free(pageable);
  if (up <= 0.0 || down <= 0.0 || cudaFree(copy) != cudaSuccess) return 2;
  std::printf("canary-ok %d %d %d %.0f %.0f\n", clock_khz, bus_bits, l2, up, down);
  return cudaFree(device) == cudaSuccess ? 0 : 2;
}
"""


@dataclass(frozen=True, slots=True)
class DeviceLimits:
    peak_bytes_per_s: float
    """DRAM bandwidth: 2 (double data rate) x memory clock x bus width."""
    l2_bytes: int
    host_to_device_bytes_per_s: float
    """``cudaMemcpy`` from pageable host memory, the best of three 16 MiB copies."""
    device_to_host_bytes_per_s: float


def run_probe(
    compiler: Compiler,
    runner: Runner,
    limits: Limits,
    env: dict[str, str],
    *,
    deadline: Deadline = NO_DEADLINE,
) -> DeviceLimits | str:
    """The device's limits, or why the canary failed (a string, for the result's flags)."""
    obj = compiler.cuda_object(PROBE_SOURCE, deadline=deadline)
    if not obj.ok or obj.path is None:
        return f"canary did not compile: {obj.log}"
    with scratch("canary-") as tmp:
        work = Path(tmp)
        linked = compiler.link([obj.path], work / "canary", deadline=deadline)
        if not linked.ok:
            return f"canary did not link: {linked.log}"
        prepare_private_dir(work)
        outcome = runner(["./canary"], work, limits, env)
    words = outcome.stdout.split()
    if not outcome.ok or len(words) != 6 or words[0] != "canary-ok":
        return f"canary kernel failed: {outcome.describe()} {outcome.stderr.strip()[:300]}"
    clock_khz, bus_bits, l2 = (int(word) for word in words[1:4])
    up, down = (float(word) for word in words[4:])
    return DeviceLimits(
        peak_bytes_per_s=2.0 * clock_khz * 1e3 * bus_bits / 8,
        l2_bytes=l2,
        host_to_device_bytes_per_s=up,
        device_to_host_bytes_per_s=down,
    )
