// Layout change: an array of Particle structs split into four component arrays.

struct Particle {
    float x, y, z;
    float mass;
};

// regrapht: n = 1<<23; pts[n] in ~ uniform(-1, 1); px[n] out; py[n] out; pz[n] out; pw[n] out
void particles_to_soa(int n, const Particle* pts, float* px, float* py, float* pz, float* pw) {
    for (int i = 0; i < n; ++i) {
        px[i] = pts[i].x;
        py[i] = pts[i].y;
        pz[i] = pts[i].z;
        pw[i] = pts[i].mass;
    }
}
