/* pipeline_fill_mask.c — tf_pipeline_fill_mask as transformers'
 * FillMaskPipeline (pipelines/fill_mask.py): the masked-LM head's logits
 * at each mask token (mlm_head.h), their softmax over the vocabulary, the
 * top_k best first (probs.topk), each with its token decoded (token_str:
 * tokenizer.decode([p])) and the input decoded with it in the mask's place
 * (sequence: special tokens skipped when the text has one mask, kept with
 * several, as postprocess does).
 *
 * Dimensions: T tokens, M mask tokens, D = d_model, E = the decoder's
 * width, V = the vocabulary. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "fill_mask_rows.h"
#include "mlm_head.h"
#include "pipeline.h"

struct tf_fill_mask {
    size_t n_masks;    /* M */
    int32_t top_k;     /* K */
    int32_t *tokens;   /* [M, K] */
    float *scores;     /* [M, K] */
    char **token_strs; /* [M, K], owned */
    char **sequences;  /* [M, K], owned */
};

static tf_status check_call(const tf_pipeline *p, const char *text)
{
    if (!p || !text)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", p ? "text" : "pipeline");
    if (p->kind != TF_PIPELINE_FILL_MASK)
        return tf__pipeline_wrong_kind(p, "tf_pipeline_fill_mask");
    if (p->mask_id < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "the tokenizer has no mask_token (tokenizer_config.json), "
                        "so no text can hold one");
    return TF_OK;
}

/* The positions of the mask tokens among ids[0..T) into at[] (T of room),
 * their count in *M; an error for a text without one. */
static tf_status find_masks(const tf_pipeline *p, const int32_t *ids, size_t T, size_t *at,
                            size_t *M)
{
    *M = 0;
    for (size_t t = 0; t < T; t++)
        if (ids[t] == p->mask_id)
            at[(*M)++] = t;
    if (*M == 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "text: no mask_token (%s) found on the input",
                        tf_tokenizer_id_to_token(p->tok, p->mask_id));
    return TF_OK;
}

/* Whether v at index i ranks below w at index j: a smaller logit, or the
 * same one at a larger index (probs.topk puts the lower id first). */
static int ranks_below(float v, size_t i, float w, size_t j)
{
    return v < w || (v == w && i > j);
}

/* heap[0..n) a min-heap by rank over row's indices: sifts heap[at] down. */
static void sift_down(int32_t *heap, size_t n, size_t at, const float *row)
{
    for (;;) {
        size_t low = at;
        for (size_t c = 2 * at + 1; c <= 2 * at + 2 && c < n; c++)
            if (ranks_below(row[heap[c]], (size_t)heap[c], row[heap[low]], (size_t)heap[low]))
                low = c;
        if (low == at)
            return;
        const int32_t t = heap[at];
        heap[at] = heap[low], heap[low] = t;
        at = low;
    }
}

/* The K best of row (V) into tokens (K), best first: a min-heap of the K
 * best so far, then emptied worst first from the back. */
static void top_k_indices(const float *row, size_t V, int32_t K, int32_t *tokens)
{
    const size_t k = (size_t)K;
    for (size_t v = 0; v < k; v++)
        tokens[v] = (int32_t)v;
    for (size_t i = k / 2; i-- > 0;)
        sift_down(tokens, k, i, row);
    for (size_t v = k; v < V; v++)
        if (ranks_below(row[tokens[0]], (size_t)tokens[0], row[v], v)) {
            tokens[0] = (int32_t)v;
            sift_down(tokens, k, 0, row);
        }
    for (size_t n = k; n-- > 1;) { /* the worst to the end */
        const int32_t t = tokens[0];
        tokens[0] = tokens[n], tokens[n] = t;
        sift_down(tokens, n, 0, row);
    }
}

/* The K largest of softmax(row (V)) (computed in double) into tokens and
 * scores (K), best first, as probs.topk orders them. */
static void top_k_of_softmax(const float *row, size_t V, int32_t K, int32_t *tokens, float *scores)
{
    double max = row[0], sum = 0.0;
    for (size_t v = 1; v < V; v++)
        max = row[v] > max ? row[v] : max;
    for (size_t v = 0; v < V; v++)
        sum += exp((double)row[v] - max);
    top_k_indices(row, V, K, tokens);
    for (int32_t k = 0; k < K; k++)
        scores[k] = (float)(exp((double)row[tokens[k]] - max) / sum);
}

/* *out (tf__malloc'ed) = the text of ids[0..n) (tf_tokenizer_decode). */
static tf_status decode(const tf_tokenizer *tok, const int32_t *ids, size_t n, int32_t skip,
                        char **out)
{
    size_t len = 0;
    tf_status s = tf_tokenizer_decode(tok, ids, n, skip, NULL, 0, &len);
    if (s == TF_OK && !(*out = tf__malloc(len + 1)))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a decoded text of %zu bytes", len);
    if (s == TF_OK && (s = tf_tokenizer_decode(tok, ids, n, skip, *out, len + 1, &len))) {
        tf__free(*out);
        *out = NULL;
    }
    return s;
}

/* The ids of ids[0..n) that the tokenizer has a token for, into out (n of
 * room), with `token` in place of position at (n: none); their count. The
 * model's vocabulary may have rows past the tokenizer's (ModernBERT's
 * 50368 of 50280), which tokenizers' decode skips. */
static size_t with_tokens(const tf_tokenizer *tok, const int32_t *ids, size_t n, size_t at,
                          int32_t token, int32_t *out)
{
    size_t kept = 0;
    for (size_t t = 0; t < n; t++) {
        const int32_t id = t == at ? token : ids[t];
        if (tf_tokenizer_id_to_token(tok, id))
            out[kept++] = id;
    }
    return kept;
}

/* m's token_str and sequence of every prediction; ids (T) the input's,
 * at[M] its mask positions. */
static tf_status decode_all(const tf_pipeline *p, const int32_t *ids, size_t T, const size_t *at,
                            tf_fill_mask *m)
{
    int32_t *filled = tf__malloc(T * sizeof *filled); /* (T) the input, a prediction in */
    if (!filled)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu token ids", T);
    const int32_t skip_special = m->n_masks == 1;
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && i < m->n_masks * (size_t)m->top_k; i++) {
        int32_t token;
        const size_t one = with_tokens(p->tok, &m->tokens[i], 1, 1, 0, &token);
        s = decode(p->tok, &token, one, 0, &m->token_strs[i]);
        const size_t n = with_tokens(p->tok, ids, T, at[i / (size_t)m->top_k], m->tokens[i],
                                     filled);
        if (s == TF_OK)
            s = decode(p->tok, filled, n, skip_special, &m->sequences[i]);
    }
    tf__free(filled);
    return s;
}

static tf_status alloc_result(size_t M, int32_t K, tf_fill_mask **out)
{
    tf_fill_mask *m = tf__calloc(1, sizeof *m);
    const size_t n = M * (size_t)K;
    if (m) {
        m->n_masks = M, m->top_k = K;
        m->tokens = tf__malloc(n * sizeof *m->tokens);
        m->scores = tf__malloc(n * sizeof *m->scores);
        m->token_strs = tf__calloc(n, sizeof *m->token_strs);
        m->sequences = tf__calloc(n, sizeof *m->sequences);
    }
    if (!m || !m->tokens || !m->scores || !m->token_strs || !m->sequences) {
        tf_fill_mask_destroy(m);
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu predictions", n);
    }
    *out = m;
    return TF_OK;
}

/* Rows of logits a block: memory holds [BLOCK_ROWS, V], never [M, V]. */
#define BLOCK_ROWS 16

/* The head's logits at rows at[0..M) of hidden (T, D), their top_k, BLOCK_ROWS
 * rows at a time. */
static tf_status predict(const tf_pipeline *p, const float *hidden, const size_t *at, size_t M,
                         tf_fill_mask *m)
{
    const tf__mlm_head *h = &p->mlm.head;
    const size_t B = M < BLOCK_ROWS ? M : BLOCK_ROWS;
    float *rows = tf__malloc(B * h->D * sizeof *rows);       /* (B, D) the block's hidden states */
    float *scratch = tf__malloc(B * h->E * sizeof *scratch); /* (B, E) */
    float *logits = tf__malloc(B * h->V * sizeof *logits);   /* (B, V) */
    tf_status s = TF_OK;
    if (!rows || !scratch || !logits)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the logits of %zu rows over %zu tokens",
                     B, h->V);
    for (size_t first = 0; s == TF_OK && first < M; first += B) {
        const size_t n = M - first < B ? M - first : B;
        for (size_t i = 0; i < n; i++)
            memcpy(rows + i * h->D, hidden + at[first + i] * h->D, h->D * sizeof *rows);
        tf__mlm_head_logits(h, rows, n, scratch, logits);
        size_t bad = 0; /* the first logit that is not finite, or n * V */
        while (bad < n * h->V && isfinite(logits[bad]))
            bad++;
        if (bad < n * h->V)
            s = tf__fail(TF_ERR_UNSUPPORTED,
                         "the masked-LM head's logit of token %zu at mask %zu is %g: it "
                         "overflows float32 for this text",
                         bad % h->V, first + bad / h->V, (double)logits[bad]);
        const size_t K = (size_t)m->top_k;
        for (size_t i = 0; s == TF_OK && i < n; i++)
            top_k_of_softmax(logits + i * h->V, h->V, m->top_k, m->tokens + (first + i) * K,
                             m->scores + (first + i) * K);
    }
    tf__free(rows);
    tf__free(scratch);
    tf__free(logits);
    return s;
}

/* *out = the predictions at rows at[0..M) of b's one text (b->hidden
 * [T, D]; each at[i] < T), top_k each, token_str and sequence decoded;
 * *out NULL on failure. */
static tf_status fill_mask_at(const tf_pipeline *p, const tf__pipeline_batch *b, const size_t *at,
                              size_t M, int32_t top_k, tf_fill_mask **out)
{
    const size_t T = (size_t)tf_encoding_lengths(b->enc)[0];
    const int32_t *ids = tf_encoding_ids(b->enc); /* (T) real tokens: one text, no padding */
    tf_status s = alloc_result(M, top_k, out);
    if (s == TF_OK && (s = predict(p, b->hidden, at, M, *out)) == TF_OK)
        s = decode_all(p, ids, T, at, *out);
    if (s && *out) {
        tf_fill_mask_destroy(*out);
        *out = NULL;
    }
    return s;
}

/* The predictions at the rows pick chooses of b's one text. */
static tf_status predict_rows(const tf_pipeline *p, const tf__pipeline_batch *b, int32_t top_k,
                              tf__pick_rows pick, tf_fill_mask **out)
{
    const size_t T = (size_t)tf_encoding_lengths(b->enc)[0];
    const int32_t *ids = tf_encoding_ids(b->enc);      /* (T) real tokens: one text, no padding */
    size_t *at = tf__malloc((T ? T : 1) * sizeof *at); /* (T) room for every row */
    if (!at)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu positions", T);
    size_t M = 0;
    tf_status s = pick(p, ids, T, at, &M);
    if (s == TF_OK)
        s = fill_mask_at(p, b, at, M, top_k, out);
    tf__free(at);
    return s;
}

tf_status tf__fill_mask_text(const tf_pipeline *p, const char *text, int32_t top_k,
                             tf__pick_rows pick, const char *call, tf_fill_mask **out)
{
    if (top_k < 1 || top_k > p->cfg.vocab_size)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "top_k: expected 1..%d (the vocabulary's size), got %d",
                        (int)p->cfg.vocab_size, (int)top_k);
    tf__pipeline_batch b;
    tf_status s = tf__pipeline_batch_run(p, &text, NULL, 1, 0, 0, &b);
    if (s)
        return s;
    if (b.truncated)
        s = tf__fail(TF_ERR_INVALID_ARGUMENT,
                     "text: more than %d tokens (the pipeline's max_seq_length); "
                     "%s takes the whole text",
                     (int)p->max_len, call);
    if (s == TF_OK)
        s = predict_rows(p, &b, top_k, pick, out);
    tf__pipeline_batch_free(&b);
    return s;
}

tf_status tf_pipeline_fill_mask(const tf_pipeline *p, const char *text, int32_t top_k,
                                tf_fill_mask **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    const tf_status s = check_call(p, text);
    return s ? s : tf__fill_mask_text(p, text, top_k, find_masks, "fill-mask", out);
}

void tf_fill_mask_destroy(tf_fill_mask *m)
{
    if (!m)
        return;
    const size_t n = m->n_masks * (size_t)m->top_k;
    for (size_t i = 0; i < n && m->token_strs; i++)
        tf__free(m->token_strs[i]);
    for (size_t i = 0; i < n && m->sequences; i++)
        tf__free(m->sequences[i]);
    tf__free(m->token_strs);
    tf__free(m->sequences);
    tf__free(m->tokens);
    tf__free(m->scores);
    tf__free(m);
}

size_t tf_fill_mask_count(const tf_fill_mask *m)
{
    return m ? m->n_masks : 0;
}

int32_t tf_fill_mask_top_k(const tf_fill_mask *m)
{
    return m ? m->top_k : 0;
}

/* The index of prediction k of mask `mask`, or -1 out of range. */
static ptrdiff_t at_of(const tf_fill_mask *m, size_t mask, int32_t k)
{
    return m && mask < m->n_masks && k >= 0 && k < m->top_k
        ? (ptrdiff_t)(mask * (size_t)m->top_k + (size_t)k)
        : -1;
}

int32_t tf_fill_mask_token(const tf_fill_mask *m, size_t mask, int32_t k)
{
    const ptrdiff_t i = at_of(m, mask, k);
    return i < 0 ? -1 : m->tokens[i];
}

float tf_fill_mask_score(const tf_fill_mask *m, size_t mask, int32_t k)
{
    const ptrdiff_t i = at_of(m, mask, k);
    return i < 0 ? 0.0f : m->scores[i];
}

const char *tf_fill_mask_token_str(const tf_fill_mask *m, size_t mask, int32_t k)
{
    const ptrdiff_t i = at_of(m, mask, k);
    return i < 0 ? NULL : m->token_strs[i];
}

const char *tf_fill_mask_sequence(const tf_fill_mask *m, size_t mask, int32_t k)
{
    const ptrdiff_t i = at_of(m, mask, k);
    return i < 0 ? NULL : m->sequences[i];
}
