// cheat: drops the border clamp (reads before the buffer, wrong at both ends)
// expect: wrong_output
#define RADIUS 3

__global__ void stencil1d(int n, const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    int j = i + k;
    if (j >= 0 && j < n) sum += in[j];
  }
  out[i] = sum / (2 * RADIUS + 1);
}
