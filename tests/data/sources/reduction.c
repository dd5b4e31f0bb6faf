/* Sum of squares: a reduction returning a scalar. */

float sum_squares(const float *x, int n)
{
    float total = 0.0f;
    for (int i = 0; i < n; i++) {
        total += x[i] * x[i];
    }
    return total;
}
