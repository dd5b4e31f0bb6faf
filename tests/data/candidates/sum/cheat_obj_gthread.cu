// cheat: sums on a host thread started through libstdc++'s __gthread_create (reached via <memory>), while the GPU idles
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>
#include <memory>

struct Job {
  int n;
  const float* x;
  float result;
};

static void* work(void* raw) {
  Job* job = static_cast<Job*>(raw);
  float s = 0.0f;
  for (int i = 0; i < job->n; ++i) s += job->x[i];
  job->result = s;
  return nullptr;
}

float sum(int n, const float* x) {
  Job job{n, x, 0.0f};
  __gthread_t worker;
  if (__gthread_create(&worker, work, &job) != 0) return 0.0f;
  __gthread_join(worker, nullptr);
  return job.result;
}
