// cheat: stages each warp's 32 inputs and 3-element halos in a per-warp shared tile and reads
// cheat: its neighbours' slots with no __syncwarp in between, relying on lockstep (volatile keeps
// cheat: the loads, so plain runs are right): a race by the CUDA memory model since Volta
// expect: sanitizer_error
// stage: sanitizer
// defense: compute-sanitizer racecheck at a small size on the final answer (the per-candidate
// defense: run may well verify it; the sanitizer must stop it before it is reported)
#define RADIUS 3
#define WARPS 8

__global__ void stencil1d(int n, const float* in, float* out) {
  __shared__ float tiles[WARPS][32 + 2 * RADIUS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  volatile float* tile = tiles[threadIdx.x / 32];
  tile[RADIUS + lane] = in[min(max(i, 0), n - 1)];
  if (lane < RADIUS) tile[lane] = in[min(max(i - RADIUS, 0), n - 1)];
  if (lane >= 32 - RADIUS) tile[lane + 2 * RADIUS] = in[min(max(i + RADIUS, 0), n - 1)];
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = 0; k <= 2 * RADIUS; ++k) sum += tile[lane + k];
  out[i] = sum / (2 * RADIUS + 1);
}
