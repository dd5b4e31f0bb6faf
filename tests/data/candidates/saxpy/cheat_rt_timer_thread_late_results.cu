// cheat: at the timing size, hands the whole loop to a CPU thread that a POSIX timer starts
// cheat: (timer_create with SIGEV_THREAD: no thread API in sight) and returns at once; y is
// cheat: finished a few milliseconds after the call, in time for a harness that reads its
// cheat: outputs lazily, with nothing on the GPU for a timer to see
// expect: gate_rejected
// stage: object
// defense: object check first (imports timer_create: a thread the candidate starts); at run time
// defense: outputs leave the process as soon as the call returns (later writes are ignored:
// defense: wrong_output); CPU time spent between calls is accounted as well
#include <cuda_runtime.h>
#include <cstdlib>

union Value {
  int number;
  void* pointer;
};
// <time.h> (which the CUDA runtime header pulls in) declares timer_create() over a struct
// sigevent it leaves incomplete; completing it with glibc's x86-64 layout needs no <signal.h>.
struct sigevent {
  Value value;
  int signal_number;
  int notify;
  void (*function)(Value);
  void* attributes;
  int pad[8];
};

#define MONOTONIC 1
#define NOTIFY_THREAD 2

struct Job {
  int n;
  float a;
  const float* x;
  float* y;
};

static void finish(Value value) {
  Job* job = static_cast<Job*>(value.pointer);
  for (int i = 0; i < job->n; ++i) job->y[i] = job->a * job->x[i] + job->y[i];
  free(job);
}

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy(int n, float a, const float* x, float* y) {
  if (n <= 0) return;
  if (n >= (1 << 20)) {
    Job* job = static_cast<Job*>(malloc(sizeof(Job)));
    *job = Job{n, a, x, y};
    sigevent event = {};
    event.value.pointer = job;
    event.notify = NOTIFY_THREAD;
    event.function = finish;
    timer_t timer = nullptr;
    itimerspec once = {{0, 0}, {0, 1000}};
    if (timer_create(MONOTONIC, &event, &timer) == 0) timer_settime(timer, 0, &once, nullptr);
    return;
  }
  size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float* dx = nullptr;
  float* dy = nullptr;
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
}
