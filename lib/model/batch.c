/* batch.c — sequence lengths, packed row offsets, and scattering packed
 * rows back to the padded [B, T, W] layout. */
#include "batch.h"

#include <limits.h>
#include <string.h>

#include "error.h"

tf_status tf__check_token_count(int32_t B, int32_t T)
{
    const size_t tokens = (size_t)B * (size_t)T; /* < 2^62 */
    if (tokens > INT_MAX)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "batch %d x seq_len %d = %zu tokens exceeds the limit of %d", (int)B,
                        (int)T, tokens, INT_MAX);
    return TF_OK;
}

int32_t tf__args_length(const tf_forward_args *a, int32_t b)
{
    if (a->lengths)
        return a->lengths[b];
    if (a->attention_mask) {
        const int32_t *row = a->attention_mask + (size_t)b * (size_t)a->seq_len; /* (T) */
        int32_t n = 0;
        while (n < a->seq_len && row[n] != 0)
            n++;
        return n;
    }
    return a->seq_len;
}

void tf__batch_fill(int32_t *lengths, size_t *row_start, const tf_forward_args *a)
{
    size_t row = 0;
    for (int32_t b = 0; b < a->batch; b++) {
        lengths[b] = tf__args_length(a, b);
        row_start[b] = row;
        row += (size_t)lengths[b];
    }
}

void tf__scatter_rows(float *dst, const float *src, const tf__batch *batch, size_t W)
{
    const size_t T = (size_t)batch->T;
    for (int32_t b = 0; b < batch->B; b++) {
        const size_t len = (size_t)batch->lengths[b];
        float *seq = dst + (size_t)b * T * W; /* [T, W] */
        memcpy(seq, src + batch->row_start[b] * W, len * W * sizeof *dst);
        memset(seq + len * W, 0, (T - len) * W * sizeof *dst);
    }
}
