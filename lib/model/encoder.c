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
#include "observe.h"
#include "validate.h"

tf_status tf__encoder_new(const tf_config *cfg, tf_encoder **out)
{
    tf_encoder *enc = tf__calloc(1, sizeof *enc);
    if (!enc)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "encoder: cannot allocate the handle");
    enc->cfg = *cfg;
    atomic_init(&enc->spare_busy, false);
    tf_status s = tf__weights_layout(&enc->weights, &enc->cfg);
    if (s == TF_OK)
        s = tf__weights_allocate(&enc->weights);
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
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf_config valid;
    tf_status s = tf__config_validate(cfg, &valid);
    if (s == TF_OK)
        s = tf__encoder_new(&valid, out);
    if (s == TF_OK)
        tf__weights_init_random(&(*out)->weights, valid.seed);
    return s;
}

void tf_encoder_destroy(tf_encoder *enc)
{
    if (!enc)
        return;
    tf__weights_destroy(&enc->weights);
    tf__free(enc->spare.mem);
    tf__free(enc);
}

tf_status tf_encoder_get_config(const tf_encoder *enc, tf_config *cfg)
{
    if (!enc || !cfg)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", enc ? "config" : "encoder");
    return tf__abi_write(cfg, &enc->cfg, sizeof enc->cfg, TF_CONFIG_SIZE_0_1, "config");
}

/* A forward pass checks its hidden state at these checkpoints for values
 * that its inputs do not explain: after the embeddings, after each layer,
 * after the output head (final norm, pooler). */
enum { TF_STAGE_EMBED = 0 }; /* then 1 + l after layer l, then n_layers + 1 */
#define TF_STAGE_HEAD(cfg) ((cfg)->n_layers + 1)

/* The final norm, and the pooler into s.pool_in when there is one and its
 * output is wanted (by the caller, or by the trace); returns 1 when either
 * holds an unexplained non-finite value (*nf says where). */
static int run_head(tf__run *run, tf__nonfinite *nf)
{
    const tf_config *cfg = run->cfg;
    const tf__batch *batch = &run->batch;
    tf__scratch *s = &run->s;
    const size_t D = (size_t)cfg->d_model;
    if (cfg->final_norm) {
        tf__layernorm_rows(s->x, s->x, run->w->final_norm_w, run->w->final_norm_b, batch->N, D,
                           cfg->layer_norm_eps);
        tf__observe(run, TF_STEP_FINAL_NORM, -1, s->x);
        if (tf__checkpoint_rows(run, nf, TF_STEP_FINAL_NORM, -1, s->x))
            return 1;
    }
    if (!cfg->pooler || !(run->args->pooled_output || tf__tracing(&run->tracer)))
        return 0;
    /* s->pool_in [B, D]; the [CLS] rows are gathered in s->tmp */
    tf__pooler(s->pool_in, s->tmp, s->pool_out, s->x, run->w, batch, D);
    tf__observe(run, TF_STEP_POOLER, -1, s->pool_in);
    return tf__checkpoint_pooled(run, nf, s->pool_in);
}

/* The pass from the embeddings through checkpoint `last` (TF_STAGE_HEAD:
 * all of it); hidden_states and attentions are written as the layers go.
 * Returns the checkpoint where x first held a non-finite value that the
 * inputs do not explain (*nf says where), or -1. */
static int32_t run_stages(tf__run *run, int32_t last, tf__nonfinite *nf)
{
    const tf_config *cfg = run->cfg;
    const tf_forward_args *a = run->args;
    const tf__batch *batch = &run->batch;
    tf__scratch *s = &run->s;
    const size_t D = (size_t)cfg->d_model, H = (size_t)cfg->n_heads;
    const size_t BTD = (size_t)batch->B * (size_t)batch->T * D;
    const size_t BHTT = (size_t)batch->B * H * (size_t)batch->T * (size_t)batch->T;

    tf__embed(run); /* s->x (N, D) */
    if (tf__checkpoint_rows(run, nf, tf__embed_last_step(cfg), -1, s->x))
        return TF_STAGE_EMBED;
    if (a->hidden_states)
        tf__scatter_rows(a->hidden_states, s->x, batch, D);
    for (int32_t l = 0; l < cfg->n_layers && l < last; l++) {
        tf__layer_forward(run, l, a->attentions ? a->attentions + (size_t)l * BHTT : NULL);
        if (tf__checkpoint_layer(run, nf, l))
            return l + 1;
        if (a->hidden_states)
            tf__scatter_rows(a->hidden_states + (size_t)(l + 1) * BTD, s->x, batch, D);
    }
    if (last < TF_STAGE_HEAD(cfg))
        return -1;
    return run_head(run, nf) ? TF_STAGE_HEAD(cfg) : -1;
}

/* The forward pass proper, once arguments and scratch are in place; output
 * and pooled_output are written only when it succeeds. */
static tf_status run_forward(tf__run *run)
{
    const tf_forward_args *a = run->args;
    const size_t D = (size_t)run->cfg->d_model;
    tf__nonfinite nf;
    const int32_t stage = run_stages(run, TF_STAGE_HEAD(run->cfg), &nf);
    if (stage >= 0) {
        tf__locate_nonfinite(run, run_stages, stage, &nf);
        return tf__nonfinite_fail(&nf);
    }
    tf__scatter_rows(a->output, run->s.x, &run->batch, D); /* [B, T, D] */
    if (a->pooled_output)
        memcpy(a->pooled_output, run->s.pool_in, (size_t)a->batch * D * sizeof(float));
    return TF_OK;
}

/* The scratch of a call: the caller's workspace, else the handle's spare
 * when no other call has it, else `own` (empty, to be freed by the call). */
static tf_workspace *claim_scratch(const tf_encoder *enc, const tf_forward_args *a,
                                   tf_workspace *own)
{
    if (a->workspace)
        return a->workspace;
    tf_encoder *mutable_enc = (tf_encoder *)enc; /* spare: guarded by spare_busy */
    if (!atomic_exchange(&mutable_enc->spare_busy, true))
        return &mutable_enc->spare;
    return own;
}

static void release_scratch(const tf_encoder *enc, tf_workspace *ws, tf_workspace *own)
{
    if (ws == &enc->spare)
        atomic_store(&((tf_encoder *)enc)->spare_busy, false);
    tf__free(own->mem);
}

tf_status tf_encoder_forward(const tf_encoder *enc, const tf_forward_args *caller_args)
{
    tf_forward_args args;
    const tf_forward_args *a = &args;
    size_t n_tokens;
    int32_t max_len;
    tf_status s = tf__forward_validate(enc, caller_args, &args, &n_tokens, &max_len);
    if (s)
        return s;
    const size_t bytes = tf__scratch_bytes(&enc->cfg, a->batch, max_len, n_tokens);
    if (!bytes)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "workspace: scratch for %zu tokens overflows size_t",
                        n_tokens);
    tf_workspace own = {0};
    tf_workspace *ws = claim_scratch(enc, a, &own);
    if ((s = tf__workspace_grow(ws, bytes))) {
        release_scratch(enc, ws, &own);
        return s;
    }

    tf__run run = {.cfg = &enc->cfg, .w = &enc->weights, .args = a};
    tf__scratch_carve(&run.s, ws->mem, &enc->cfg, a->batch, max_len, n_tokens);
    tf__batch_fill(run.s.lengths, run.s.row_start, a);
    run.batch = (tf__batch){.B = a->batch,
                            .T = a->seq_len,
                            .max_len = max_len,
                            .N = n_tokens,
                            .lengths = run.s.lengths,
                            .row_start = run.s.row_start};
    run.mask = (tf__attn_mask){.causal = a->causal,
                               .additive = a->additive_mask,
                               .additive_batched = a->additive_mask_batched};
    tf__layer_prepare(&run);
    s = tf__tracer_init(&run.tracer, a, &enc->cfg, &run.batch);
    if (!s) {
        tf__schedule_begin(&run.sched, a->n_threads);
        s = run_forward(&run);
        tf__schedule_end(&run.sched);
    }
    tf__tracer_free(&run.tracer);
    release_scratch(enc, ws, &own);
    return s;
}
