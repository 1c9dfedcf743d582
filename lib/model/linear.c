/* linear.c — projections through cblas_sgemm: a PyTorch-layout weight
 * whole, a transposed one in column blocks on the call's threads. */
#include "linear.h"

#include <cblas.h>
#include <string.h>

#include "kernels.h"

/* y[:, c0 : c0+nc] (n, nc), row stride out, starts at the bias b[c0 : c0+nc]
 * (or, with no bias, is overwritten): the beta for the product after it. */
static float start_at_bias(float *y, const float *b, size_t n, size_t out, size_t c0, size_t nc)
{
    if (!b)
        return 0.0f;
    for (size_t r = 0; r < n; r++)
        memcpy(y + r * out + c0, b + c0, nc * sizeof *b);
    return 1.0f; /* the GEMM accumulates onto it */
}

/* y[:, c0 : c0+nc] (n, nc), row stride out = x (n, in), row stride ldx,
 * . wt[:, c0 : c0+nc] + b[c0 : c0+nc], wt (in, out) the transposed weight. */
static void projection_block(float *y, const float *x, size_t ldx, const float *wt, const float *b,
                             size_t n, size_t out, size_t in, size_t c0, size_t nc)
{
    const float beta = start_at_bias(y, b, n, out, c0, nc);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)nc, (int)in, 1.0f, x,
                (int)ldx, wt + c0, (int)out, beta, y + c0, (int)out);
}

void tf__linear(float *y, const float *x, const float *w, const float *b, size_t n, size_t out,
                size_t in)
{
    if (n == 0)
        return;
    const float beta = start_at_bias(y, b, n, out, 0, out);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)out, (int)in, 1.0f, x,
                (int)in, w, (int)in, beta, y, (int)out);
}

size_t tf__linear_parts(int width, size_t out)
{
    const size_t most = (out + TF_LINEAR_MIN_COLUMNS - 1) / TF_LINEAR_MIN_COLUMNS;
    return (size_t)width < most ? (size_t)width : most;
}

typedef struct linear_job {
    float *y;
    const float *x, *wt, *b;
    size_t ldx, n, out, in, parts;
    int activation;
} linear_job;

static void linear_task(void *ctx, size_t part, int thread)
{
    const linear_job *j = ctx;
    size_t c0, nc;
    tf__split_range(j->out, j->parts, TF_LINEAR_COLUMN_ALIGN, part, &c0, &nc);
    if (nc == 0)
        return;
    projection_block(j->y, j->x, j->ldx, j->wt, j->b, j->n, j->out, j->in, c0, nc);
    if (j->activation != TF_LINEAR_NO_ACTIVATION)
        for (size_t r = 0; r < j->n; r++)
            tf__activation_apply(j->y + r * j->out + c0, nc, j->activation);
}

void tf__linear_split_strided(const tf__schedule *s, float *y, const float *x, size_t ldx,
                              const float *wt, const float *b, size_t n, size_t out, size_t in,
                              int activation)
{
    if (n == 0)
        return;
    linear_job job = {y, x, wt, b, ldx, n, out, in, tf__linear_parts(s->width, out), activation};
    tf__schedule_run(s, linear_task, &job, job.parts);
}

void tf__linear_split(const tf__schedule *s, float *y, const float *x, const float *wt,
                      const float *b, size_t n, size_t out, size_t in, int activation)
{
    tf__linear_split_strided(s, y, x, in, wt, b, n, out, in, activation);
}
