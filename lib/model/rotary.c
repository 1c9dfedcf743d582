/* rotary.c — RoPE on Q and K (see rotary.h). */
#include "rotary.h"

#include <math.h>

#include "config.h"

size_t tf__rotary_dim(const tf_config *cfg)
{
    return (size_t)tf__rotary_dim_of(cfg);
}

double tf__rotary_theta(const tf_config *cfg, int local, int32_t max_len)
{
    double theta = cfg->rotary_base ? (double)cfg->rotary_base : TF_ROTARY_DEFAULT_THETA;
    if (local && cfg->rotary_base_local)
        theta = (double)cfg->rotary_base_local;
    const double a = (double)cfg->rotary_ntk_factor, r = (double)tf__rotary_dim(cfg);
    const int32_t trained = cfg->rotary_ntk_positions;
    if (a == 0.0 || (trained > 0 && max_len <= trained))
        return theta;
    /* NTK-aware scaling, static, or dynamic as nomic's
     * NomicBertDynamicNTKRotaryEmbedding._update: theta grows so that the
     * lowest frequency stretches over the longer context (GTE's
     * NTKScalingRotaryEmbedding is theta a with rotary_linear_factor) */
    const double stretch = trained > 0 ? a * (double)max_len / (double)trained - (a - 1.0) : a;
    return theta * pow(stretch, r / (r - 2.0));
}

void tf__rotary_table(float *table, const tf_config *cfg, double theta, int32_t max_len)
{
    const size_t r = tf__rotary_dim(cfg), half = r / 2;
    /* GTE's NTKScalingRotaryEmbedding divides every frequency by a^(2/r) */
    const double f = cfg->rotary_linear_factor ? (double)cfg->rotary_linear_factor : 1.0;
    for (int32_t t = 0; t < max_len; t++) {
        float *row = table + (size_t)t * r; /* (r): cos | sin */
        for (size_t i = 0; i < half; i++) {
            const double angle = (double)t / f * pow(theta, -2.0 * (double)i / (double)r);
            row[i] = (float)cos(angle);
            row[half + i] = (float)sin(angle);
        }
    }
}

/* x (d_k) rotated by row (r) = cos | sin: pairs (i, i + r/2), or (2i, 2i+1)
 * when interleaved. */
static void rotate_head(float *x, const float *row, size_t r, int interleaved)
{
    const size_t half = r / 2;
    const float *cos_t = row, *sin_t = row + half; /* (r/2) each */
    for (size_t i = 0; i < half; i++) {
        float *a = interleaved ? &x[2 * i] : &x[i];
        float *b = interleaved ? &x[2 * i + 1] : &x[i + half];
        const float xa = *a, xb = *b;
        *a = xa * cos_t[i] - xb * sin_t[i];
        *b = xb * cos_t[i] + xa * sin_t[i];
    }
}

typedef struct rotary_job {
    float *qkv;         /* (N, 3D) */
    const float *table; /* (max_len, r) */
    const tf__batch *batch;
    size_t D, H, r;
    int interleaved;
} rotary_job;

/* The sequence that packed row `row` (< N) belongs to: the last b with
 * row_start[b] <= row (an empty sequence starts where the next one does,
 * so the last of equal starts is the one with tokens). */
static int32_t sequence_of(const tf__batch *bt, size_t row)
{
    int32_t lo = 0, hi = bt->B - 1;
    while (lo < hi) {
        const int32_t mid = lo + (hi - lo + 1) / 2;
        if (bt->row_start[mid] <= row)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void rotary_task(void *ctx, size_t first, size_t count)
{
    const rotary_job *j = ctx;
    const size_t D = j->D, dk = D / j->H;
    int32_t b = sequence_of(j->batch, first);
    for (size_t row = first; row < first + count; row++) {
        while (row >= j->batch->row_start[b] + (size_t)j->batch->lengths[b])
            b++;
        const size_t t = row - j->batch->row_start[b];
        const float *angles = j->table + t * j->r;   /* (r) */
        float *q = j->qkv + row * 3 * D, *k = q + D; /* (D) each */
        for (size_t h = 0; h < j->H; h++) {
            rotate_head(q + h * dk, angles, j->r, j->interleaved);
            rotate_head(k + h * dk, angles, j->r, j->interleaved);
        }
    }
}

void tf__rotary_apply(const tf__schedule *s, float *qkv, const float *table, const tf__batch *batch,
                      const tf_config *cfg)
{
    rotary_job job = {qkv,
                      table,
                      batch,
                      (size_t)cfg->d_model,
                      (size_t)cfg->n_heads,
                      tf__rotary_dim(cfg),
                      cfg->rotary_interleaved};
    tf__schedule_rows(s, rotary_task, &job, batch->N, 2 * job.D);
}
