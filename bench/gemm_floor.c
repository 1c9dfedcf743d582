/* gemm_floor.c — a forward pass's matrix products alone (gemm_floor.h), as
 * the library's schedule issues them: each projection as the column blocks
 * of model/linear.c, attention as one task per (sequence, head, block of
 * query rows), each task on the pool's threads (runtime/schedule.h). The
 * block counts and sizes come from the library's headers, so the calls
 * are the library's, not a guess at them. */
#include "gemm_floor.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

#include "linear.h"
#include "schedule.h"
#include "timing.h"
#include "workspace.h"

/* All -0.0: the products' speed does not depend on the values, and zeros
 * never grow into denormals or infinities however often beta = 1 adds.
 * Written, not calloc'd: untouched calloc pages all map the one zero page,
 * in 4 KiB pages where the library's weights have huge ones, which made
 * the products alone slower than the whole layer at T = 16. */
typedef struct buffers {
    float *x;      /* (N, D) */
    float *qkv;    /* (N, 3D) */
    float *ctx;    /* (N, D) */
    float *scores; /* (width, tf__attention_block_floats(T)): one block per thread */
    float *hidden; /* (chunk, F) */
} buffers;

/* One layer's weights, each layer its own as in a model: one set for all
 * layers would stay in cache from layer to layer, which the model's do
 * not (6 layers of 384/1536 are 42 MB), and made the products alone up to
 * a third faster than the same calls in the forward pass at T = 16. */
typedef struct layer_weights {
    float *qkv;  /* (D, 3D): transposed, as the library stores it */
    float *o;    /* (D, D) */
    float *up;   /* (D, F) */
    float *down; /* (F, D) */
} layer_weights;

/* One forward pass's products: the buffers, the model's sizes, the threads. */
typedef struct floor_run {
    buffers g;
    layer_weights *w; /* [layers] */
    int B, T, D, H, F, layers;
    tf__schedule sched;
} floor_run;

/* y (n, out) += x (n, in) . wt, wt (in, out) a transposed weight, in
 * tf__linear_parts column blocks: tf__linear_split after it copied the bias
 * into y (beta = 1). */
typedef struct linear_call {
    float *y;
    const float *x, *w;
    size_t n, out, in, parts;
} linear_call;

static void linear_task(void *ctx, size_t part, int thread)
{
    const linear_call *c = ctx;
    size_t c0, nc;
    tf__split_range(c->out, c->parts, TF_LINEAR_COLUMN_ALIGN, part, &c0, &nc);
    if (nc)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->n, (int)nc, (int)c->in, 1.0f,
                    c->x, (int)c->in, c->w + c0, (int)c->out, 1.0f, c->y + c0, (int)c->out);
}

static void linear(const floor_run *r, float *y, const float *x, const float *w, int n, int out,
                   int in)
{
    linear_call c = {
        y, x, w, (size_t)n, (size_t)out, (size_t)in, tf__linear_parts(r->sched.width, (size_t)out)};
    tf__schedule_run(&r->sched, linear_task, &c, c.parts);
}

/* Task (b, h, k): scores (nq, T) = Q_blk K^T, then ctx_blk (nq, d_k) =
 * scores V, as attention.c does (beta = 0 both). */
static void attention_task(void *ctx, size_t t, int thread)
{
    const floor_run *r = ctx;
    const int T = r->T, D = r->D, dk = D / r->H, ld = 3 * D;
    const int block = (int)tf__attention_block_rows((size_t)T, (size_t)r->H);
    const int blocks = (T + block - 1) / block;
    const int q0 = (int)(t % (size_t)blocks) * block, h = (int)(t / (size_t)blocks % (size_t)r->H);
    const size_t row0 = t / (size_t)blocks / (size_t)r->H * (size_t)T;
    const int nq = T - q0 < block ? T - q0 : block;
    const float scale = 1.0f / sqrtf((float)dk);
    const float *qkv = r->g.qkv + row0 * ld; /* (T, 3D) this sequence */
    float *out = r->g.ctx + row0 * D;        /* (T, D) */
    float *s = r->g.scores + (size_t)thread * tf__attention_block_floats((size_t)T); /* (nq, T) */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nq, T, dk, scale,
                qkv + (size_t)q0 * ld + h * dk, ld, qkv + D + h * dk, ld, 0.0f, s, T);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nq, dk, T, 1.0f, s, T,
                qkv + 2 * D + h * dk, ld, 0.0f, out + (size_t)q0 * D + h * dk, D);
}

static int forward_gemms(void *ctx)
{
    floor_run *r = ctx;
    const buffers *g = &r->g;
    const int N = r->B * r->T, D = r->D, F = r->F;
    const size_t block = tf__attention_block_rows((size_t)r->T, (size_t)r->H);
    const size_t attention_tasks = (size_t)r->B * r->H * ((r->T + block - 1) / block);
    for (int l = 0; l < r->layers; l++) {
        const layer_weights *w = &r->w[l];
        linear(r, g->qkv, g->x, w->qkv, N, 3 * D, D);
        tf__schedule_run(&r->sched, attention_task, r, attention_tasks);
        linear(r, g->x, g->ctx, w->o, N, D, D);
        for (int r0 = 0; r0 < N; r0 += TF_FFN_CHUNK_ROWS) {
            const int rows = N - r0 < TF_FFN_CHUNK_ROWS ? N - r0 : TF_FFN_CHUNK_ROWS;
            linear(r, g->hidden, g->x + (size_t)r0 * D, w->up, rows, F, D);
            linear(r, g->ctx + (size_t)r0 * D, g->hidden, w->down, rows, D, F);
        }
    }
    return 0;
}

/* n floats of -0.0 (a value GCC cannot turn back into calloc), or NULL. */
static float *filled(size_t n)
{
    float *p = malloc(n * sizeof *p);
    for (size_t i = 0; p && i < n; i++)
        p[i] = -0.0f;
    return p;
}

/* Fills w[0 .. layers - 1]; 0, or -1 if out of memory (what was filled
 * is freed by free_weights either way). */
static int fill_weights(layer_weights *w, int layers, size_t D, size_t F)
{
    int ok = 1;
    for (int l = 0; l < layers; l++) {
        w[l] = (layer_weights){filled(3 * D * D), filled(D * D), filled(F * D), filled(D * F)};
        ok = ok && w[l].qkv && w[l].o && w[l].up && w[l].down;
    }
    return ok ? 0 : -1;
}

static void free_weights(layer_weights *w, int layers)
{
    for (int l = 0; w && l < layers; l++)
        free(w[l].qkv), free(w[l].o), free(w[l].up), free(w[l].down);
    free(w);
}

int gemm_floor_time(int B, int T, int D, int H, int F, int layers, int n_threads, double min_time,
                    double *median, double *best)
{
    const size_t N = (size_t)B * T, block_floats = tf__attention_block_floats((size_t)T);
    const size_t chunk = N < TF_FFN_CHUNK_ROWS ? N : TF_FFN_CHUNK_ROWS;
    const size_t width = (size_t)tf__pool_width();
    floor_run r = {
        .g = {filled(N * D), filled(N * 3 * D), filled(N * D), filled(width * block_floats),
              filled(chunk * F)},
        .w = calloc((size_t)layers, sizeof *r.w),
        .B = B,
        .T = T,
        .D = D,
        .H = H,
        .F = F,
        .layers = layers,
    };
    const buffers *g = &r.g;
    const int ok = g->x && g->qkv && g->ctx && g->scores && g->hidden && r.w &&
        fill_weights(r.w, layers, (size_t)D, (size_t)F) == 0;
    if (ok) {
        tf__schedule_begin(&r.sched, n_threads); /* the threads and BLAS setting of a call */
        forward_gemms(&r);                       /* warm-up */
        bench_time_runs(forward_gemms, &r, min_time, median, best);
        tf__schedule_end(&r.sched);
    }
    free(g->x), free(g->qkv), free(g->ctx), free(g->scores), free(g->hidden);
    free_weights(r.w, layers);
    return ok ? 0 : -1;
}
