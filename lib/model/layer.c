/* layer.c — one encoder layer, post-norm or pre-norm:
 *   post-norm: x = LN1(x + MHA(x));   x = LN2(x + FFN(x))
 *   pre-norm:  x = x + MHA(LN1(x));   x = x + FFN(LN2(x))
 * with add_norm1b (post-norm), the layer's input x0 once more before the
 * feed-forward block: x = LN1b(x0 + LN1(x0 + MHA(x0))).
 * The steps compute; the blocks run them in order, with one observation
 * (observe.h) at each boundary. */
#include "layer.h"

#include "alibi.h"
#include "config.h"
#include "ffn.h"
#include "kernels.h"
#include "linear.h"
#include "observe.h"
#include "qk_norm.h"
#include "relative_bias.h"
#include "rotary.h"

void tf__layer_prepare(tf__run *run)
{
    const tf_config *cfg = run->cfg;
    tf__scratch *s = &run->s;
    const int32_t L = run->batch.max_len;
    if (cfg->position == TF_POSITION_ROTARY) {
        const size_t r = tf__rotary_dim(cfg);
        for (int local = 0; local < (cfg->attn_window ? 2 : 1); local++)
            tf__rotary_table(s->rotary + (size_t)local * (size_t)L * r, cfg,
                             tf__rotary_theta(cfg, local, L), L);
    }
    if (cfg->position == TF_POSITION_ALIBI) {
        tf__alibi_slopes(s->alibi, (size_t)cfg->n_heads);
        run->mask.alibi_slopes = s->alibi;
    }
    if (cfg->relative_buckets && L > 0) {
        tf__relative_bias_table(s->relative, run->w->relative_bias, cfg, (size_t)L);
        run->mask.relative_bias = s->relative;
        run->mask.relative_len = (size_t)L;
    }
}

/* ---- The steps ------------------------------------------------------------ */

/* s.qkv (N, 3D) = in (N, D) . [W_q | W_k | W_v]^T + b: Q | K | V. */
static void project_qkv(tf__run *run, int32_t l, const float *in)
{
    const tf__layer_weights *lw = &run->w->layers[l];
    const size_t N = run->batch.N, D = (size_t)run->cfg->d_model;
    tf__linear_split(&run->sched, run->s.qkv, in, lw->qkv_w, lw->qkv_b, N, 3 * D, D,
                     TF_LINEAR_NO_ACTIVATION);
}

/* Q and K in s.qkv (N, 3D) each LayerNorm'ed over its D features. */
static void normalize_qk(tf__run *run, int32_t l)
{
    tf__qk_norm_apply(&run->sched, run->s.qkv, &run->w->layers[l], run->batch.N,
                      (size_t)run->cfg->d_model, run->cfg->layer_norm_eps);
}

/* Rotates Q and K in s.qkv (N, 3D) with the table of layer l's kind. */
static void rotate_qk(tf__run *run, int32_t l)
{
    const tf_config *cfg = run->cfg;
    const size_t table = (size_t)run->batch.max_len * tf__rotary_dim(cfg); /* floats */
    const float *angles = run->s.rotary + (tf__layer_is_local(cfg, l) ? table : 0);
    tf__rotary_apply(&run->sched, run->s.qkv, angles, &run->batch, cfg);
}

/* s.ctx (N, D) = each head's softmax(Q K^T / sqrt(d_k) + masks) V from
 * s.qkv; weights and scores (B, H, T, T) receive the softmax weights and
 * the scores, or are NULL. */
static void attend(tf__run *run, int32_t l, float *weights, float *scores)
{
    const tf_config *cfg = run->cfg;
    tf__attn_mask mask = run->mask;
    mask.half_window = tf__layer_is_local(cfg, l) ? (size_t)cfg->attn_window / 2 : 0;
    tf__attention_split(&run->sched, run->s.ctx, weights, scores, run->s.scores, run->s.qkv,
                        &run->batch, &mask, (size_t)cfg->d_model, (size_t)cfg->n_heads);
}

/* s.tmp (N, D) = s.ctx (N, D) . W_out^T + b_out. */
static void project_out(tf__run *run, int32_t l)
{
    const tf__layer_weights *lw = &run->w->layers[l];
    const size_t N = run->batch.N, D = (size_t)run->cfg->d_model;
    tf__linear_split(&run->sched, run->s.tmp, run->s.ctx, lw->out_w, lw->out_b, N, D, D,
                     TF_LINEAR_NO_ACTIVATION);
}

/* A row-wise step: out (N, D) from x (N, D) and delta (N, D) (either may
 * be unused), rows split over the call's threads. */
typedef struct rows_job {
    float *out;
    const float *x, *delta, *norm_w, *norm_b;
    size_t D;
    float eps;
    enum { ADD_NORM, ADD, NORM } op;
} rows_job;

static void rows_task(void *ctx, size_t first, size_t count)
{
    const rows_job *j = ctx;
    const size_t at = first * j->D;
    switch (j->op) {
    case ADD_NORM: /* out = LN(out + delta) */
        tf__add_layernorm_rows(j->out + at, j->delta + at, j->norm_w, j->norm_b, count, j->D,
                               j->eps);
        break;
    case ADD: /* out += delta */
        tf__add(j->out + at, j->delta + at, count * j->D);
        break;
    case NORM: /* out = LN(x) */
        tf__layernorm_rows(j->out + at, j->x + at, j->norm_w, j->norm_b, count, j->D, j->eps);
        break;
    }
}

static void run_rows(tf__run *run, const rows_job *job)
{
    tf__schedule_rows(&run->sched, rows_task, (void *)job, run->batch.N, job->D);
}

/* out (N, D) = LN(out + delta) for post-norm, out + delta for pre-norm. */
static void residual(tf__run *run, float *out, const float *delta, const float *norm_w,
                     const float *norm_b)
{
    const tf_config *cfg = run->cfg;
    const rows_job job = {.out = out,
                          .delta = delta,
                          .norm_w = norm_w,
                          .norm_b = norm_b,
                          .D = (size_t)cfg->d_model,
                          .eps = cfg->layer_norm_eps,
                          .op = cfg->norm_placement == TF_NORM_POST ? ADD_NORM : ADD};
    run_rows(run, &job);
}

/* out (N, D) = LN(s.x), the pre-norm input of a sub-layer. */
static void pre_norm(tf__run *run, float *out, const float *norm_w, const float *norm_b)
{
    const rows_job job = {.out = out,
                          .x = run->s.x,
                          .norm_w = norm_w,
                          .norm_b = norm_b,
                          .D = (size_t)run->cfg->d_model,
                          .eps = run->cfg->layer_norm_eps,
                          .op = NORM};
    run_rows(run, &job);
}

/* ---- The blocks: the steps in order, observed ------------------------------- */

/* s.tmp (N, D) = MHA(in), in (N, D); attn_weights (B, H, T, T) receives the
 * softmax weights, or is NULL. */
static void attention_block(tf__run *run, int32_t l, const float *in, float *attn_weights)
{
    const tf_config *cfg = run->cfg;
    tf__scratch *s = &run->s;
    float *scores;
    tf__observed_attention(run, &scores, &attn_weights);
    project_qkv(run, l, in);
    tf__observe(run, TF_STEP_QKV, l, s->qkv);
    if (cfg->qk_norm) {
        normalize_qk(run, l);
        tf__observe(run, TF_STEP_QK_NORM, l, s->qkv);
    }
    if (cfg->position == TF_POSITION_ROTARY) {
        rotate_qk(run, l);
        tf__observe(run, TF_STEP_ROTARY, l, s->qkv);
    }
    tf__observe(run, TF_STEP_POSITION_BIASES, l, NULL);
    attend(run, l, attn_weights, scores);
    tf__observe(run, TF_STEP_ATTN_SCORES, l, scores);
    tf__observe(run, TF_STEP_ATTN_WEIGHTS, l, attn_weights);
    tf__observe(run, TF_STEP_ATTN_CONTEXT, l, s->ctx);
    project_out(run, l);
    tf__observe(run, TF_STEP_ATTN_OUT, l, s->tmp);
}

/* out (N, D) = FFN(in), in (N, D), through the hidden layer `chunk` rows at
 * a time (tf__observed_ffn_hidden: all N while tracing, so each observation
 * sees the whole layer; an empty batch passes once, with no rows). */
static void ffn_block(tf__run *run, int32_t l, float *out, const float *in)
{
    const tf_config *cfg = run->cfg;
    const tf__layer_weights *lw = &run->w->layers[l];
    const tf__ffn_shape shape = {(size_t)cfg->d_model, (size_t)cfg->d_ff, cfg->activation,
                                 cfg->ffn_gated};
    const size_t N = run->batch.N, D = shape.D;
    size_t chunk;
    float *hidden = tf__observed_ffn_hidden(run, &chunk); /* (chunk, tf__ffn_hidden_width) */
    size_t r0 = 0;
    do {
        const size_t rows = N - r0 < chunk ? N - r0 : chunk;
        tf__ffn_in(&run->sched, hidden, in + r0 * D, lw, rows, &shape);
        tf__observe(run, TF_STEP_FFN_IN, l, hidden);
        tf__ffn_gate(&run->sched, hidden, rows, &shape);
        tf__observe(run, TF_STEP_FFN_GATE, l, hidden);
        tf__ffn_out(&run->sched, out + r0 * D, hidden, lw, rows, &shape);
        r0 += rows;
    } while (r0 < N);
    tf__observe(run, TF_STEP_FFN_OUT, l, out);
}

void tf__layer_forward(tf__run *run, int32_t l, float *attn_weights)
{
    const tf__layer_weights *lw = &run->w->layers[l];
    tf__scratch *s = &run->s;
    const int pre = run->cfg->norm_placement == TF_NORM_PRE;

    const float *attn_in = s->x;
    if (pre && lw->norm1_w) { /* none in layer 0 with skip_first_norm1 */
        pre_norm(run, s->tmp, lw->norm1_w, lw->norm1_b);
        tf__observe(run, TF_STEP_NORM1, l, s->tmp);
        attn_in = s->tmp;
    }
    attention_block(run, l, attn_in, attn_weights); /* s->tmp = MHA(attn_in) */
    if (lw->norm1b_w) { /* add_norm1b: s->tmp = LN1(MHA(x) + x), then x = LN1b(x + s->tmp) */
        residual(run, s->tmp, s->x, lw->norm1_w, lw->norm1_b);
        tf__observe(run, TF_STEP_ADD_NORM1, l, s->tmp);
        residual(run, s->x, s->tmp, lw->norm1b_w, lw->norm1b_b);
        tf__observe(run, TF_STEP_ADD_NORM1B, l, s->x);
    } else {
        residual(run, s->x, s->tmp, lw->norm1_w, lw->norm1_b);
        tf__observe(run, TF_STEP_ADD_NORM1, l, s->x);
    }

    const float *ffn_in = s->x;
    if (pre) {
        pre_norm(run, s->ctx, lw->norm2_w, lw->norm2_b);
        tf__observe(run, TF_STEP_NORM2, l, s->ctx);
        ffn_in = s->ctx;
    }
    ffn_block(run, l, s->tmp, ffn_in); /* s->tmp = FFN(ffn_in) */
    residual(run, s->x, s->tmp, lw->norm2_w, lw->norm2_b);
    tf__observe(run, TF_STEP_ADD_NORM2, l, s->x);
}
