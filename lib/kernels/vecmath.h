/* vecmath.h — exp and the activations on vectors (vec.h), without branches
 * or library calls. Accuracy (tests/test_kernels.c checks every build
 * against float64 libm): tf__vf_exp relative error < 2e-7 on [-87, 0]; both
 * GELUs absolute error < 1e-6 on every float. */
#ifndef TF_VECMATH_H
#define TF_VECMATH_H

#include "vec.h"

/* exp(x) for x <= 88: x = n ln2 + r with |r| <= ln2/2, e^r by Cephes's
 * polynomial, 2^n written into the exponent. Below -87.3 (the smallest
 * normal result) it is exactly 0, so -INFINITY (a mask) gives 0; NaN gives
 * NaN. */
static inline tf__vf tf__vf_exp(tf__vf x)
{
    const tf__vf lo = tf__vf_splat(-87.33654f);
    const tf__vf round = tf__vf_splat(12582912.0f); /* 1.5 * 2^23: adding it rounds to an integer */
    const tf__vi underflow = x < lo;
    const tf__vf xc = tf__vf_select(underflow, lo, x);        /* NaN stays NaN */
    const tf__vf n_round = xc * 1.44269504088896341f + round; /* n sits in the low bits */
    const tf__vf n = n_round - round;
    const tf__vf r = (xc - n * 0.693359375f) + n * 2.12194440e-4f; /* ln 2 in two parts */
    tf__vf p = tf__vf_splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const tf__vf e = p * r * r + r + 1.0f;
    /* 2^n: the low bits of n_round are n (1.5 * 2^23's low bits are zero),
     * so shifting n_round + 127 left by 23 leaves exactly n + 127 in the
     * exponent: integer arithmetic on the bits, no float-to-int conversion
     * (which a NaN would make undefined). */
    const tf__vf scale = (tf__vf)(((tf__vu)n_round + 127u) << 23);
    return (tf__vf)((tf__vi)(e * scale) & ~underflow); /* NaN * scale is NaN */
}

static inline tf__vf tf__vf_abs(tf__vf x)
{
    return (tf__vf)((tf__vu)x & 0x7fffffffu);
}

/* 0.5 x (1 + erf(x / sqrt 2)) = x Phi(x), with erfc of |x| / sqrt 2 from
 * Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7), so the negative
 * tail, x * erfc / 2, keeps its relative accuracy. */
static inline tf__vf tf__vf_gelu_erf(tf__vf x)
{
    const tf__vf z = tf__vf_abs(x) * 0.70710678118654752f;
    const tf__vf t = 1.0f / (1.0f + 0.3275911f * z);
    tf__vf poly = tf__vf_splat(1.061405429f);
    poly = poly * t - 1.453152027f;
    poly = poly * t + 1.421413741f;
    poly = poly * t - 0.284496736f;
    poly = poly * t + 0.254829592f;
    const tf__vf half_erfc = 0.5f * poly * t * tf__vf_exp(-z * z);
    return x * tf__vf_select(x >= tf__vf_splat(0.0f), 1.0f - half_erfc, half_erfc);
}

/* 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), as x / (1 + e^-2u):
 * the same value without 1 + tanh's cancellation for negative x. Where
 * e^-2u would overflow (x below about -10.7) the value is x e^2u < 1e-37:
 * 0 (of x's sign). */
static inline tf__vf tf__vf_gelu_tanh(tf__vf x)
{
    const tf__vf u = 0.79788456080286536f * (x + 0.044715f * x * x * x);
    const tf__vf m = -2.0f * u;
    const tf__vf limit = tf__vf_splat(88.0f);
    const tf__vi overflow = m > limit;
    const tf__vf e = tf__vf_exp(tf__vf_select(overflow, limit, m));
    return tf__vf_select(overflow, x * 0.0f, x / (1.0f + e));
}

/* x / (1 + e^-x) (SiLU, "swish"). Where e^-x would overflow (x below
 * -88) the value is x e^x, under 1e-36: 0 (of x's sign). */
static inline tf__vf tf__vf_silu(tf__vf x)
{
    const tf__vf m = -x;
    const tf__vf limit = tf__vf_splat(88.0f);
    const tf__vi overflow = m > limit;
    const tf__vf e = tf__vf_exp(tf__vf_select(overflow, limit, m));
    return tf__vf_select(overflow, x * 0.0f, x / (1.0f + e));
}

/* x / (1 + e^(-1.702 x)) = x sigmoid(1.702 x) (quick GELU: transformers'
 * QuickGELUActivation, CLIP's "quick_gelu"). Where e^(-1.702 x) would
 * overflow (x below about -51.7) the value is x e^(1.702 x), under 1e-36: 0
 * (of x's sign). */
static inline tf__vf tf__vf_quick_gelu(tf__vf x)
{
    const tf__vf m = -1.702f * x;
    const tf__vf limit = tf__vf_splat(88.0f);
    const tf__vi overflow = m > limit;
    const tf__vf e = tf__vf_exp(tf__vf_select(overflow, limit, m));
    return tf__vf_select(overflow, x * 0.0f, x / (1.0f + e));
}

/* max(x, 0); NaN stays NaN. */
static inline tf__vf tf__vf_relu(tf__vf x)
{
    return tf__vf_select((x > tf__vf_splat(0.0f)) | (x != x), x, tf__vf_splat(0.0f));
}

#endif
