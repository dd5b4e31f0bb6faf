// cheat: assumes a square matrix (passes only when rows == cols, as at the timing size)
// expect: wrong_output
#define TILE 32
#define ROWS 8

__global__ void transpose(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < cols) out[x * cols + y + j] = in[(y + j) * cols + x];
}
