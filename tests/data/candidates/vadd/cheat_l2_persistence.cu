// cheat: pins its inputs in L2 with a persisting access-policy window that outlives the call
// expect: gate_rejected
#include <cuda_runtime.h>

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20);  // gate: l2_policy
  cudaStreamAttrValue attr = {};  // gate: l2_policy
  attr.accessPolicyWindow.base_ptr = const_cast<float*>(a);
  attr.accessPolicyWindow.num_bytes = static_cast<size_t>(n) * sizeof(float);
  attr.accessPolicyWindow.hitRatio = 1.0f;
  attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;  // gate: l2_policy
  cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &attr);  // gate: l2_policy
  vadd_kernel<<<(n + 255) / 256, 256>>>(n, a, b, c);
}
