/* sentence_pool.c — tf_pool: sentence vectors: CLS or mean pooling of hidden states,
 * optionally L2-normalised. */
#include <math.h>
#include <string.h>

#include "checked.h"
#include "error.h"
#include "tfenc.h"

static tf_status check_pool_args(const float *hidden, const int32_t *lengths, int32_t B, int32_t T,
                                 int32_t D, int32_t pooling, int32_t normalize, const float *out)
{
    if (!hidden || !out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", hidden ? "out" : "hidden");
    if (B < 1 || T < 1 || D < 1)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "batch %d, seq_len %d, d_model %d: expected >= 1",
                       (int)B, (int)T, (int)D);
    size_t n;
    if (!tf_mul_size((size_t)B * (size_t)T, (size_t)D, &n) || !tf_mul_size(n, sizeof(float), &n))
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "hidden [%d, %d, %d] overflows size_t", (int)B,
                       (int)T, (int)D);
    if (pooling != TF_POOLING_CLS && pooling != TF_POOLING_MEAN)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "pooling: expected 0 (CLS) or 1 (mean), got %d",
                       (int)pooling);
    if (normalize != 0 && normalize != 1)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "normalize: expected 0 or 1, got %d",
                       (int)normalize);
    for (int32_t b = 0; lengths && b < B; b++)
        if (lengths[b] < 0 || lengths[b] > T)
            return tf_fail(TF_ERR_INVALID_ARGUMENT, "lengths[%d] = %d is outside 0..seq_len %d",
                           (int)b, (int)lengths[b], (int)T);
    return TF_OK;
}

tf_status tf_pool(const float *hidden, const int32_t *lengths, int32_t batch, int32_t seq_len,
                  int32_t d_model, int32_t pooling, int32_t normalize, float *out)
{
    tf_status s = check_pool_args(hidden, lengths, batch, seq_len, d_model, pooling, normalize, out);
    if (s)
        return s;
    const size_t T = (size_t)seq_len, D = (size_t)d_model;
    for (int32_t b = 0; b < batch; b++) {
        const size_t len = lengths ? (size_t)lengths[b] : T;
        const float *seq = hidden + (size_t)b * T * D; /* [T, D] */
        float *v = out + (size_t)b * D;                /* (D) */
        const size_t rows = pooling == TF_POOLING_CLS ? (len > 0) : len;
        double norm = 0.0;
        for (size_t i = 0; i < D; i++) {
            double sum = 0.0;
            for (size_t t = 0; t < rows; t++)
                sum += seq[t * D + i];
            v[i] = rows ? (float)(sum / (double)rows) : 0.0f;
            norm += (double)v[i] * v[i];
        }
        if (normalize && norm > 0.0) {
            const double scale = 1.0 / sqrt(norm);
            for (size_t i = 0; i < D; i++)
                v[i] = (float)(v[i] * scale);
        }
    }
    return TF_OK;
}
