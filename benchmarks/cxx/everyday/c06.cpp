#include <vector>
#include <cstddef>
#include <cmath>
// mandelbrot escape counts
std::vector<int> mandelbrot(int w, int h, int max_iter) {
    std::vector<int> out(w * h);
    for (int py = 0; py < h; ++py)
        for (int px = 0; px < w; ++px) {
            float cx = -2.0f + 3.0f * px / w, cy = -1.5f + 3.0f * py / h;
            float zx = 0, zy = 0;
            int it = 0;
            while (zx * zx + zy * zy < 4.0f && it < max_iter) {
                float t = zx * zx - zy * zy + cx;
                zy = 2 * zx * zy + cy;
                zx = t;
                ++it;
            }
            out[py * w + px] = it;
        }
    return out;
}
