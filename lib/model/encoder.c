/* encoder.c — the handle's lifecycle and the forward pass:
 *   ids [B,T] -> embed -> x (N,D) -> layers -> (final norm) -> out [B,T,D]
 * computed on packed rows (real tokens only). */
#include "encoder.h"

#include <stdlib.h>
#include <string.h>

#include "abi.h"
#include "alloc.h"
#include "config.h"
#include "embedding.h"
#include "error.h"
#include "kernels.h"
#include "layer.h"
#include "cls_pooler.h"
#include "validate.h"

tf_status tf_encoder_new(const tf_config *cfg, tf_encoder **out)
{
    tf_encoder *enc = tf_calloc(1, sizeof *enc);
    if (!enc)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "encoder: cannot allocate the handle");
    enc->cfg = *cfg;
    tf_status s = tf_weights_layout(&enc->weights, &enc->cfg);
    if (s == TF_OK)
        s = tf_weights_allocate(&enc->weights);
    if (s) {
        tf_encoder_destroy(enc);
        return s;
    }
    *out = enc;
    return TF_OK;
}

tf_status tf_encoder_create(const tf_config *cfg, tf_encoder **out)
{
    if (!out)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf_config valid;
    tf_status s = tf_config_validate(cfg, &valid);
    if (s == TF_OK)
        s = tf_encoder_new(&valid, out);
    if (s == TF_OK)
        tf_weights_init_random(&(*out)->weights, valid.seed);
    return s;
}

void tf_encoder_destroy(tf_encoder *enc)
{
    if (!enc)
        return;
    tf_weights_destroy(&enc->weights);
    tf_free(enc);
}

tf_status tf_encoder_get_config(const tf_encoder *enc, tf_config *cfg)
{
    if (!enc || !cfg)
        return tf_fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", enc ? "config" : "encoder");
    return tf_abi_write(cfg, &enc->cfg, sizeof enc->cfg, TF_CONFIG_SIZE_0_1, "config");
}

/* The forward pass proper, once arguments and scratch are in place. */
static void run_forward(tf_run *run)
{
    const tf_config *cfg = run->cfg;
    const tf_forward_args *a = run->args;
    const tf_batch *batch = &run->batch;
    tf_scratch *s = &run->s;
    const size_t D = (size_t)cfg->d_model, H = (size_t)cfg->n_heads;
    const size_t BTD = (size_t)batch->B * (size_t)batch->T * D;
    const size_t BHTT = (size_t)batch->B * H * (size_t)batch->T * (size_t)batch->T;

    tf_embed(s->x, s->tmp, s->pos_row, cfg, run->w, a, batch, &run->tracer); /* (N, D) */
    if (a->hidden_states)
        tf_scatter_rows(a->hidden_states, s->x, batch, D);
    for (int32_t l = 0; l < cfg->n_layers; l++) {
        tf_layer_forward(run, l, a->attentions ? a->attentions + (size_t)l * BHTT : NULL);
        if (a->hidden_states)
            tf_scatter_rows(a->hidden_states + (size_t)(l + 1) * BTD, s->x, batch, D);
    }
    if (cfg->final_norm) {
        tf_layernorm_rows(s->x, s->x, run->w->final_norm_w, run->w->final_norm_b, batch->N, D,
                          cfg->layer_norm_eps);
        if (tf_tracing(&run->tracer))
            tf_trace_rows(&run->tracer, "final_norm", -1, s->x, D, "B,T,D");
    }
    tf_scatter_rows(a->output, s->x, batch, D); /* [B, T, D] */
    if (cfg->pooler && (a->pooled_output || tf_tracing(&run->tracer))) {
        float *pooled = a->pooled_output ? a->pooled_output : run->tracer.buf; /* [B, D] */
        tf_pooler(pooled, s->pool_in, s->pool_out, s->x, run->w, batch, D);
        if (tf_tracing(&run->tracer)) {
            const int64_t dims[2] = {batch->B, (int64_t)D};
            tf_trace_emit(&run->tracer, "pooler", -1, 2, dims, "B,D", pooled);
        }
    }
}

tf_status tf_encoder_forward(const tf_encoder *enc, const tf_forward_args *caller_args)
{
    tf_forward_args args;
    const tf_forward_args *a = &args;
    size_t n_tokens;
    int32_t max_len;
    tf_status s = tf_forward_validate(enc, caller_args, &args, &n_tokens, &max_len);
    if (s)
        return s;
    const size_t bytes = tf_scratch_bytes(&enc->cfg, a->batch, max_len, n_tokens);
    if (!bytes)
        return tf_fail(TF_ERR_OUT_OF_MEMORY, "workspace: scratch for %zu tokens overflows size_t",
                       n_tokens);
    tf_workspace own = {0};
    tf_workspace *ws = a->workspace ? a->workspace : &own;
    if ((s = tf_workspace_grow(ws, bytes)))
        return s;

    tf_run run = {.cfg = &enc->cfg, .w = &enc->weights, .args = a};
    tf_scratch_carve(&run.s, ws->mem, &enc->cfg, a->batch, max_len, n_tokens);
    tf_batch_fill(run.s.lengths, run.s.row_start, a);
    run.batch = (tf_batch){.B = a->batch, .T = a->seq_len, .max_len = max_len, .N = n_tokens,
                           .lengths = run.s.lengths, .row_start = run.s.row_start};
    run.mask = (tf_attn_mask){.causal = a->causal, .additive = a->additive_mask,
                              .additive_batched = a->additive_mask_batched};
    s = tf_tracer_init(&run.tracer, a, &enc->cfg, &run.batch);
    if (!s) {
        tf_schedule_begin(&run.sched, a->n_threads);
        run_forward(&run);
        tf_schedule_end(&run.sched);
    }
    tf_tracer_free(&run.tracer);
    tf_free(own.mem);
    return s;
}
