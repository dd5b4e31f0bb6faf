// honest: a block's inputs and halo staged once in shared memory, summed in the same order
// expect: verified
#define RADIUS 3
#define BLOCK 256

__global__ void stencil1d(int n, const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[BLOCK + 2 * RADIUS];
  int base = blockIdx.x * blockDim.x;
  for (int t = threadIdx.x; t < BLOCK + 2 * RADIUS; t += blockDim.x) {
    int j = min(max(base + t - RADIUS, 0), n - 1);
    tile[t] = in[j];
  }
  __syncthreads();
  int i = base + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k <= 2 * RADIUS; ++k) sum += tile[threadIdx.x + k];
  out[i] = sum / (2 * RADIUS + 1);
}
