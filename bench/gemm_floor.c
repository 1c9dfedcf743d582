/* gemm_floor.c — a forward pass's matrix products alone (gemm_floor.h).
 * The attention block size and the FFN chunk come from lib/workspace.h, so
 * the calls are the library's, not a guess at them. */
#include "gemm_floor.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

#include "timing.h"
#include "workspace.h"

/* All zeros: the products' speed does not depend on the values, and zeros
 * never grow into denormals or infinities however often beta = 1 adds. */
typedef struct buffers {
    float *x;      /* (N, D) */
    float *qkv;    /* (N, 3D) */
    float *ctx;    /* (N, D) */
    float *scores; /* (block, T) */
    float *hidden; /* (chunk, F) */
    float *w_qkv;  /* (3D, D) */
    float *w_o;    /* (D, D) */
    float *w_up;   /* (F, D) */
    float *w_down; /* (D, F) */
} buffers;

/* y (n, out) += x (n, in) . w^T, w (out, in): tf_linear after it copied the
 * bias into y (beta = 1). */
static void linear(float *y, const float *x, const float *w, int n, int out, int in)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, out, in, 1.0f, x, in, w, in, 1.0f, y,
                out);
}

/* Per head and block of query rows: scores (nq, T) = Q_blk K^T, then
 * ctx_blk (nq, d_k) = scores V, as attention.c does (beta = 0 both). */
static void attention(const buffers *g, int T, int D, int H, int row0)
{
    const int dk = D / H, ld = 3 * D, block = (int)tf_attention_block_rows((size_t)T);
    const float scale = 1.0f / sqrtf((float)dk);
    const float *qkv = g->qkv + (size_t)row0 * ld; /* (T, 3D) this sequence */
    float *ctx = g->ctx + (size_t)row0 * D;        /* (T, D) */
    for (int h = 0; h < H; h++)
        for (int q0 = 0; q0 < T; q0 += block) {
            const int nq = T - q0 < block ? T - q0 : block;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, nq, T, dk, scale,
                        qkv + (size_t)q0 * ld + h * dk, ld, qkv + D + h * dk, ld, 0.0f, g->scores,
                        T);
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, nq, dk, T, 1.0f, g->scores, T,
                        qkv + 2 * D + h * dk, ld, 0.0f, ctx + (size_t)q0 * D + h * dk, D);
        }
}

/* One forward pass's products: the buffers and the model's sizes. */
typedef struct floor_run {
    buffers g;
    int B, T, D, H, F, layers;
} floor_run;

static int forward_gemms(void *ctx)
{
    const floor_run *r = ctx;
    const buffers *g = &r->g;
    const int N = r->B * r->T, D = r->D, F = r->F;
    for (int l = 0; l < r->layers; l++) {
        linear(g->qkv, g->x, g->w_qkv, N, 3 * D, D);
        for (int b = 0; b < r->B; b++)
            attention(g, r->T, D, r->H, b * r->T);
        linear(g->x, g->ctx, g->w_o, N, D, D);
        for (int r0 = 0; r0 < N; r0 += TF_FFN_CHUNK_ROWS) {
            const int rows = N - r0 < TF_FFN_CHUNK_ROWS ? N - r0 : TF_FFN_CHUNK_ROWS;
            linear(g->hidden, g->x + (size_t)r0 * D, g->w_up, rows, F, D);
            linear(g->ctx + (size_t)r0 * D, g->hidden, g->w_down, rows, D, F);
        }
    }
    return 0;
}

int gemm_floor_time(int B, int T, int D, int H, int F, int layers, double min_time,
                    double *median, double *best)
{
    const size_t N = (size_t)B * T, block = tf_attention_block_rows((size_t)T);
    const size_t chunk = N < TF_FFN_CHUNK_ROWS ? N : TF_FFN_CHUNK_ROWS;
    floor_run r = {
        .g = {calloc(N * D, sizeof(float)), calloc(N * 3 * D, sizeof(float)),
              calloc(N * D, sizeof(float)), calloc(block * T, sizeof(float)),
              calloc(chunk * F, sizeof(float)), calloc((size_t)3 * D * D, sizeof(float)),
              calloc((size_t)D * D, sizeof(float)), calloc((size_t)F * D, sizeof(float)),
              calloc((size_t)D * F, sizeof(float))},
        .B = B, .T = T, .D = D, .H = H, .F = F, .layers = layers,
    };
    const buffers *g = &r.g;
    const int ok = g->x && g->qkv && g->ctx && g->scores && g->hidden && g->w_qkv && g->w_o &&
                   g->w_up && g->w_down;
    if (ok) {
        forward_gemms(&r); /* warm-up */
        bench_time_runs(forward_gemms, &r, min_time, median, best);
    }
    free(g->x), free(g->qkv), free(g->ctx), free(g->scores), free(g->hidden);
    free(g->w_qkv), free(g->w_o), free(g->w_up), free(g->w_down);
    return ok ? 0 : -1;
}
