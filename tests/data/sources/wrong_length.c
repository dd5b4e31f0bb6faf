/* The annotation under-sizes `y` by one element: validation under ASan must catch it. */

// regrapht: n = 1<<16; y[n-1] inout
void axpy_wrong(int n, float a, const float *x, float *y)
{
    for (int i = 0; i < n; ++i)
        y[i] += a * x[i];
}
