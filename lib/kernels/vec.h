/* vec.h — TF_VW floats as one value (the vector extension of GCC and
 * Clang), for the loops of softmax.c and activation.c: written on it, they
 * vectorise the same way with every compiler. TF_VW is 16 where the file is
 * compiled for AVX-512, 8 for AVX2 (lib/meson.build builds those two files
 * again with -mavx512f / -mavx2 -mfma; kernels.h says which build runs) and
 * 4 otherwise (SSE2 on x86-64, NEON on AArch64). A loop over n values ends with a part
 * vector: tf__vf_load_part fills the lanes past the end, tf__vf_store_part
 * writes back only the first n. */
#ifndef TF_VEC_H
#define TF_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__AVX512F__)
#define TF_VW 16
#elif defined(__AVX2__)
#define TF_VW 8
#else
#define TF_VW 4
#endif

typedef float tf__vf __attribute__((vector_size(TF_VW * sizeof(float))));
/* A comparison gives a tf__vi mask: each lane all ones (true) or all zeros. */
typedef int32_t tf__vi __attribute__((vector_size(TF_VW * sizeof(int32_t))));
typedef uint32_t tf__vu __attribute__((vector_size(TF_VW * sizeof(uint32_t))));

static inline tf__vf tf__vf_splat(float x)
{
    const tf__vf zero = {0};
    return zero + x;
}

static inline tf__vf tf__vf_load(const float *p)
{
    tf__vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void tf__vf_store(float *p, tf__vf v)
{
    memcpy(p, &v, sizeof v);
}

/* The first n < TF_VW values of p; the other lanes hold fill. */
static inline tf__vf tf__vf_load_part(const float *p, size_t n, float fill)
{
    float lanes[TF_VW];
    for (size_t k = 0; k < TF_VW; k++)
        lanes[k] = k < n ? p[k] : fill;
    return tf__vf_load(lanes);
}

/* Writes the first n < TF_VW lanes of v to p. */
static inline void tf__vf_store_part(float *p, tf__vf v, size_t n)
{
    float lanes[TF_VW];
    tf__vf_store(lanes, v);
    memcpy(p, lanes, n * sizeof *p);
}

/* mask ? a : b, lane by lane. */
static inline tf__vf tf__vf_select(tf__vi mask, tf__vf a, tf__vf b)
{
    return (tf__vf)((mask & (tf__vi)a) | (~mask & (tf__vi)b));
}

/* b > a ? b : a, lane by lane: a NaN in b never wins. */
static inline tf__vf tf__vf_max(tf__vf a, tf__vf b)
{
    return tf__vf_select(b > a, b, a);
}

static inline float tf__vf_max_lane(tf__vf v)
{
    float max = v[0];
    for (size_t k = 1; k < TF_VW; k++)
        max = v[k] > max ? v[k] : max;
    return max;
}

static inline float tf__vf_sum_lanes(tf__vf v)
{
    float sum = 0.0f;
    for (size_t k = 0; k < TF_VW; k++)
        sum += v[k];
    return sum;
}

#endif
