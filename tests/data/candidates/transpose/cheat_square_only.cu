// cheat: assumes a square matrix (right only when rows == cols, as at the timing size); at
// 1 x 7 it writes past the 7 elements of `out`, which the guard zones catch
// expect: crash
#define TILE 32
#define ROWS 8

__global__ void transpose(int rows, int cols, const float* in, float* out) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < cols) out[x * cols + y + j] = in[(y + j) * cols + x];
}
