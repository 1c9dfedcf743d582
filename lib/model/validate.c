/* validate.c — forward-argument validation: sizes, pointers, padding, ids,
 * positions, masks. Nothing is computed until all of it passes. */
#include "validate.h"

#include <math.h>
#include <stdio.h>

#include "abi.h"
#include "batch.h"
#include "checked.h"
#include "encoder.h"
#include "error.h"

static const tf_forward_args defaults = {.struct_size = sizeof(tf_forward_args)};

void tf_forward_args_init_sized(tf_forward_args *args, size_t struct_size)
{
    tf__abi_init(args, struct_size, &defaults, sizeof defaults);
}

void(tf_forward_args_init)(tf_forward_args *args)
{
    tf_forward_args_init_sized(args, TF_FORWARD_ARGS_SIZE_0_1);
}

int32_t tf__longest_sequence(const tf_config *cfg)
{
    if (cfg->position == TF_POSITION_LEARNED ||
        (cfg->position == TF_POSITION_SINUSOIDAL && cfg->max_positions > 0))
        return cfg->max_positions - cfg->position_offset;
    return 0;
}

int32_t tf_config_max_sequence(const tf_config *cfg)
{
    return cfg ? tf__longest_sequence(cfg) : 0;
}

static tf_status check_sizes(const tf_config *cfg, const tf_forward_args *a)
{
    if (a->batch < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "batch: expected >= 1, got %d", (int)a->batch);
    if (a->seq_len < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "seq_len: expected >= 1, got %d", (int)a->seq_len);
    if (a->n_threads < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "n_threads: expected >= 0, got %d",
                        (int)a->n_threads);
    tf_status s = tf__check_token_count(a->batch, a->seq_len);
    if (s)
        return s;
    const size_t tokens = (size_t)a->batch * (size_t)a->seq_len;
    const int32_t longest = tf__longest_sequence(cfg);
    if (longest > 0 && a->seq_len > longest)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "sequence length %d exceeds max_positions %d%s",
                        (int)a->seq_len, (int)cfg->max_positions,
                        cfg->position_offset ? " less position_offset" : "");
    size_t n;
    if (a->attentions &&
        !(tf__mul_size((size_t)cfg->n_layers * (size_t)cfg->n_heads, tokens, &n) &&
          tf__mul_size(n, (size_t)a->seq_len, &n) && tf__mul_size(n, sizeof(float), &n)))
        return tf__fail(
            TF_ERR_INVALID_ARGUMENT, "attentions: [%d, %d, %d, %d, %d] floats overflow size_t",
            (int)cfg->n_layers, (int)a->batch, (int)cfg->n_heads, (int)a->seq_len, (int)a->seq_len);
    return TF_OK;
}

static tf_status check_inputs(const tf_config *cfg, const tf_forward_args *a)
{
    if (!a->input_ids == !a->input_embeds)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "input_ids and input_embeds are both %s; pass "
                        "exactly one",
                        a->input_ids ? "set" : "NULL");
    if (a->input_ids && cfg->vocab_size == 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "input_ids given but the model has no token "
                        "embedding (vocab_size 0); pass input_embeds [B, T, D]");
    if (a->token_type_ids && cfg->n_token_types == 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "token_type_ids given but the model has no "
                        "token-type embedding (n_token_types 0)");
    if (!a->output)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "output is NULL; it must hold [B, T, D] floats");
    if (a->pooled_output && !cfg->pooler)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "pooled_output given but the model has no "
                        "pooler (config.pooler 0)");
    if (a->causal != 0 && a->causal != 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "causal: expected 0 or 1, got %d", (int)a->causal);
    if (a->additive_mask_batched != 0 && a->additive_mask_batched != 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "additive_mask_batched: expected 0 or 1, got %d",
                        (int)a->additive_mask_batched);
    if (a->additive_mask_batched && !a->additive_mask)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "additive_mask_batched is 1 but additive_mask is NULL");
    return TF_OK;
}

/* lengths in 0..T, or attention_mask rows of the form 1...1 0...0. */
static tf_status check_padding(const tf_forward_args *a)
{
    if (a->lengths && a->attention_mask)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "lengths and attention_mask are both set; pass "
                        "at most one");
    for (int32_t b = 0; a->lengths && b < a->batch; b++)
        if (a->lengths[b] < 0 || a->lengths[b] > a->seq_len)
            return tf__fail(TF_ERR_INVALID_ARGUMENT, "lengths[%d] = %d is outside 0..seq_len %d",
                            (int)b, (int)a->lengths[b], (int)a->seq_len);
    for (int32_t b = 0; a->attention_mask && b < a->batch; b++) {
        const int32_t *row = a->attention_mask + (size_t)b * (size_t)a->seq_len; /* (T) */
        for (int32_t t = 0; t < a->seq_len; t++) {
            if (row[t] != 0 && row[t] != 1)
                return tf__fail(TF_ERR_INVALID_ARGUMENT,
                                "attention_mask[%d,%d] = %d: expected 0 or 1", (int)b, (int)t,
                                (int)row[t]);
            if (t > 0 && row[t] == 1 && row[t - 1] == 0)
                return tf__fail(TF_ERR_INVALID_ARGUMENT,
                                "attention_mask row %d is not right-padded: 0 at position %d, "
                                "then 1 at position %d",
                                (int)b, (int)t - 1, (int)t);
        }
    }
    return TF_OK;
}

/* Ids of real tokens in range (padded positions are ignored). */
static tf_status check_ids(const tf_config *cfg, const tf_forward_args *a)
{
    for (int32_t b = 0; b < a->batch; b++) {
        const int32_t len = tf__args_length(a, b);
        const size_t row = (size_t)b * (size_t)a->seq_len;
        for (int32_t t = 0; a->input_ids && t < len; t++) {
            const int32_t id = a->input_ids[row + (size_t)t];
            if (id < 0 || id >= cfg->vocab_size)
                return tf__fail(TF_ERR_INVALID_ARGUMENT,
                                "token id %d at [%d,%d] is outside the vocabulary (%d)", (int)id,
                                (int)b, (int)t, (int)cfg->vocab_size);
        }
        for (int32_t t = 0; a->token_type_ids && t < len; t++) {
            const int32_t tt = a->token_type_ids[row + (size_t)t];
            if (tt < 0 || tt >= cfg->n_token_types)
                return tf__fail(TF_ERR_INVALID_ARGUMENT,
                                "token type id %d at [%d,%d] is outside 0..%d", (int)tt, (int)b,
                                (int)t, (int)cfg->n_token_types - 1);
        }
    }
    return TF_OK;
}

/* Queries and keys of additive mask m that real tokens read: sequence m's,
 * or the longest sequence's when one mask serves the batch. */
static int32_t mask_extent(const tf_forward_args *a, int32_t m)
{
    if (a->additive_mask_batched)
        return tf__args_length(a, m);
    int32_t longest = 0;
    for (int32_t b = 0; b < a->batch; b++)
        longest = tf__args_length(a, b) > longest ? tf__args_length(a, b) : longest;
    return longest;
}

/* The additive mask's entries that are read: a finite value is added to the
 * score, -inf blocks the key; +inf and NaN mean nothing (one +inf makes its
 * query's row NaN) and are refused. */
static tf_status check_additive_mask(const tf_forward_args *a)
{
    const size_t T = (size_t)a->seq_len;
    const int32_t masks = !a->additive_mask ? 0 : a->additive_mask_batched ? a->batch : 1;
    for (int32_t m = 0; m < masks; m++) {
        const float *mask = a->additive_mask + (size_t)m * T * T; /* [T, T] */
        const size_t len = (size_t)mask_extent(a, m);
        for (size_t q = 0; q < len; q++)
            for (size_t k = 0; k < len; k++) {
                const float v = mask[q * T + k];
                if (!isnan(v) && v != INFINITY)
                    continue;
                char at[64];
                if (a->additive_mask_batched)
                    snprintf(at, sizeof at, "%d,%zu,%zu", (int)m, q, k);
                else
                    snprintf(at, sizeof at, "%zu,%zu", q, k);
                return tf__fail(TF_ERR_INVALID_ARGUMENT,
                                "additive_mask[%s] = %g: expected a "
                                "finite value, or -inf to block the key",
                                at, (double)v);
            }
    }
    return TF_OK;
}

tf_status tf__forward_validate(const tf_encoder *enc, const tf_forward_args *caller,
                               tf_forward_args *args, size_t *n_tokens, int32_t *max_len)
{
    if (!enc)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "encoder is NULL");
    if (!caller)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args is NULL");
    *args = defaults;
    tf_status s = tf__abi_read(args, sizeof *args, caller, TF_FORWARD_ARGS_SIZE_0_1, "args");
    if (s)
        return s;
    const tf_forward_args *a = args;
    if ((s = check_sizes(&enc->cfg, a)) || (s = check_inputs(&enc->cfg, a)) ||
        (s = check_padding(a)) || (s = check_ids(&enc->cfg, a)) || (s = check_additive_mask(a)))
        return s;
    size_t n = 0;
    int32_t longest = 0;
    for (int32_t b = 0; b < a->batch; b++) {
        const int32_t len = tf__args_length(a, b);
        n += (size_t)len;
        longest = len > longest ? len : longest;
    }
    *n_tokens = n;
    *max_len = longest;
    return TF_OK;
}
