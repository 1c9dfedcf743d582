/* layer.c — one encoder layer, post-norm or pre-norm:
 *   post-norm: x = LN1(x + MHA(x));   x = LN2(x + FFN(x))
 *   pre-norm:  x = x + MHA(LN1(x));   x = x + FFN(LN2(x))
 * with add_norm1b (post-norm), the layer's input x0 once more before the
 * feed-forward block: x = LN1b(x0 + LN1(x0 + MHA(x0))). */
#include "layer.h"

#include "alibi.h"
#include "config.h"
#include "ffn.h"
#include "kernels.h"
#include "linear.h"
#include "qk_norm.h"
#include "relative_bias.h"
#include "rotary.h"

void tf_layer_prepare(tf_run *run)
{
    const tf_config *cfg = run->cfg;
    tf_scratch *s = &run->s;
    const int32_t L = run->batch.max_len;
    if (cfg->position == TF_POSITION_ROTARY) {
        const size_t r = tf_rotary_dim(cfg);
        for (int local = 0; local < (cfg->attn_window ? 2 : 1); local++)
            tf_rotary_table(s->rotary + (size_t)local * (size_t)L * r, cfg,
                            tf_rotary_theta(cfg, local, L), L);
    }
    if (cfg->position == TF_POSITION_ALIBI) {
        tf_alibi_slopes(s->alibi, (size_t)cfg->n_heads);
        run->mask.alibi_slopes = s->alibi;
    }
    if (cfg->relative_buckets && L > 0) {
        tf_relative_bias_table(s->relative, run->w->relative_bias, cfg, (size_t)L);
        run->mask.relative_bias = s->relative;
        run->mask.relative_len = (size_t)L;
    }
}

/* The per-call descriptions of the position biases every layer adds:
 * ALiBi's slopes (H), the relative bias of each head per j - i. */
static void trace_position_biases(tf_run *run, int32_t l)
{
    tf_tracer *tr = &run->tracer;
    const tf_attn_mask *m = &run->mask;
    const int64_t H = run->cfg->n_heads;
    if (m->alibi_slopes) {
        const int64_t dims[1] = {H};
        tf_trace_emit(tr, "attn.alibi_slopes", l, 1, dims, "H", m->alibi_slopes);
    }
    if (m->relative_bias) {
        const int64_t dims[2] = {H, 2 * (int64_t)m->relative_len - 1};
        tf_trace_emit(tr, "attn.relative_bias", l, 2, dims, "H,j-i", m->relative_bias);
    }
}

/* Rotates Q and K in s.qkv (N, 3D) with the table of layer l's kind. */
static void rotate_qk(tf_run *run, int32_t l)
{
    const tf_config *cfg = run->cfg;
    const size_t table = (size_t)run->batch.max_len * tf_rotary_dim(cfg); /* floats */
    const float *angles = run->s.rotary + (tf_layer_is_local(cfg, l) ? table : 0);
    tf_rotary_apply(&run->sched, run->s.qkv, angles, &run->batch, cfg);
    if (tf_tracing(&run->tracer)) {
        tf_trace_heads(&run->tracer, "attn.q_rotated", l, run->s.qkv, 0);
        tf_trace_heads(&run->tracer, "attn.k_rotated", l, run->s.qkv, 1);
    }
}

/* s.tmp (N, D) = MHA(in), in (N, D). */
static void attention_block(tf_run *run, int32_t l, const float *in, float *attn_weights)
{
    const tf_config *cfg = run->cfg;
    const tf_layer_weights *lw = &run->w->layers[l];
    tf_scratch *s = &run->s;
    tf_tracer *tr = &run->tracer;
    const size_t N = run->batch.N, D = (size_t)cfg->d_model, H = (size_t)cfg->n_heads;

    tf_linear_split(&run->sched, s->qkv, in, lw->qkv_w, lw->qkv_b, N, 3 * D, D,
                    TF_LINEAR_NO_ACTIVATION); /* (N, 3D) = Q | K | V */
    float *scores = NULL;
    if (tf_tracing(tr)) {
        tf_trace_heads(tr, "attn.q", l, s->qkv, 0);
        tf_trace_heads(tr, "attn.k", l, s->qkv, 1);
        tf_trace_heads(tr, "attn.v", l, s->qkv, 2);
        scores = tr->scores;
        if (!attn_weights)
            attn_weights = tr->weights;
    }
    if (cfg->qk_norm) {
        tf_qk_norm_apply(&run->sched, s->qkv, lw, N, D, cfg->layer_norm_eps);
        if (tf_tracing(tr)) {
            tf_trace_heads(tr, "attn.q_norm", l, s->qkv, 0);
            tf_trace_heads(tr, "attn.k_norm", l, s->qkv, 1);
        }
    }
    if (cfg->position == TF_POSITION_ROTARY)
        rotate_qk(run, l);
    if (tf_tracing(tr))
        trace_position_biases(run, l);
    tf_attn_mask mask = run->mask;
    mask.half_window = tf_layer_is_local(cfg, l) ? (size_t)cfg->attn_window / 2 : 0;
    tf_attention_split(&run->sched, s->ctx, attn_weights, scores, s->scores, s->qkv, &run->batch,
                       &mask, D, H); /* (N, D) */
    if (tf_tracing(tr)) {
        const int64_t dims[4] = {run->batch.B, (int64_t)H, run->batch.T, run->batch.T};
        tf_trace_emit(tr, "attn.scores", l, 4, dims, "B,H,T,T", scores);
        tf_trace_emit(tr, "attn.weights", l, 4, dims, "B,H,T,T", attn_weights);
        tf_trace_rows(tr, "attn.context", l, s->ctx, D, "B,T,D");
    }
    tf_linear_split(&run->sched, s->tmp, s->ctx, lw->out_w, lw->out_b, N, D, D,
                    TF_LINEAR_NO_ACTIVATION); /* (N, D) */
    if (tf_tracing(tr))
        tf_trace_rows(tr, "attn.out", l, s->tmp, D, "B,T,D");
}

/* out (N, D) = FFN(in), in (N, D). */
static void ffn_block(tf_run *run, int32_t l, float *out, const float *in)
{
    const tf_config *cfg = run->cfg;
    const tf_layer_weights *lw = &run->w->layers[l];
    tf_tracer *tr = &run->tracer;
    const size_t N = run->batch.N, F = (size_t)cfg->d_ff;
    const tf_ffn_shape shape = {(size_t)cfg->d_model, F, cfg->activation, cfg->ffn_gated};
    if (!tf_tracing(tr)) {
        tf_ffn(&run->sched, out, run->s.ffn_hidden, TF_FFN_CHUNK_ROWS, in, lw, N, &shape);
        return;
    }
    /* the whole hidden layer at once, (N, F) or (N, 2F), to show it */
    float *hidden = tr->ffn_hidden;
    const size_t ld = tf_ffn_hidden_width(&shape);
    tf_ffn_in(&run->sched, hidden, in, lw, N, &shape);
    if (shape.gated) {
        tf_trace_columns(tr, "ffn.up", l, hidden, ld, F, "B,T,F");
        tf_trace_columns(tr, "ffn.gate", l, hidden + F, ld, F, "B,T,F");
    }
    tf_ffn_gate(&run->sched, hidden, N, &shape);
    tf_trace_columns(tr, "ffn.hidden", l, hidden, ld, F, "B,T,F");
    tf_ffn_out(&run->sched, out, hidden, lw, N, &shape);
    tf_trace_rows(tr, "ffn.out", l, out, shape.D, "B,T,D");
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
        tf_add_layernorm_rows(j->out + at, j->delta + at, j->norm_w, j->norm_b, count, j->D,
                              j->eps);
        break;
    case ADD: /* out += delta */
        tf_add(j->out + at, j->delta + at, count * j->D);
        break;
    case NORM: /* out = LN(x) */
        tf_layernorm_rows(j->out + at, j->x + at, j->norm_w, j->norm_b, count, j->D, j->eps);
        break;
    }
}

static void run_rows(tf_run *run, const rows_job *job)
{
    tf_schedule_rows(&run->sched, rows_task, (void *)job, run->batch.N, job->D);
}

/* out (N, D) = LN(out + delta) for post-norm, out + delta for pre-norm. */
static void residual_into(tf_run *run, int32_t l, float *out, const float *delta,
                          const float *norm_w, const float *norm_b, const char *trace_name)
{
    const tf_config *cfg = run->cfg;
    const size_t D = (size_t)cfg->d_model;
    const rows_job job = {.out = out, .delta = delta, .norm_w = norm_w, .norm_b = norm_b,
                          .D = D, .eps = cfg->layer_norm_eps,
                          .op = cfg->norm_placement == TF_NORM_POST ? ADD_NORM : ADD};
    run_rows(run, &job);
    if (tf_tracing(&run->tracer))
        tf_trace_rows(&run->tracer, trace_name, l, out, D, "B,T,D");
}

/* x (N, D) = LN(x + delta) for post-norm, x + delta for pre-norm. */
static void residual(tf_run *run, int32_t l, const float *delta, const float *norm_w,
                     const float *norm_b, const char *trace_name)
{
    residual_into(run, l, run->s.x, delta, norm_w, norm_b, trace_name);
}

/* out (N, D) = LN(x), the pre-norm input of a sub-layer. */
static const float *pre_norm(tf_run *run, int32_t l, float *out, const float *norm_w,
                             const float *norm_b, const char *trace_name)
{
    const size_t D = (size_t)run->cfg->d_model;
    const rows_job job = {.out = out, .x = run->s.x, .norm_w = norm_w, .norm_b = norm_b, .D = D,
                          .eps = run->cfg->layer_norm_eps, .op = NORM};
    run_rows(run, &job);
    if (tf_tracing(&run->tracer))
        tf_trace_rows(&run->tracer, trace_name, l, out, D, "B,T,D");
    return out;
}

void tf_layer_forward(tf_run *run, int32_t l, float *attn_weights)
{
    const tf_layer_weights *lw = &run->w->layers[l];
    tf_scratch *s = &run->s;
    const int pre = run->cfg->norm_placement == TF_NORM_PRE;

    const int norm1 = pre && lw->norm1_w; /* none in layer 0 with skip_first_norm1 */
    const float *attn_in = norm1 ? pre_norm(run, l, s->tmp, lw->norm1_w, lw->norm1_b, "norm1")
                                 : s->x;
    attention_block(run, l, attn_in, attn_weights); /* s->tmp = MHA(attn_in) */
    if (lw->norm1b_w) { /* add_norm1b: s->tmp = LN1(MHA(x) + x), then x = LN1b(x + s->tmp) */
        residual_into(run, l, s->tmp, s->x, lw->norm1_w, lw->norm1_b, "add_norm1");
        residual(run, l, s->tmp, lw->norm1b_w, lw->norm1b_b, "add_norm1b");
    } else {
        residual(run, l, s->tmp, lw->norm1_w, lw->norm1_b, "add_norm1");
    }

    const float *ffn_in = pre ? pre_norm(run, l, s->ctx, lw->norm2_w, lw->norm2_b, "norm2") : s->x;
    ffn_block(run, l, s->tmp, ffn_in); /* s->tmp = FFN(ffn_in) */
    residual(run, l, s->tmp, lw->norm2_w, lw->norm2_b, "add_norm2");
}
