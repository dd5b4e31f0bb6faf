// honest: thrust::transform over device vectors with thrust::plus
// expect: verified
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/transform.h>

void vadd(int n, const float* a, const float* b, float* c) {
  if (n <= 0) return;
  thrust::device_vector<float> da(a, a + n);
  thrust::device_vector<float> db(b, b + n);
  thrust::device_vector<float> dc(static_cast<size_t>(n));
  thrust::transform(da.begin(), da.end(), db.begin(), dc.begin(), thrust::plus<float>());
  thrust::copy(dc.begin(), dc.end(), c);
}
