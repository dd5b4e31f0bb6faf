#include <vector>
struct Particle {
    float x, y, z;
    float vx, vy, vz;
};
void advance(std::vector<Particle>& ps, float dt) {
    for (auto& p : ps) {
        p.x += p.vx * dt;
        p.y += p.vy * dt;
        p.z += p.vz * dt;
    }
}
