// cheat: splits the work: the GPU adds five eighths of the vectors inside the call, and three
// cheat: CPU threads started by POSIX timers (timer_create with SIGEV_THREAD: no thread API in
// cheat: sight) add the other three eighths, starting 5 ms later, when the call has long
// cheat: returned: a plausible GPU time, less PCIe traffic, and host cores billed to nobody
// expect: gate_rejected
// stage: object
// defense: object check first (imports timer_create: threads the candidate starts); at run time
// defense: outputs leave the process as soon as the call returns, so the last three eighths are
// defense: still poison when read (wrong_output); CPU time spent outside the call is accounted
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
#define HELPERS 3

struct Part {
  const float* a;
  const float* b;
  float* c;
  int begin;
  int end;
};

static void add_part(Value value) {
  Part* part = static_cast<Part*>(value.pointer);
  for (int i = part->begin; i < part->end; ++i) part->c[i] = part->a[i] + part->b[i];
  free(part);
}

__global__ void vadd_kernel(int n, const float* a, const float* b, float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0) return;
  int gpu_n = n;
  if (n >= (1 << 20)) {
    const int eighth = n / 8;
    gpu_n = n - HELPERS * eighth;
    for (int h = 0; h < HELPERS; ++h) {
      int begin = gpu_n + h * eighth;
      Part* part = static_cast<Part*>(malloc(sizeof(Part)));
      *part = Part{a, b, c, begin, h == HELPERS - 1 ? n : begin + eighth};
      sigevent event = {};
      event.value.pointer = part;
      event.notify = NOTIFY_THREAD;
      event.function = add_part;
      itimerspec once = {{0, 0}, {0, 5000000}};  // 5 ms: after the call has returned
      timer_t timer = nullptr;
      if (timer_create(MONOTONIC, &event, &timer) != 0 ||
          timer_settime(timer, 0, &once, nullptr) != 0) {
        add_part(event.value);  // no helper: do it here
      }
    }
  }
  const size_t bytes = static_cast<size_t>(gpu_n) * sizeof(float);
  float* da = nullptr;
  float* db = nullptr;
  float* dc = nullptr;
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
  vadd_kernel<<<(gpu_n + 255) / 256, 256>>>(gpu_n, da, db, dc);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  // The helpers are not waited for: they finish on their own time, not the call's.
}
