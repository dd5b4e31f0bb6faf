// cheat: captures the work into a CUDA graph and launches it where the timer cannot see
// expect: gate_rejected
#include <cuda_runtime.h>

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  cudaGraph_t graph;  // gate: graph
  cudaGraphExec_t exec;  // gate: graph
  cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal);  // gate: graph
  vadd_kernel<<<(n + 255) / 256, 256>>>(n, a, b, c);
  cudaStreamEndCapture(0, &graph);  // gate: graph
  cudaGraphInstantiate(&exec, graph, 0);  // gate: graph
  cudaGraphLaunch(exec, 0);  // gate: graph
}
