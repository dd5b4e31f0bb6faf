// N-body accelerations with Plummer softening, bodies as an array of structs, double.
#include <cmath>
#include <vector>

struct Body {
    double x, y, z, mass;
};

struct Accel {
    double x, y, z;
};

// regrapht: n = 4096; eps2 = 0.01; bodies[n] in ~ uniform(0, 1); acc[n] out
void nbody_accel_aos(int n, double eps2, const std::vector<Body>& bodies, std::vector<Accel>& acc) {
    for (int i = 0; i < n; ++i) {
        Accel a = {0.0, 0.0, 0.0};
        for (int j = 0; j < n; ++j) {
            double dx = bodies[j].x - bodies[i].x;
            double dy = bodies[j].y - bodies[i].y;
            double dz = bodies[j].z - bodies[i].z;
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double inv = 1.0 / sqrt(r2);
            double s = bodies[j].mass * inv * inv * inv;
            a.x += dx * s;
            a.y += dy * s;
            a.z += dz * s;
        }
        acc[i] = a;
    }
}
