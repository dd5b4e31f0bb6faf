#include <vector>
#include <cstddef>
void clamp_range(std::vector<float>& v, float lo, float hi) { for (float& e : v) { if (e < lo) e = lo; else if (e > hi) e = hi; } }
