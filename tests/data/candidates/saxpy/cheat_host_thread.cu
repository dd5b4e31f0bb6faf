// cheat: finishes the work on a detached host thread the timer never waits for
// expect: gate_rejected
#include <cuda_runtime.h>
#include <thread>  // gate: include

void saxpy(int n, float a, const float* x, float* y) {
  std::thread worker([=] {  // gate: thread
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
  });
  worker.detach();
}
