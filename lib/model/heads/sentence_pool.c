/* sentence_pool.c — sentence vectors: each pooling mode of
 * sentence-transformers (sentence_transformers/models/Pooling.py, forward),
 * L2 normalisation, the layer norm of nomic's Matryoshka vectors, and the
 * public tf_pool over them. */
#include "sentence_pool.h"

#include <math.h>
#include <string.h>

#include "checked.h"
#include "error.h"
#include "names.h"
#include "tfenc.h"

const int32_t tf__pooling_order[TF_POOLING_COUNT] = {
    TF_POOLING_CLS,           TF_POOLING_MAX,           TF_POOLING_MEAN,
    TF_POOLING_MEAN_SQRT_LEN, TF_POOLING_WEIGHTED_MEAN, TF_POOLING_LAST_TOKEN};

/* Pooling.py's value for a masked token under max pooling. */
#define TF_POOL_MAX_MASKED (-1e9)

/* v (D) = sum over t in [lo, hi) of weight(t) seq[t] / divisor, in double. */
static void weighted_sum(float *v, const float *seq, size_t lo, size_t hi, size_t D,
                         int by_position, double divisor)
{
    for (size_t i = 0; i < D; i++) {
        double sum = 0.0;
        for (size_t t = lo; t < hi; t++)
            sum += (by_position ? (double)(t + 1) : 1.0) * seq[t * D + i];
        v[i] = (float)(sum / divisor);
    }
}

/* One sequence's vector v (D) of seq [T, D] over tokens [lo, hi). */
static void pool_one(float *v, const float *seq, size_t lo, size_t hi, size_t D, int pooling)
{
    const size_t count = hi > lo ? hi - lo : 0;
    /* Pooling.py clamps the divisor to 1e-9: no token gives a sum of 0 over it */
    const double n = count ? (double)count : 1e-9;
    switch (pooling) {
    case TF_POOLING_CLS:
        memcpy(v, seq, D * sizeof *v);
        return;
    case TF_POOLING_MEAN:
        weighted_sum(v, seq, lo, lo + count, D, 0, n);
        return;
    case TF_POOLING_MEAN_SQRT_LEN:
        weighted_sum(v, seq, lo, lo + count, D, 0, sqrt(n));
        return;
    case TF_POOLING_WEIGHTED_MEAN: {
        /* weights 1..T by position: sum of (t + 1) over [lo, hi) */
        const double w = count ? (double)count * (double)(lo + hi + 1) / 2.0 : 1e-9;
        weighted_sum(v, seq, lo, lo + count, D, 1, w);
        return;
    }
    case TF_POOLING_MAX:
        for (size_t i = 0; i < D; i++) {
            double best = TF_POOL_MAX_MASKED;
            for (size_t t = lo; t < lo + count; t++)
                best = seq[t * D + i] > best ? seq[t * D + i] : best;
            v[i] = (float)best;
        }
        return;
    case TF_POOLING_LAST_TOKEN:
        if (count)
            memcpy(v, seq + (hi - 1) * D, D * sizeof *v);
        else
            memset(v, 0, D * sizeof *v);
        return;
    }
}

void tf__pool_mode(float *out, size_t ld_out, const float *seq, const int32_t *lengths,
                   const int32_t *first, size_t B, size_t T, size_t D, int pooling)
{
    for (size_t b = 0; b < B; b++) {
        const size_t hi = lengths ? (size_t)lengths[b] : T;
        const size_t lo = first ? (size_t)first[b] : 0;
        float *v = out + b * ld_out; /* (D) */
        if (pooling == TF_POOLING_CLS && hi == 0)
            memset(v, 0, D * sizeof *v); /* an empty sequence has no token 0 */
        else
            pool_one(v, seq + b * T * D, lo, hi, D, pooling);
    }
}

void tf__l2_normalize_rows(float *x, size_t n, size_t D)
{
    for (size_t r = 0; r < n; r++) {
        float *v = x + r * D; /* (D) */
        double norm = 0.0;
        for (size_t i = 0; i < D; i++)
            norm += (double)v[i] * v[i];
        const double scale = 1.0 / fmax(sqrt(norm), 1e-12);
        for (size_t i = 0; i < D; i++)
            v[i] = (float)(v[i] * scale);
    }
}

void tf__layer_norm_vectors(float *x, size_t n, size_t D, double eps)
{
    for (size_t r = 0; r < n; r++) {
        float *v = x + r * D; /* (D) */
        double mean = 0.0, var = 0.0;
        for (size_t i = 0; i < D; i++)
            mean += v[i];
        mean /= (double)D;
        for (size_t i = 0; i < D; i++)
            var += ((double)v[i] - mean) * ((double)v[i] - mean);
        const double rstd = 1.0 / sqrt(var / (double)D + eps);
        for (size_t i = 0; i < D; i++)
            v[i] = (float)(((double)v[i] - mean) * rstd);
    }
}

static tf_status check_pool_args(const float *hidden, const int32_t *lengths, int32_t B, int32_t T,
                                 int32_t D, int32_t pooling, int32_t normalize, const float *out)
{
    if (!hidden || !out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", hidden ? "out" : "hidden");
    if (B < 1 || T < 1 || D < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "batch %d, seq_len %d, d_model %d: expected >= 1",
                        (int)B, (int)T, (int)D);
    size_t n;
    if (!tf__mul_size((size_t)B * (size_t)T, (size_t)D, &n) || !tf__mul_size(n, sizeof(float), &n))
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "hidden [%d, %d, %d] overflows size_t", (int)B,
                        (int)T, (int)D);
    if (pooling < 0 || pooling >= TF_POOLING_COUNT)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "pooling: expected 0 (CLS) .. %d (last token), "
                        "got %d",
                        TF_POOLING_COUNT - 1, (int)pooling);
    if (normalize != 0 && normalize != 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "normalize: expected 0 or 1, got %d",
                        (int)normalize);
    for (int32_t b = 0; lengths && b < B; b++)
        if (lengths[b] < 0 || lengths[b] > T)
            return tf__fail(TF_ERR_INVALID_ARGUMENT, "lengths[%d] = %d is outside 0..seq_len %d",
                            (int)b, (int)lengths[b], (int)T);
    return TF_OK;
}

tf_status tf_pool(const float *hidden, const int32_t *lengths, int32_t batch, int32_t seq_len,
                  int32_t d_model, int32_t pooling, int32_t normalize, float *out)
{
    tf_status s = check_pool_args(hidden, lengths, batch, seq_len, d_model, pooling, normalize,
                                  out);
    if (s)
        return s;
    const size_t B = (size_t)batch, T = (size_t)seq_len, D = (size_t)d_model;
    tf__pool_mode(out, D, hidden, lengths, NULL, B, T, D, pooling);
    for (size_t b = 0; b < B; b++) /* an empty sequence gives zeros in every mode */
        if (lengths && lengths[b] == 0)
            memset(out + b * D, 0, D * sizeof *out);
    if (normalize)
        tf__l2_normalize_rows(out, B, D);
    return TF_OK;
}
