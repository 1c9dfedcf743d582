/* vecmath.h — exp and the GELUs written without branches or library calls,
 * so that loops over them vectorise. Accuracy (tests/test_kernels.c checks
 * it against float64 libm): tf_vexpf relative error < 3e-7; both GELUs
 * absolute error < 1e-6 on every float. */
#ifndef TF_VECMATH_H
#define TF_VECMATH_H

#include <stdint.h>
#include <string.h>

/* exp(x) for x <= 88.7: x = n ln2 + r with |r| <= ln2/2, e^r by Cephes's
 * polynomial, 2^n written into the exponent. Below -87.3 (the smallest
 * normal result) it is exactly 0, so -INFINITY (a mask) gives 0; NaN gives
 * NaN. (Never called above 88.7 here: softmax's arguments are <= 0.) */
static inline float tf_vexpf(float x)
{
    const float lo = -87.33654f, hi = 88.72283f;
    const float xc = x < lo ? lo : (x > hi ? hi : x); /* NaN stays NaN */
    const float round = 12582912.0f;                   /* 1.5 * 2^23: rounds to an integer */
    const float n = (xc * 1.44269504088896341f + round) - round;
    const float r = (xc - n * 0.693359375f) + n * 2.12194440e-4f; /* ln 2 in two parts */
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float e = p * r * r + r + 1.0f;
    const float n_finite = n == n ? n : 0.0f; /* converting NaN to int is undefined */
    const int32_t bits = ((int32_t)n_finite + 127) * (1 << 23);
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return x < lo ? 0.0f * e : e * scale; /* 0 * NaN is NaN */
}

/* 0.5 x (1 + erf(x / sqrt 2)) = x Phi(x), with erfc of |x| / sqrt 2 from
 * Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7), so the negative
 * tail, x * erfc / 2, keeps its relative accuracy. */
static inline float tf_vgelu_erf(float x)
{
    const float z = (x < 0.0f ? -x : x) * 0.70710678118654752f;
    const float t = 1.0f / (1.0f + 0.3275911f * z);
    float poly = 1.061405429f;
    poly = poly * t - 1.453152027f;
    poly = poly * t + 1.421413741f;
    poly = poly * t - 0.284496736f;
    poly = poly * t + 0.254829592f;
    const float half_erfc = 0.5f * poly * t * tf_vexpf(-z * z);
    return x * (x >= 0.0f ? 1.0f - half_erfc : half_erfc);
}

/* 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), as x / (1 + e^-2u):
 * the same value without 1 + tanh's cancellation for negative x. Where
 * e^-2u would overflow (x below about -10.7) the value is x e^2u < 1e-37:
 * 0 (of x's sign). */
static inline float tf_vgelu_tanh(float x)
{
    const float u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    const float m = -2.0f * u;
    const float e = tf_vexpf(m > 88.0f ? 88.0f : m);
    return m > 88.0f ? x * 0.0f : x / (1.0f + e);
}

#endif
