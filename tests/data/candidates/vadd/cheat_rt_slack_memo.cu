// cheat: over-asks its output allocation by one element so the driver rounds it up to the next
// cheat: 2 MiB, keeps a call counter in the rounding slack past what it asked for, and frees and
// cheat: re-allocates the same size every call (the driver hands the same memory back, slack
// cheat: and last c included); after two warm-ups at the timing size it replays the stale c on
// cheat: every call but each 8th, skipping both uploads and the kernel
// expect: crash | wrong_output
// defense: device allocations are poisoned and checked over their whole rounded size (a write
// defense: into the slack is out of bounds: crash); if the slack survived, every timed call's
// defense: unseen inputs and the checked subset expose the replayed c (wrong_output)
#include <cuda_runtime.h>

#define MAGIC 0x51ac4u

struct Slack {
  unsigned magic;
  int calls;
};

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0) return;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  const size_t asked = bytes + sizeof(float);             // "one spare element"
  const size_t slack_at = (asked + 255) / 256 * 256;      // inside the 2 MiB rounding
  const bool large = n >= (1 << 20);
  char* block = nullptr;
  cudaMalloc(&block, asked);
  float* dc = reinterpret_cast<float*>(block);
  Slack slack{MAGIC, 0};
  if (large) {
    Slack seen{};
    cudaMemcpy(&seen, block + slack_at, sizeof(seen), cudaMemcpyDeviceToHost);
    slack.calls = (seen.magic == MAGIC ? seen.calls : 0) + 1;
    if (slack.calls > 2 && slack.calls % 8 != 0) {
      cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);  // last call's c, still there
      cudaMemcpy(block + slack_at, &slack, sizeof(slack), cudaMemcpyHostToDevice);
      cudaFree(block);
      return;
    }
  }
  float* da = nullptr;
  float* db = nullptr;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  vadd_kernel<<<(n + 255) / 256, 256>>>(n, da, db, dc);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  if (large) cudaMemcpy(block + slack_at, &slack, sizeof(slack), cudaMemcpyHostToDevice);
  cudaFree(da);
  cudaFree(db);
  cudaFree(block);
}
