/* linear.c — PyTorch-layout projection through cblas_sgemm, whole or in
 * column blocks. */
#include "linear.h"

#include <cblas.h>
#include <string.h>

#include "kernels.h"

/* y[:, c0 : c0+nc] (n, nc), row stride out = x (n, in), row stride ldx,
 * . w[c0 : c0+nc]^T + b[c0 : c0+nc]. */
static void linear_block(float *y, const float *x, size_t ldx, const float *w, const float *b,
                         size_t n, size_t out, size_t in, size_t c0, size_t nc)
{
    float beta = 0.0f;
    if (b) { /* start C at the bias; the GEMM accumulates onto it */
        for (size_t r = 0; r < n; r++)
            memcpy(y + r * out + c0, b + c0, nc * sizeof *b);
        beta = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)nc, (int)in, 1.0f, x,
                (int)ldx, w + c0 * in, (int)in, beta, y + c0, (int)out);
}

void tf_linear(float *y, const float *x, const float *w, const float *b, size_t n, size_t out,
               size_t in)
{
    if (n > 0)
        linear_block(y, x, in, w, b, n, out, in, 0, out);
}

size_t tf_linear_parts(int width, size_t out)
{
    const size_t most = (out + TF_LINEAR_MIN_COLUMNS - 1) / TF_LINEAR_MIN_COLUMNS;
    return (size_t)width < most ? (size_t)width : most;
}

typedef struct linear_job {
    float *y;
    const float *x, *w, *b;
    size_t ldx, n, out, in, parts;
    int activation;
} linear_job;

static void linear_task(void *ctx, size_t part, int thread)
{
    const linear_job *j = ctx;
    size_t c0, nc;
    tf_split_range(j->out, j->parts, TF_LINEAR_COLUMN_ALIGN, part, &c0, &nc);
    if (nc == 0)
        return;
    linear_block(j->y, j->x, j->ldx, j->w, j->b, j->n, j->out, j->in, c0, nc);
    if (j->activation != TF_LINEAR_NO_ACTIVATION)
        for (size_t r = 0; r < j->n; r++)
            tf_activation_apply(j->y + r * j->out + c0, nc, j->activation);
}

void tf_linear_split_strided(const tf_schedule *s, float *y, const float *x, size_t ldx,
                             const float *w, const float *b, size_t n, size_t out, size_t in,
                             int activation)
{
    if (n == 0)
        return;
    linear_job job = {y, x, w, b, ldx, n, out, in, tf_linear_parts(s->width, out), activation};
    tf_schedule_run(s, linear_task, &job, job.parts);
}

void tf_linear_split(const tf_schedule *s, float *y, const float *x, const float *w,
                     const float *b, size_t n, size_t out, size_t in, int activation)
{
    tf_linear_split_strided(s, y, x, in, w, b, n, out, in, activation);
}
