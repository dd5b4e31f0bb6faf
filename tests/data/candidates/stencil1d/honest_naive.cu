// honest: the original's loop, clamped reads from global memory
// expect: verified
#define RADIUS 3

__global__ void stencil1d(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) sum += in[min(max(i + k, 0), n - 1)];
  out[i] = sum / (2 * RADIUS + 1);
}
