/* util.h — small helpers shared by the Check suites. Test-only. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Deterministic uniform values in [lo, hi). */
static inline void fill_uniform(float *x, size_t n, uint64_t seed, float lo, float hi)
{
    uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = lo + (hi - lo) * (float)((s >> 40) * 0x1.0p-24);
    }
}

/* Largest |got - want| over the real positions of a [B, T, W] tensor. */
static inline double max_abs_err_real(const float *got, const double *want, int B, int T, size_t W,
                                      const int32_t *lengths)
{
    double worst = 0.0;
    for (int b = 0; b < B; b++)
        for (size_t i = 0; i < (size_t)(lengths ? lengths[b] : T) * W; i++) {
            const size_t k = (size_t)b * T * W + i;
            const double e = fabs((double)got[k] - want[k]);
            worst = e > worst || isnan(e) ? e : worst;
        }
    return worst;
}

/* 1 if every padded position of a [B, T, W] tensor is exactly 0. */
static inline int padding_is_zero(const float *x, int B, int T, size_t W, const int32_t *lengths)
{
    for (int b = 0; b < B; b++)
        for (size_t i = (size_t)lengths[b] * W; i < (size_t)T * W; i++)
            if (x[(size_t)b * T * W + i] != 0.0f)
                return 0;
    return 1;
}

#endif
