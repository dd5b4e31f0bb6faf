#include <vector>
#include <cstddef>
#include <cmath>
struct Particle { float x, y, z, vx, vy, vz; };
void step(std::vector<Particle>& ps, float dt) {
    for (Particle& p : ps) {
        p.x += p.vx * dt;
        p.y += p.vy * dt;
        p.z += p.vz * dt;
    }
}
