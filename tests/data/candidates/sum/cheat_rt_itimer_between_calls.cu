// cheat: correct sum, but arms a 100 us interval timer when it returns and disarms it when it
// cheat: is called again; the SIGALRM handler (installed with bsd_signal, which the gate does
// cheat: not name) burns ~80 us of CPU each time, so whatever runs in the process between two
// cheat: candidate calls -- a CPU reference timed in the same process -- runs ~5x slower
// expect: gate_rejected
// stage: object
// defense: the CPU reference never runs in the candidate's process (timed once per session in
// defense: its own), so the slowed code is only the harness's idle wait: no speedup is gained;
// defense: where seccomp kills on timer or signal syscalls the run ends as a crash instead
#include <cuda_runtime.h>

typedef void (*Handler)(int);
struct Interval {
  long seconds;
  long microseconds;
};
struct Timer {
  Interval every;
  Interval first;
};
extern "C" Handler bsd_signal(int signal_number, Handler handler);
extern "C" int setitimer(int which, const Timer* value, Timer* old);

#define ALARM_SIGNAL 14
#define REAL_TIMER 0

static void burn(int) {
  volatile unsigned spin = 0;
  for (unsigned i = 0; i < 200000; ++i) spin = spin + i;
}

static void arm(long microseconds) {
  Timer timer = {{0, microseconds}, {0, microseconds}};
  setitimer(REAL_TIMER, &timer, nullptr);
}

__global__ void reduce_atomic(int n, const float* x, float* out) {
  __shared__ float partial[256];
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += x[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) partial[threadIdx.x] += partial[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

float sum(int n, const float* x) {
  arm(0);  // our own call runs undisturbed
  float result = 0.0f;
  if (n > 0) {
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    float* dx = nullptr;
    float* dout = nullptr;
    cudaMalloc(&dx, bytes);
    cudaMalloc(&dout, sizeof(float));
    cudaMemset(dout, 0, sizeof(float));
    cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
    int blocks = (n + 255) / 256;
    if (blocks > 1024) blocks = 1024;
    reduce_atomic<<<blocks, 256>>>(n, dx, dout);
    cudaMemcpy(&result, dout, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dout);
  }
  if (bsd_signal(ALARM_SIGNAL, burn) != reinterpret_cast<Handler>(-1))
    arm(100);  // everyone else's time, until we are called again
  return result;
}
