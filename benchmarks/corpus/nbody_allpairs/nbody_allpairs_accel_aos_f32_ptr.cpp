// N-body accelerations with Plummer softening, bodies as an array of structs, float.
#include <cmath>

struct Body {
    float x, y, z, mass;
};

struct Accel {
    float x, y, z;
};

// regrapht: n = 4096; eps2 = 0.01; atol = 2e-2; rtol = 1e-3; bodies[n] in ~ uniform(0, 1)
// regrapht: acc[n] out
void nbody_accel_aos(int n, float eps2, const Body* bodies, Accel* acc) {
    for (int i = 0; i < n; ++i) {
        Accel a = {0.0f, 0.0f, 0.0f};
        for (int j = 0; j < n; ++j) {
            float dx = bodies[j].x - bodies[i].x;
            float dy = bodies[j].y - bodies[i].y;
            float dz = bodies[j].z - bodies[i].z;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / sqrtf(r2);
            float s = bodies[j].mass * inv * inv * inv;
            a.x += dx * s;
            a.y += dy * s;
            a.z += dz * s;
        }
        acc[i] = a;
    }
}
