// honest: the original's direct copy (coalesced reads, strided writes)
// expect: verified
#define TILE 32
#define ROWS 8

__global__ void transpose(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) out[x * rows + y + j] = in[(y + j) * cols + x];
}
