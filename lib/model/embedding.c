/* embedding.c — from ids (or vectors) to the first hidden state. */
#include "embedding.h"

#include <math.h>
#include <string.h>

#include "config.h"
#include "kernels.h"
#include "linear.h"

void tf__sinusoidal_row(float *row, int64_t t, size_t D)
{
    for (size_t i = 0; i < D; i += 2) {
        const double angle = (double)t / pow(10000.0, (double)i / (double)D);
        row[i] = (float)sin(angle);
        if (i + 1 < D)
            row[i + 1] = (float)cos(angle);
    }
}

/* x (N, D) = token vectors: looked up by id, or the caller's vectors. */
static void gather_tokens(float *x, const tf__weights *w, const tf_forward_args *a,
                          const tf__batch *batch, size_t D)
{
    for (int32_t b = 0; b < batch->B; b++) {
        const size_t in_row = (size_t)b * (size_t)batch->T; /* first [b, 0] */
        float *dst = x + batch->row_start[b] * D;           /* (len, D) */
        for (int32_t t = 0; t < batch->lengths[b]; t++) {
            const float *src = a->input_ids
                ? w->token + (size_t)a->input_ids[in_row + (size_t)t] * D
                : a->input_embeds + (in_row + (size_t)t) * D;
            memcpy(dst + (size_t)t * D, src, D * sizeof *dst);
        }
    }
}

/* x (N, D) += the learned row of each token's position, counted from
 * cfg->position_offset over the tokens that are not its padding id
 * (create_position_ids_from_input_ids in transformers' modeling_roberta.py);
 * vectors in: offset + t (its create_position_ids_from_inputs_embeds). */
static void add_offset_positions(float *x, const tf_config *cfg, const tf__weights *w,
                                 const tf_forward_args *a, const tf__batch *batch, size_t D)
{
    const int32_t offset = cfg->position_offset, padding_idx = offset - 1;
    for (int32_t b = 0; b < batch->B; b++) {
        const int32_t *ids = a->input_ids ? a->input_ids + (size_t)b * (size_t)batch->T : NULL;
        int32_t next = offset; /* the position of the next token that is not padding */
        for (int32_t t = 0; t < batch->lengths[b]; t++) {
            const int32_t position = ids && ids[t] == padding_idx ? padding_idx : next++;
            tf__add(x + (batch->row_start[b] + (size_t)t) * D, w->position + (size_t)position * D,
                    D);
        }
    }
}

/* x (N, D) += the encoding of each token's position. */
static void add_positions(float *x, float *pos_row, const tf_config *cfg, const tf__weights *w,
                          const tf_forward_args *a, const tf__batch *batch, size_t D)
{
    if (cfg->position_offset > 0) {
        add_offset_positions(x, cfg, w, a, batch, D);
        return;
    }
    for (int32_t t = 0; t < batch->max_len; t++) {
        const float *pe = pos_row; /* (D) */
        if (cfg->position == TF_POSITION_SINUSOIDAL)
            tf__sinusoidal_row(pos_row, t, D);
        else /* learned: the table exists (it is NULL for sinusoidal models) */
            pe = w->position + (size_t)t * D;
        for (int32_t b = 0; b < batch->B; b++)
            if (t < batch->lengths[b])
                tf__add(x + (batch->row_start[b] + (size_t)t) * D, pe, D);
    }
}

void tf__embed_positions(float *out, const tf_config *cfg, const tf__weights *w, size_t T)
{
    const size_t E = (size_t)tf__embed_width(cfg);
    if (cfg->position == TF_POSITION_LEARNED)
        memcpy(out, w->position + (size_t)cfg->position_offset * E, T * E * sizeof(float));
    else
        for (size_t t = 0; t < T; t++)
            tf__sinusoidal_row(out + t * E, (int64_t)t, E);
}

/* tmp (N, D) = the token-type vector of each token (type 0 without ids). */
static void gather_token_types(float *tmp, const tf__weights *w, const tf_forward_args *a,
                               const tf__batch *batch, size_t D)
{
    for (int32_t b = 0; b < batch->B; b++) {
        const size_t in_row = (size_t)b * (size_t)batch->T;
        float *dst = tmp + batch->row_start[b] * D; /* (len, D) */
        for (int32_t t = 0; t < batch->lengths[b]; t++) {
            const int32_t *types = a->token_type_ids;
            const size_t type = types ? (size_t)types[in_row + (size_t)t] : 0;
            memcpy(dst + (size_t)t * D, w->token_type + type * D, D * sizeof *dst);
        }
    }
}

tf__step tf__embed_last_step(const tf_config *cfg)
{
    return tf__embed_projects(cfg) ? TF_STEP_EMBED_PROJECT
        : cfg->embedding_norm      ? TF_STEP_EMBED_NORM
                                   : TF_STEP_EMBED_SUM;
}

/* x (N, E) = the embeddings of the batch's real tokens, E = tf__embed_width
 * wide: tokens + positions + token types, LayerNorm; tmp (N, E) scratch. */
static void embed_rows(tf__run *run, float *x, float *tmp)
{
    const tf_config *cfg = run->cfg;
    const tf__weights *w = run->w;
    const tf_forward_args *a = run->args;
    const tf__batch *batch = &run->batch;
    const size_t E = (size_t)tf__embed_width(cfg), N = batch->N;
    gather_tokens(x, w, a, batch, E);
    tf__observe(run, TF_STEP_EMBED_TOKEN, -1, x);
    /* rotary and ALiBi positions act inside attention (layer.c) */
    if (cfg->position == TF_POSITION_SINUSOIDAL || cfg->position == TF_POSITION_LEARNED) {
        add_positions(x, run->s.pos_row, cfg, w, a, batch, E);
        tf__observe(run, TF_STEP_EMBED_POSITION, -1, NULL);
    }
    if (cfg->n_token_types > 0) {
        gather_token_types(tmp, w, a, batch, E);
        tf__observe(run, TF_STEP_EMBED_TOKEN_TYPE, -1, tmp);
        tf__add(x, tmp, N * E);
    }
    tf__observe(run, TF_STEP_EMBED_SUM, -1, x);
    if (cfg->embedding_norm) {
        tf__layernorm_rows(x, x, w->embed_norm_w, w->embed_norm_b, N, E, cfg->layer_norm_eps);
        tf__observe(run, TF_STEP_EMBED_NORM, -1, x);
    }
}

void tf__embed(tf__run *run)
{
    const tf_config *cfg = run->cfg;
    tf__scratch *s = &run->s;
    if (!tf__embed_projects(cfg)) {
        embed_rows(run, s->x, s->tmp); /* (N, D) */
        return;
    }
    const size_t D = (size_t)cfg->d_model, E = (size_t)cfg->embedding_dim, N = run->batch.N;
    embed_rows(run, s->embed, s->tmp); /* (N, E) */
    /* x (N, D) = embed (N, E) . embed.project (D, E)^T + bias (D) */
    tf__linear(s->x, s->embed, run->w->embed_proj_w, run->w->embed_proj_b, N, D, E);
    tf__observe(run, TF_STEP_EMBED_PROJECT, -1, s->x);
}
