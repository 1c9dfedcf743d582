/* relative_bias.c — relative positions to buckets, buckets to each head's
 * bias (see relative_bias.h). */
#include "relative_bias.h"

#include <math.h>

#include "config.h"

int32_t tf__relative_bucket(int64_t relative, const tf_config *cfg)
{
    const int32_t half = cfg->relative_buckets / 2, exact = tf__relative_exact_of(cfg);
    const int32_t max_distance = tf__relative_max_distance_of(cfg);
    const int32_t side = relative > 0 ? half : 0; /* n = i - j < 0: the key comes later */
    const int64_t n = relative < 0 ? -relative : relative;
    if (n < exact)
        return side + (int32_t)n;
    /* upstream: log(n.float() / max_exact) / log(max_distance / max_exact)
     * * (num_buckets - max_exact), truncated, all in float32 */
    const float scaled = logf((float)n / (float)exact) / (float)log((double)max_distance / exact) *
        (float)(half - exact);
    const int32_t large = exact + (int32_t)scaled;
    return side + (large < half - 1 ? large : half - 1);
}

void tf__relative_bias_table(float *table, const float *weight, const tf_config *cfg,
                             size_t max_len)
{
    if (max_len == 0)
        return;
    const size_t H = (size_t)cfg->n_heads, span = 2 * max_len - 1;
    for (size_t at = 0; at < span; at++) {
        const int64_t relative = (int64_t)at - (int64_t)(max_len - 1);                 /* j - i */
        const float *bucket = weight + (size_t)tf__relative_bucket(relative, cfg) * H; /* (H) */
        for (size_t h = 0; h < H; h++)
            table[h * span + at] = bucket[h];
    }
}
