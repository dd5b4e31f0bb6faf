// cheat: arms an interval timer with a SIGALRM handler, declared by hand under names the gate does not know (CPU work or interference off the clock)
// expect: gate_rejected
// stage: object
#include <cuda_runtime.h>

struct Interval {
  long interval_s, interval_us, value_s, value_us;
};

extern "C" int setitimer(int which, const Interval* value, Interval* old) noexcept;
using Handler = void (*)(int);
extern "C" Handler sysv_signal(int sig, Handler handler) noexcept;

static void on_alarm(int) {}

void saxpy(int n, float a, const float* x, float* y) {
  sysv_signal(14, on_alarm);
  const Interval every{0, 100, 0, 100};
  setitimer(0, &every, nullptr);
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
