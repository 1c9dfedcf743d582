/* pipeline_sparse.c — SPLADE sparse vectors (tf_pipeline_embed_sparse): a
 * SparseEncoder folder (st_sparse.h) loaded as TF_PIPELINE_SPARSE, and the
 * call for it and for a bare *ForMaskedLM (TF_PIPELINE_FILL_MASK, the older
 * SPLADE folders).
 *
 * Letters: B inputs of a batch, T tokens of its longest, D d_model, E the
 * head's width (mlm_head.h), V the vocabulary, R rows of logits at a time
 * (TF_SPARSE_ROWS). The masked-LM
 * logits of one sequence are computed R rows at a time and pooled at once,
 * so a call holds [B, T, D] hidden states, [R, V] logits and [V] pooled
 * values: never [B, T, V]. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "checked.h"
#include "error.h"
#include "pipeline.h"
#include "st_sparse.h"

/* Rows of logits [R, V] computed at once: enough for sgemm to run at full
 * speed, few enough that a 250k vocabulary's block stays at 64 MB. */
#define TF_SPARSE_ROWS 64

/* What TF_PIPELINE_SPARSE holds besides the encoder, its tokenizers and the
 * masked-LM head (p->mlm). */
struct tf__pipeline_sparse {
    tf__st_sparse st;        /* the folder's modules */
    tf_tokenizer *query_tok; /* SparseStaticEmbedding's own tokenizer, or NULL */
};

struct tf_sparse_vectors {
    size_t n;         /* inputs */
    int32_t dim;      /* V */
    size_t *start;    /* [n + 1]: input i's values are [start[i], start[i + 1]) */
    int32_t *indices; /* [start[n]] ascending within each input */
    float *values;    /* [start[n]] */
    size_t cap;       /* room in indices and values */
};

/* ---- Loading ------------------------------------------------------------------------ */

void tf__pipeline_sparse_free(struct tf__pipeline_sparse *sp)
{
    if (!sp)
        return;
    tf__st_sparse_free(&sp->st);
    tf_tokenizer_destroy(sp->query_tok);
    tf__free(sp);
}

/* The SparseStaticEmbedding's tokenizer, from its folder; its vocabulary
 * must index the weight [V]. */
static tf_status load_query_tokenizer(struct tf__pipeline_sparse *sp, int32_t V)
{
    tf_status s = tf_tokenizer_load(sp->st.static_dir, NULL, &sp->query_tok);
    if (s == TF_OK && tf_tokenizer_vocab_size(sp->query_tok) > V)
        s = tf__fail(TF_ERR_SHAPE,
                     "%s: its tokenizer has %d tokens, but its weight has %d (the masked-LM "
                     "head's vocabulary, config.json vocab_size)",
                     sp->st.static_dir, (int)tf_tokenizer_vocab_size(sp->query_tok), (int)V);
    return s;
}

tf_status tf__pipeline_sparse_load(tf_pipeline *p, const char *dir, const char **tokenizer_dir)
{
    struct tf__pipeline_sparse *sp = tf__calloc(1, sizeof *sp);
    if (!sp)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a sparse pipeline");
    p->sparse = sp;
    p->kind = TF_PIPELINE_SPARSE;
    tf_status s = tf__st_sparse_read(&sp->st, dir);
    if (s == TF_OK && (s = tf_encoder_load(sp->st.mlm_dir, NULL, &p->enc)) == TF_OK)
        s = tf_encoder_get_config(p->enc, &p->cfg);
    if (s == TF_OK)
        s = tf__mlm_weights_read(sp->st.mlm_dir, p->enc, &p->mlm);
    if (s == TF_OK)
        s = tf__st_sparse_check(&sp->st, (int32_t)p->mlm.head.V);
    if (s == TF_OK && sp->st.query == TF_SPARSE_QUERY_STATIC)
        s = load_query_tokenizer(sp, (int32_t)p->mlm.head.V);
    if (s == TF_OK)
        s = tf__st_config_read(&p->st, dir, "dot"); /* SparseEncoder's similarity: dot */
    p->st.max_seq_length = sp->st.max_seq_length;
    p->st.do_lower_case = sp->st.do_lower_case;
    p->dim = (int32_t)p->mlm.head.V;
    *tokenizer_dir = sp->st.mlm_dir;
    return s;
}

/* ---- Results ------------------------------------------------------------------------ */

void tf_sparse_vectors_destroy(tf_sparse_vectors *v)
{
    if (!v)
        return;
    tf__free(v->start);
    tf__free(v->indices);
    tf__free(v->values);
    tf__free(v);
}

static tf_status results_alloc(size_t n, int32_t dim, tf_sparse_vectors **out)
{
    tf_sparse_vectors *v = tf__calloc(1, sizeof *v);
    if (v && (v->start = tf__calloc(n + 1, sizeof *v->start))) {
        v->n = n, v->dim = dim;
        *out = v;
        return TF_OK;
    }
    tf__free(v);
    return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the sparse vectors of %zu inputs", n);
}

/* Room for `more` values after the ones held. */
static tf_status results_reserve(tf_sparse_vectors *v, size_t held, size_t more)
{
    if (held + more <= v->cap)
        return TF_OK;
    size_t cap = v->cap ? v->cap : 1024;
    while (cap < held + more)
        cap *= 2;
    int32_t *indices = tf__realloc(v->indices, cap * sizeof *indices);
    if (indices)
        v->indices = indices;
    float *values = indices ? tf__realloc(v->values, cap * sizeof *values) : NULL;
    if (values)
        v->values = values;
    if (!indices || !values)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu sparse values", cap);
    v->cap = cap;
    return TF_OK;
}

/* One (index, value) for the top-k order. */
typedef struct entry {
    int32_t index;
    float value;
} entry;

/* Larger |value| first; equal ones by lower index. */
static int by_magnitude(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    const float fx = fabsf(x->value), fy = fabsf(y->value);
    if (fx != fy)
        return fx > fy ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int by_index(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* Input i's non-zero values of dense [V] appended to v: all of them, or the
 * k largest by magnitude (select_max_active_dims) when 1 <= k < their
 * count; scratch [V]. */
static tf_status results_append(tf_sparse_vectors *v, size_t i, const float *dense, int32_t k,
                                entry *scratch)
{
    size_t nnz = 0;
    for (int32_t j = 0; j < v->dim; j++)
        if (dense[j] != 0)
            scratch[nnz++] = (entry){j, dense[j]};
    if (k >= 1 && nnz > (size_t)k) {
        qsort(scratch, nnz, sizeof *scratch, by_magnitude);
        nnz = (size_t)k;
        qsort(scratch, nnz, sizeof *scratch, by_index);
    }
    const size_t at = v->start[i];
    tf_status s = results_reserve(v, at, nnz);
    if (s)
        return s;
    for (size_t j = 0; j < nnz; j++)
        v->indices[at + j] = scratch[j].index, v->values[at + j] = scratch[j].value;
    v->start[i + 1] = at + nnz;
    return TF_OK;
}

size_t tf_sparse_vectors_count(const tf_sparse_vectors *v)
{
    return v ? v->n : 0;
}

int32_t tf_sparse_vectors_dim(const tf_sparse_vectors *v)
{
    return v ? v->dim : 0;
}

int32_t tf_sparse_vectors_nnz(const tf_sparse_vectors *v, size_t i)
{
    return v && i < v->n ? (int32_t)(v->start[i + 1] - v->start[i]) : 0;
}

const int32_t *tf_sparse_vectors_indices(const tf_sparse_vectors *v, size_t i)
{
    return v && i < v->n ? v->indices + v->start[i] : NULL;
}

const float *tf_sparse_vectors_values(const tf_sparse_vectors *v, size_t i)
{
    return v && i < v->n ? v->values + v->start[i] : NULL;
}

/* ---- SPLADE: the masked-LM head, pooled --------------------------------------------- */

/* SpladePooling's activation of one value: log1p(relu(x)), and log1p once
 * more for "log1p_relu". */
static float splade_activate(float x, tf__splade_activation act)
{
    float y = log1pf(x > 0 ? x : 0);
    return act == TF_SPLADE_LOG1P_RELU ? log1pf(y) : y;
}

/* What one call's SPLADE pooling holds. */
typedef struct splade_scratch {
    float *transform; /* [R, E] the head's transform */
    float *logits;    /* [R, V] */
    float *pooled;    /* [V] */
    entry *entries;   /* [V] for the top-k order */
} splade_scratch;

static void scratch_free(splade_scratch *w)
{
    tf__free(w->transform);
    tf__free(w->logits);
    tf__free(w->pooled);
    tf__free(w->entries);
}

static tf_status scratch_alloc(splade_scratch *w, size_t E, size_t V)
{
    *w = (splade_scratch){0};
    size_t rows_v;
    if (tf__mul_size(V, TF_SPARSE_ROWS, &rows_v) && tf__mul_size(rows_v, sizeof(float), &rows_v) &&
        (w->transform = tf__malloc(TF_SPARSE_ROWS * E * sizeof *w->transform)) &&
        (w->logits = tf__malloc(rows_v)) && (w->pooled = tf__malloc(V * sizeof *w->pooled)) &&
        (w->entries = tf__malloc(V * sizeof *w->entries)))
        return TF_OK;
    scratch_free(w);
    return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the logits of %d rows of %zu tokens",
                    TF_SPARSE_ROWS, V);
}

/* w->pooled [V] = SpladePooling over the real tokens (mask [T]) of one
 * sequence's hidden states [T, D]: the logits of the rows from its first
 * real token to its last (no padding), R rows at a time, each block pooled
 * before the next. Max pooling keeps each column's largest logit and
 * activates it once (the activation rises with x, so this is the max of
 * the activated values); sum pooling activates every value. */
static void splade_sequence(const tf__mlm_head *head, const float *hidden, const int32_t *mask,
                            size_t T, tf__splade_strategy strategy, tf__splade_activation act,
                            splade_scratch *w)
{
    const size_t D = head->D, V = head->V; /* hidden [T, D] */
    const int max = strategy == TF_SPLADE_MAX;
    for (size_t j = 0; j < V; j++)
        w->pooled[j] = max ? -INFINITY : 0.0f;
    size_t begin = 0, end = T; /* the rows from the first real token to the last */
    while (begin < T && !mask[begin])
        begin++;
    while (end > begin && !mask[end - 1])
        end--;
    for (size_t t0 = begin; t0 < end; t0 += TF_SPARSE_ROWS) {
        const size_t rows = end - t0 < TF_SPARSE_ROWS ? end - t0 : TF_SPARSE_ROWS;
        tf__mlm_head_logits(head, hidden + t0 * D, rows, w->transform, w->logits);
        for (size_t t = 0; t < rows; t++) {
            if (!mask[t0 + t])
                continue;
            const float *row = w->logits + t * V; /* [V] */
            if (max) {
                for (size_t j = 0; j < V; j++)
                    w->pooled[j] = row[j] > w->pooled[j] ? row[j] : w->pooled[j];
            } else {
                for (size_t j = 0; j < V; j++)
                    w->pooled[j] += splade_activate(row[j], act);
            }
        }
    }
    for (size_t j = 0; max && j < V; j++)
        w->pooled[j] = splade_activate(w->pooled[j], act);
}

/* ---- The call ------------------------------------------------------------------------ */

/* The pooling a pipeline's documents (and queries without a Router) get:
 * the folder's SpladePooling, or the older folders' max of log1p(relu). */
static void pooling_of(const tf_pipeline *p, tf__splade_strategy *strategy,
                       tf__splade_activation *act)
{
    *strategy = p->sparse ? p->sparse->st.strategy : TF_SPLADE_MAX;
    *act = p->sparse ? p->sparse->st.activation : TF_SPLADE_RELU;
}

/* Texts [n] (the call's inputs first..first+n, prompted) through the
 * encoder and the head, each one's vector appended to v. */
static tf_status embed_mlm(const tf_pipeline *p, const tf_pipeline_args *a, char **texts,
                           size_t first, size_t n, splade_scratch *w, tf_sparse_vectors *v,
                           size_t *truncated)
{
    tf__splade_strategy strategy;
    tf__splade_activation act;
    pooling_of(p, &strategy, &act);
    tf__pipeline_batch b;
    tf_status s = tf__pipeline_batch_run(p, (const char *const *)texts, NULL, n, first,
                                         a->n_threads, &b);
    if (s)
        return s;
    const size_t T = (size_t)b.T, D = (size_t)p->cfg.d_model;
    const int32_t *mask = tf_encoding_attention_mask(b.enc); /* [B, T] */
    for (size_t r = 0; s == TF_OK && r < n; r++) {
        splade_sequence(&p->mlm.head, b.hidden + r * T * D, mask + r * T, T, strategy, act, w);
        s = results_append(v, first + r, w->pooled, a->max_active_dims, w->entries);
    }
    *truncated += b.truncated;
    tf__pipeline_batch_free(&b);
    return s;
}

/* SparseStaticEmbedding.forward on texts [n]: its weight at each token
 * tokenize() gives (add_special_tokens=False, truncation to the
 * tokenizer's model_max_length); the template's special tokens are the
 * ones with an empty byte range. A text cut counts in *truncated. */
static tf_status embed_static(const tf_pipeline *p, const tf_pipeline_args *a, char **texts,
                              size_t first, size_t n, splade_scratch *w, tf_sparse_vectors *v,
                              size_t *truncated)
{
    const struct tf__pipeline_sparse *sp = p->sparse;
    tf_encode_options eo;
    tf_encode_options_init(&eo);
    eo.truncation = TF_TRUNCATION_NONE;
    tf_encoding *e;
    tf_status s = tf_tokenizer_encode_batch_with(sp->query_tok, n, (const char *const *)texts, NULL,
                                                 NULL, NULL, &eo, &e);
    if (s)
        return s;
    const size_t T = (size_t)tf_encoding_seq_len(e);
    const int32_t limit = tf_tokenizer_model_max_length(sp->query_tok);             /* 0: none */
    const int32_t *ids = tf_encoding_ids(e), *mask = tf_encoding_attention_mask(e); /* [B, T] */
    const int64_t *offsets = tf_encoding_offsets(e);                                /* [B, T, 2] */
    for (size_t r = 0; s == TF_OK && r < n; r++) {
        memset(w->pooled, 0, (size_t)v->dim * sizeof *w->pooled);
        int32_t kept = 0;
        for (size_t t = 0; t < T; t++) {
            const size_t at = r * T + t;
            if (!mask[at] || offsets[2 * at + 1] == 0)
                continue;
            if (limit > 0 && kept == limit) { /* a token past the limit: the text is cut */
                ++*truncated;
                break;
            }
            w->pooled[ids[at]] = sp->st.static_weight[ids[at]];
            kept++;
        }
        s = results_append(v, first + r, w->pooled, a->max_active_dims, w->entries);
    }
    tf_encoding_destroy(e);
    return s;
}

/* The call's own arguments beyond tf__pipeline_read_args'. */
static tf_status check_sparse_args(const tf_pipeline *p, const tf_pipeline_args *a)
{
    if (p->kind != TF_PIPELINE_SPARSE && p->kind != TF_PIPELINE_FILL_MASK)
        return tf__pipeline_wrong_kind(p, "tf_pipeline_embed_sparse");
    if (a->pairs)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.pairs: tf_pipeline_embed_sparse takes texts alone, got pairs");
    if (a->is_query != 0 && a->is_query != 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.is_query: expected 0 (documents) or 1 (queries), got %d",
                        (int)a->is_query);
    if (a->max_active_dims < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.max_active_dims: expected 0 (every non-zero value) or >= 1, got %d",
                        (int)a->max_active_dims);
    if (a->is_query && p->sparse && p->sparse->st.query == TF_SPARSE_QUERY_NONE)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.is_query 1: the folder's Router (%s) has no \"query\" route",
                        p->sparse->st.router);
    if (a->normalize == 1 || a->dimensions != 0 || a->dimensions_layer_norm != 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.%s: sparse vectors are neither normalised nor cut "
                        "(max_active_dims keeps the largest values)",
                        a->normalize == 1 ? "normalize 1" : "dimensions");
    return TF_OK;
}

tf_status tf_pipeline_embed_sparse(const tf_pipeline *p, const tf_pipeline_args *args,
                                   tf_sparse_vectors **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf_pipeline_args a;
    tf_status s = tf__pipeline_read_args(&a, p, args, 0, 0);
    if (s == TF_OK)
        s = check_sparse_args(p, &a);
    const char *prompt = "";
    int32_t skip;
    if (s == TF_OK)
        s = tf__pipeline_resolve_prompt(p, a.prompt_name, &prompt, &skip);
    char **texts = NULL;
    if (s || (s = tf__pipeline_prefix_texts(prompt, a.texts, a.n, &texts)))
        return s;
    const int by_static = a.is_query && p->sparse && p->sparse->st.query == TF_SPARSE_QUERY_STATIC;
    splade_scratch w;
    tf_sparse_vectors *v = NULL;
    if ((s = scratch_alloc(&w, p->mlm.head.E, p->mlm.head.V)) == TF_OK &&
        (s = results_alloc(a.n, p->dim, &v)))
        scratch_free(&w);
    size_t truncated = 0;
    for (size_t i = 0; s == TF_OK && i < a.n; i += (size_t)a.batch_size) {
        const size_t n = a.n - i < (size_t)a.batch_size ? a.n - i : (size_t)a.batch_size;
        s = by_static ? embed_static(p, &a, texts + i, i, n, &w, v, &truncated)
                      : embed_mlm(p, &a, texts + i, i, n, &w, v, &truncated);
    }
    if (v)
        scratch_free(&w);
    tf__free(texts);
    if (s) {
        tf_sparse_vectors_destroy(v);
        return s;
    }
    if (a.truncated)
        *a.truncated = truncated;
    *out = v;
    return TF_OK;
}
