/* elementwise.c — sums and products of two arrays, value by value. */
#include "kernels.h"

void tf__add(float *x, const float *delta, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] += delta[i];
}

void tf__mul(float *x, const float *factor, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] *= factor[i];
}
