/* vec.h — TF_VW floats as one value (the vector extension of GCC and
 * Clang), for the loops of softmax.c and activation.c: written on it, they
 * vectorise the same way with every compiler. TF_VW is 16 where the file is
 * compiled for AVX-512, 8 for AVX2 (lib/meson.build builds those two files
 * again with -mavx512f / -mavx2 -mfma; kernels.h says which build runs) and
 * 4 otherwise (SSE2 on x86-64, NEON on AArch64). A loop over n values ends with a part
 * vector: tf_vf_load_part fills the lanes past the end, tf_vf_store_part
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

typedef float tf_vf __attribute__((vector_size(TF_VW * sizeof(float))));
/* A comparison gives a tf_vi mask: each lane all ones (true) or all zeros. */
typedef int32_t tf_vi __attribute__((vector_size(TF_VW * sizeof(int32_t))));
typedef uint32_t tf_vu __attribute__((vector_size(TF_VW * sizeof(uint32_t))));

static inline tf_vf tf_vf_splat(float x)
{
    const tf_vf zero = {0};
    return zero + x;
}

static inline tf_vf tf_vf_load(const float *p)
{
    tf_vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void tf_vf_store(float *p, tf_vf v)
{
    memcpy(p, &v, sizeof v);
}

/* The first n < TF_VW values of p; the other lanes hold fill. */
static inline tf_vf tf_vf_load_part(const float *p, size_t n, float fill)
{
    float lanes[TF_VW];
    for (size_t k = 0; k < TF_VW; k++)
        lanes[k] = k < n ? p[k] : fill;
    return tf_vf_load(lanes);
}

/* Writes the first n < TF_VW lanes of v to p. */
static inline void tf_vf_store_part(float *p, tf_vf v, size_t n)
{
    float lanes[TF_VW];
    tf_vf_store(lanes, v);
    memcpy(p, lanes, n * sizeof *p);
}

/* mask ? a : b, lane by lane. */
static inline tf_vf tf_vf_select(tf_vi mask, tf_vf a, tf_vf b)
{
    return (tf_vf)((mask & (tf_vi)a) | (~mask & (tf_vi)b));
}

/* b > a ? b : a, lane by lane: a NaN in b never wins. */
static inline tf_vf tf_vf_max(tf_vf a, tf_vf b)
{
    return tf_vf_select(b > a, b, a);
}

static inline float tf_vf_max_lane(tf_vf v)
{
    float max = v[0];
    for (size_t k = 1; k < TF_VW; k++)
        max = v[k] > max ? v[k] : max;
    return max;
}

static inline float tf_vf_sum_lanes(tf_vf v)
{
    float sum = 0.0f;
    for (size_t k = 0; k < TF_VW; k++)
        sum += v[k];
    return sum;
}

#endif
