/* qk_norm.c — LayerNorms on Q and K, in place in the (N, 3D) projection. */
#include "qk_norm.h"

#include "kernels.h"

typedef struct qk_norm_job {
    float *qkv; /* (N, 3D) */
    const tf__layer_weights *lw;
    size_t D;
    float eps;
} qk_norm_job;

static void qk_norm_task(void *ctx, size_t first, size_t count)
{
    const qk_norm_job *j = ctx;
    const size_t D = j->D;
    for (size_t r = first; r < first + count; r++) {
        float *q = j->qkv + r * 3 * D, *k = q + D; /* (D) each */
        tf__layernorm_rows(q, q, j->lw->q_norm_w, j->lw->q_norm_b, 1, D, j->eps);
        tf__layernorm_rows(k, k, j->lw->k_norm_w, j->lw->k_norm_b, 1, D, j->eps);
    }
}

void tf__qk_norm_apply(const tf__schedule *s, float *qkv, const tf__layer_weights *lw, size_t N,
                       size_t D, float eps)
{
    qk_norm_job job = {.qkv = qkv, .lw = lw, .D = D, .eps = eps};
    tf__schedule_rows(s, qk_norm_task, &job, N, 2 * D);
}
