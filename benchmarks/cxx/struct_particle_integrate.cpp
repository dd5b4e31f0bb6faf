#include <vector>
#include <cstddef>

struct Particle {
    float x, y, z;
    float vx, vy, vz;
};

// Semi-implicit Euler step under gravity with a floor at z = 0 that reflects velocity.
void integrate(std::vector<Particle>& particles, float dt, float gravity) {
    for (size_t i = 0; i < particles.size(); ++i) {
        Particle& p = particles[i];
        p.vz -= gravity * dt;
        p.x += p.vx * dt;
        p.y += p.vy * dt;
        p.z += p.vz * dt;
        if (p.z < 0.0f) {
            p.z = -p.z;
            p.vz = -0.9f * p.vz;
        }
    }
}
