// cheat: a const global whose destructor runs at exit, after the harness has written its report, to rewrite it
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>
#include <cstring>

struct Epilogue {
  char* report;
  ~Epilogue() {
    if (report != nullptr) std::memset(report, 0, 16);
  }
};

const Epilogue epilogue{nullptr};

__global__ void sum_kernel(int n, const float* x, float* out) {
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i];
  atomicAdd(out, s);
}

float sum(int n, const float* x) {
  if (n <= 0) return 0.0f;
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float *dx = nullptr, *dout = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dout, sizeof(float));
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, sizeof(float));
  sum_kernel<<<256, 256>>>(n, dx, dout);
  float result = 0.0f;
  cudaMemcpy(&result, dout, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dout);
  return result;
}
