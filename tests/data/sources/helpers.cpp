// A file with helpers, types and macros around the entry; only what the entry
// uses belongs in the reference.
#include <cmath>
#include <cstdio>

#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : ((x) > (hi) ? (hi) : (x)))
#define UNUSED_LIMIT 4096

typedef float real;

struct Range {
    real lo;
    real hi;
};

static inline real normalize(real v, Range r) {
    return CLAMP((v - r.lo) / (r.hi - r.lo), 0.0f, 1.0f);
}

static inline real smoothstep(real t) { return t * t * (3.0f - 2.0f * t); }

static void unused_helper(real* data, int count) {
    for (int i = 0; i < count; ++i) data[i] = 0;
}

void apply_smoothstep(int n, const real* in, real* out, real lo, real hi) {
    Range r{lo, hi};
    for (int i = 0; i < n; ++i) {
        out[i] = smoothstep(normalize(in[i], r));
    }
}

int main() {
    real in[4] = {0, 1, 2, 3}, out[4];
    apply_smoothstep(4, in, out, 0.0f, 3.0f);
    std::printf("%f\n", out[3]);
    return 0;
}
