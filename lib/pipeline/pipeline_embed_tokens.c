/* pipeline_embed_tokens.c — every token's vector: an embedding pipeline's
 * last hidden state (sentence-transformers' output_value=
 * "token_embeddings", TEI's /embed_all), and a PyLate folder's multi-vector
 * encode (pylate/models/colbert.py: ColBERT.preprocess, then encode's
 * masks, Dense and normalisation), its MaxSim scores (tf_pipeline_score)
 * and tf_maxsim. One batch of hidden states at a time. */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "checked.h"
#include "dense.h"
#include "error.h"
#include "linear.h"
#include "maxsim.h"
#include "multi_vector.h"
#include "pipeline.h"
#include "sentence_pool.h"
#include "tokenizer/tokenizer_load.h"
#include "validate.h"

struct tf_token_vectors {
    size_t n;        /* inputs */
    int32_t dim;     /* values a row */
    size_t *start;   /* [n + 1] each input's first row; start[n]: the rows in all */
    float *data;     /* [rows, dim] */
    int32_t *ids;    /* [rows] the token of each row */
    size_t capacity; /* rows data and ids hold */
};

/* ---- The result ------------------------------------------------------------------------- */

static tf_status vectors_alloc(size_t n, int32_t dim, tf_token_vectors **out)
{
    tf_token_vectors *v = tf__calloc(1, sizeof *v);
    if (v && !(v->start = tf__calloc(n + 1, sizeof *v->start))) {
        tf__free(v);
        v = NULL;
    }
    if (!v)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the token vectors of %zu inputs", n);
    v->n = n, v->dim = dim;
    *out = v;
    return TF_OK;
}

/* Room for `more` rows after v's start[at]. */
static tf_status vectors_reserve(tf_token_vectors *v, size_t at, size_t more)
{
    size_t need, bytes;
    if (!tf__add_size(v->start[at], more, &need))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "token vectors: too many rows");
    if (need <= v->capacity)
        return TF_OK;
    size_t cap = v->capacity ? v->capacity : 256;
    while (cap < need)
        cap *= 2;
    if (!tf__mul_size(cap, (size_t)v->dim * sizeof(float), &bytes))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "token vectors: %zu rows overflow", cap);
    float *data = tf__realloc(v->data, bytes);
    if (data)
        v->data = data;
    int32_t *ids = data ? tf__realloc(v->ids, cap * sizeof *ids) : NULL;
    if (ids)
        v->ids = ids;
    if (!data || !ids)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu token vectors of %d values", cap,
                        (int)v->dim);
    v->capacity = cap;
    return TF_OK;
}

void tf_token_vectors_destroy(tf_token_vectors *v)
{
    if (!v)
        return;
    tf__free(v->start);
    tf__free(v->data);
    tf__free(v->ids);
    tf__free(v);
}

size_t tf_token_vectors_count(const tf_token_vectors *v)
{
    return v ? v->n : 0;
}

int32_t tf_token_vectors_dim(const tf_token_vectors *v)
{
    return v ? v->dim : 0;
}

int32_t tf_token_vectors_rows(const tf_token_vectors *v, size_t i)
{
    return v && i < v->n ? (int32_t)(v->start[i + 1] - v->start[i]) : 0;
}

const float *tf_token_vectors_data(const tf_token_vectors *v, size_t i)
{
    return v && i < v->n ? v->data + v->start[i] * (size_t)v->dim : NULL;
}

const int32_t *tf_token_vectors_ids(const tf_token_vectors *v, size_t i)
{
    return v && i < v->n ? v->ids + v->start[i] : NULL;
}

/* ---- Loading a PyLate folder ------------------------------------------------------------ */

tf_status tf__multi_vector_load(tf_pipeline *p, const char *dir)
{
    tf__multi_vector *m = tf__calloc(1, sizeof *m);
    if (!m)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the multi-vector settings");
    p->multi_vector = m;
    tf_status s = tf__pylate_folder_read(&m->folder, dir, p->cfg.d_model,
                                         tf__longest_sequence(&p->cfg));
    if (s)
        return s;
    p->kind = TF_PIPELINE_MULTI_VECTOR;
    p->dim = m->folder.dense[m->folder.n_dense - 1].out;
    p->st.max_seq_length = m->folder.document_length; /* tf_pipeline_options' may replace it */
    p->st.do_lower_case = m->folder.do_lower_case;
    p->st.similarity = "MaxSim";
    return TF_OK;
}

void tf__multi_vector_free(tf__multi_vector *m)
{
    if (!m)
        return;
    tf__pylate_folder_free(&m->folder);
    tf__free(m->skiplist_ids);
    tf__free(m);
}

/* A prefix's token (convert_tokens_to_ids), -1 for "". */
static tf_status prefix_id(const tf_pipeline *p, const char *key, const char *prefix, int32_t *id)
{
    *id = prefix[0] ? tf_tokenizer_token_to_id(p->tok, prefix) : -1;
    if (prefix[0] && *id < 0)
        return tf__fail(TF_ERR_FORMAT,
                        "config_sentence_transformers.json: %s \"%s\" is not a token "
                        "of the folder's tokenizer (PyLate saves it as an added token)",
                        key, prefix);
    return TF_OK;
}

/* The id of the folder's special token of `role` (tokenizer_config.json,
 * special_tokens_map.json), else of BertTokenizer's default for a vocab.txt
 * (bert_default, or NULL), else -1. */
static int32_t role_id(const tf_pipeline *p, const tf__folder_config *tc, tf__special_role role,
                       int vocab_txt, const char *bert_default)
{
    const char *token = tc->role[role].content;
    if (!token && vocab_txt)
        token = bert_default;
    return token ? tf_tokenizer_token_to_id(p->tok, token) : -1;
}

/* The skiplist words' ids: convert_tokens_to_ids gives a word the
 * vocabulary lacks the unknown token's id. */
static tf_status skiplist_ids(const tf_pipeline *p, tf__multi_vector *m, int32_t unk)
{
    const size_t n = m->folder.n_skiplist;
    if (n && !(m->skiplist_ids = tf__malloc(n * sizeof *m->skiplist_ids)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu skiplist ids", n);
    for (size_t i = 0; i < n; i++) {
        const char *word = m->folder.skiplist_words[i];
        const int32_t id = tf_tokenizer_token_to_id(p->tok, word);
        if (id < 0 && unk < 0)
            return tf__fail(TF_ERR_FORMAT,
                            "config_sentence_transformers.json: skiplist_words[%zu] "
                            "\"%s\" is not a token, and the tokenizer has no unk_token",
                            i, word);
        m->skiplist_ids[i] = id >= 0 ? id : unk;
        m->n_skiplist++;
    }
    return TF_OK;
}

/* The expansion token: ColBERT.__init__ pads queries with the mask token,
 * else the eos token, else the pad token. */
static tf_status expansion_id(const tf_pipeline *p, const tf__folder_config *tc, int vocab_txt,
                              int32_t *id)
{
    *id = role_id(p, tc, TF_ROLE_MASK, vocab_txt, "[MASK]");
    if (*id < 0)
        *id = role_id(p, tc, TF_ROLE_EOS, vocab_txt, NULL);
    if (*id < 0)
        *id = role_id(p, tc, TF_ROLE_PAD, vocab_txt, "[PAD]");
    if (*id < 0)
        return tf__fail(TF_ERR_FORMAT,
                        "tokenizer_config.json: no mask_token, eos_token or pad_token "
                        "that is a token of the tokenizer, for PyLate's query expansion");
    return TF_OK;
}

tf_status tf__multi_vector_resolve(tf_pipeline *p, const char *dir)
{
    tf__multi_vector *m = p->multi_vector;
    tf__pylate_folder *f = &m->folder;
    f->document_length = p->max_len; /* the folder's, or tf_pipeline_options' */
    if (f->document_prefix[0] && p->max_len < 4)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "options.max_seq_length %d leaves no room for the document "
                        "prefix beside [CLS], [SEP] and a token (4 or more)",
                        (int)p->max_len);
    /* tf_pipeline_max_seq_length: a document's text tokens as tf_pipeline_count_tokens
       counts them, the prefix left out */
    p->max_len -= f->document_prefix[0] != 0;
    tf_status s = prefix_id(p, "query_prefix", f->query_prefix, &m->query_prefix_id);
    if (s == TF_OK)
        s = prefix_id(p, "document_prefix", f->document_prefix, &m->document_prefix_id);
    char *path = NULL;
    int json = 0;
    if (s == TF_OK)
        s = tf__tokenizer_folder_file(dir, &path, &json);
    tf__free(path);
    tf__folder_config tc;
    if (s || (s = tf__folder_config_read(dir, &tc)))
        return s;
    s = expansion_id(p, &tc, !json, &m->expansion_id);
    if (s == TF_OK)
        s = skiplist_ids(p, m, role_id(p, &tc, TF_ROLE_UNK, !json, "[UNK]"));
    tf__folder_config_clear(&tc);
    return s;
}

/* ---- One batch of a multi-vector call -------------------------------------------------- */

/* ColBERT.preprocess's tensors of a batch, and the encoder's output on them. */
typedef struct mv_batch {
    int32_t B, T;     /* T: the prefix token included */
    int32_t *ids;     /* [B, T] */
    int32_t *lengths; /* [B] the tokens attended (the prefix included) */
    float *mask;      /* [B, T, T] additive: -inf on unattended expansion keys, or NULL */
    float *hidden;    /* [B, T, D] */
    size_t truncated; /* inputs cut */
} mv_batch;

static void mv_batch_free(mv_batch *b)
{
    tf__free(b->ids);
    tf__free(b->lengths);
    tf__free(b->mask);
    tf__free(b->hidden);
    *b = (mv_batch){0};
}

/* Counts the inputs of enc (cut to max_length) that were longer; refuses
 * them when the pipeline says truncation_error. */
static tf_status count_cut(const tf_pipeline *p, const char *const *texts, size_t first,
                           const tf_encoding *enc, int32_t max_length, const char *limit,
                           size_t *truncated)
{
    for (int32_t r = 0; r < tf_encoding_batch(enc); r++) {
        if (tf_encoding_lengths(enc)[r] < max_length)
            continue;
        tf_encoding *whole;
        tf_status s = tf_tokenizer_encode(p->probe, texts[r], strlen(texts[r]), NULL, 0, &whole);
        if (s)
            return s;
        const int cut = tf_encoding_lengths(whole)[0] > max_length;
        tf_encoding_destroy(whole);
        if (cut && p->truncation_error)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "input %zu has more than %d tokens (%s less the prefix), "
                            "and options.truncation_error is 1",
                            first + (size_t)r, (int)max_length, limit);
        *truncated += (size_t)cut;
    }
    return TF_OK;
}

/* b->ids, b->lengths (and b->mask) from enc: the prefix inserted after the
 * first token (ColBERT.insert_prefix_token), padding as the expansion
 * token, unattended expansion keys masked. */
static tf_status lay_out(const tf__multi_vector *m, const tf_encoding *enc, int32_t prefix,
                         int masked, mv_batch *b)
{
    const int32_t T0 = tf_encoding_seq_len(enc), extra = prefix >= 0;
    b->B = tf_encoding_batch(enc), b->T = T0 + extra;
    const size_t B = (size_t)b->B, T = (size_t)b->T;
    b->ids = tf__malloc(B * T * sizeof *b->ids);
    b->lengths = tf__malloc(B * sizeof *b->lengths);
    b->mask = masked ? tf__malloc(B * T * T * sizeof *b->mask) : NULL;
    if (!b->ids || !b->lengths || (masked && !b->mask))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a batch of %d x %d tokens", (int)B,
                        (int)T);
    for (size_t r = 0; r < B; r++) {
        const int32_t *src = tf_encoding_ids(enc) + r * (size_t)T0; /* (T0) */
        const int32_t len = tf_encoding_lengths(enc)[r];
        int32_t *row = b->ids + r * T; /* (T) */
        for (int32_t t = 0, at = 0; t < T0; t++, at++) {
            row[at] = t < len ? src[t] : m->expansion_id;
            if (t == 0 && extra)
                row[++at] = prefix;
        }
        b->lengths[r] = len + extra;
        for (size_t q = 0; masked && q < T; q++) /* (T) scores of query row q */
            for (size_t k = 0; k < T; k++)
                b->mask[(r * T + q) * T + k] = (int32_t)k < b->lengths[r] ? 0.0f : -INFINITY;
    }
    return TF_OK;
}

static tf_status mv_forward(const tf_pipeline *p, int all_real, int32_t n_threads, mv_batch *b)
{
    const size_t D = (size_t)p->cfg.d_model;
    if (!(b->hidden = tf__malloc((size_t)b->B * (size_t)b->T * D * sizeof *b->hidden)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the hidden states of %d x %d tokens",
                        (int)b->B, (int)b->T);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = b->B, a.seq_len = b->T, a.input_ids = b->ids, a.output = b->hidden;
    a.lengths = all_real ? NULL : b->lengths; /* token types: 0, as ColBERT.preprocess inserts */
    a.additive_mask = b->mask, a.additive_mask_batched = b->mask != NULL;
    a.n_threads = n_threads;
    return tf_encoder_forward(p->enc, &a);
}

/* ColBERT.preprocess and the Transformer on texts[0..n) (input `first` of
 * the call): cut to query_length or document_length with the prefix,
 * queries padded to query_length with the expansion token when
 * do_query_expansion. */
static tf_status mv_batch_run(const tf_pipeline *p, const char *const *texts, size_t n,
                              size_t first, int is_query, int32_t n_threads, mv_batch *b)
{
    const tf__multi_vector *m = p->multi_vector;
    const tf__pylate_folder *f = &m->folder;
    const int32_t prefix = is_query ? m->query_prefix_id : m->document_prefix_id;
    const int expand = is_query && f->do_query_expansion;
    tf_encode_options o;
    tf_encode_options_init(&o);
    o.truncation = TF_TRUNCATION_LONGEST_FIRST;
    o.max_length = (is_query ? f->query_length : f->document_length) - (prefix >= 0);
    o.pad_to_max_length = expand;
    o.pad_left = -1; /* the prefix goes after each row's first token */
    *b = (mv_batch){0};
    tf_encoding *enc;
    tf_status s = tf_tokenizer_encode_batch_with(p->tok, n, texts, NULL, NULL, NULL, &o, &enc);
    if (s)
        return s;
    s = count_cut(p, texts, first, enc, o.max_length, is_query ? "query_length" : "document_length",
                  &b->truncated);
    if (s == TF_OK)
        s = lay_out(m, enc, prefix, expand && !f->attend_to_expansion_tokens, b);
    tf_encoding_destroy(enc);
    if (s == TF_OK)
        s = mv_forward(p, expand, n_threads, b);
    if (s)
        mv_batch_free(b);
    return s;
}

static int in_skiplist(const tf__multi_vector *m, int32_t id)
{
    for (size_t i = 0; i < m->n_skiplist; i++)
        if (m->skiplist_ids[i] == id)
            return 1;
    return 0;
}

/* The widest vector of the Dense modules (their inputs and outputs). */
static size_t widest(const tf__pylate_folder *f)
{
    size_t w = (size_t)f->dense[0].in;
    for (size_t i = 0; i < f->n_dense; i++)
        w = (size_t)f->dense[i].out > w ? (size_t)f->dense[i].out : w;
    return w;
}

/* x (k, in) through the Dense modules (Dense.forward: act(linear(x)), plus
 * the residual) into the result; x, y, z (k, widest) scratch. Returns the
 * buffer holding the output (k, dim). */
static float *project(const tf__pylate_folder *f, float *x, float *y, float *z, size_t k)
{
    for (size_t i = 0; i < f->n_dense; i++) {
        const tf__pylate_dense *d = &f->dense[i];
        const size_t in = (size_t)d->in, out = (size_t)d->out;
        tf__dense_forward(y, x, d->w, d->b, k, out, in, d->act); /* y (k, out) */
        const float *res = d->residual_w ? z : x;                /* (k, out) */
        if (d->residual_w)
            tf__linear(z, x, d->residual_w, NULL, k, out, in);
        for (size_t j = 0; d->use_residual && j < k * out; j++)
            y[j] += res[j];
        float *t = x;
        x = y, y = t;
    }
    return x;
}

/* Input `at` of v from row r of b: the rows encode keeps (all of an
 * expanded query's; else the attended ones, less a document's skiplist
 * tokens), projected and, when unit, at unit L2 norm; x, y, z scratch
 * (T, widest). */
static tf_status keep_rows(const tf_pipeline *p, const mv_batch *b, int32_t r, int is_query,
                           int unit, tf_token_vectors *v, size_t at, float *x, float *y, float *z)
{
    const tf__multi_vector *m = p->multi_vector;
    const size_t D = (size_t)p->cfg.d_model, T = (size_t)b->T, dim = (size_t)v->dim;
    const int all = is_query && m->folder.do_query_expansion;
    const int32_t *ids = b->ids + (size_t)r * T; /* (T) */
    size_t k = 0;
    tf_status s = vectors_reserve(v, at, T);
    for (size_t t = 0; s == TF_OK && t < T; t++) {
        if (!all && ((int32_t)t >= b->lengths[r] || (!is_query && in_skiplist(m, ids[t]))))
            continue;
        memcpy(x + k * D, b->hidden + ((size_t)r * T + t) * D, D * sizeof *x);
        v->ids[v->start[at] + k++] = ids[t];
    }
    if (s)
        return s;
    const float *out = project(&m->folder, x, y, z, k); /* (k, dim) */
    float *dst = v->data + v->start[at] * dim;
    memcpy(dst, out, k * dim * sizeof *dst);
    if (unit)
        tf__l2_normalize_rows(dst, k, dim);
    v->start[at + 1] = v->start[at] + k;
    return TF_OK;
}

/* The token vectors of texts[0..n) into v's inputs first.. (first also
 * numbers them in messages). */
static tf_status mv_encode(const tf_pipeline *p, const tf_pipeline_args *a,
                           const char *const *texts, int is_query, size_t first,
                           tf_token_vectors *v, size_t *truncated)
{
    const tf__pylate_folder *f = &p->multi_vector->folder;
    const size_t cols = widest(f);
    const size_t rows = (size_t)(is_query ? f->query_length : f->document_length);
    const size_t width = cols > (size_t)p->cfg.d_model ? cols : (size_t)p->cfg.d_model;
    float *x = tf__malloc(3 * rows * width * sizeof *x); /* x, y, z (T, width) each */
    if (!x)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the projection of %zu tokens", rows);
    const int unit = a->normalize != 0;
    tf_status s = TF_OK;
    for (size_t i = 0; s == TF_OK && i < a->n; i += (size_t)a->batch_size) {
        const size_t n = a->n - i < (size_t)a->batch_size ? a->n - i : (size_t)a->batch_size;
        mv_batch b;
        if ((s = mv_batch_run(p, texts + i, n, first + i, is_query, a->n_threads, &b)))
            break;
        for (int32_t r = 0; s == TF_OK && r < b.B; r++)
            s = keep_rows(p, &b, r, is_query, unit, v, first + i + (size_t)r, x, x + rows * width,
                          x + 2 * rows * width);
        *truncated += b.truncated;
        mv_batch_free(&b);
    }
    tf__free(x);
    return s;
}

/* ---- An embedding pipeline's last hidden state ------------------------------------------ */

static tf_status hidden_rows(const tf_pipeline *p, const tf__pipeline_batch *b, int unit,
                             tf_token_vectors *v, size_t at)
{
    const size_t D = (size_t)p->cfg.d_model;
    for (int32_t r = 0; r < b->B; r++, at++) {
        const size_t len = (size_t)tf_encoding_lengths(b->enc)[r];
        tf_status s = vectors_reserve(v, at, len);
        if (s)
            return s;
        float *dst = v->data + v->start[at] * D; /* (len, D) */
        memcpy(dst, b->hidden + (size_t)r * (size_t)b->T * D, len * D * sizeof *dst);
        memcpy(v->ids + v->start[at], tf_encoding_ids(b->enc) + (size_t)r * (size_t)b->T,
               len * sizeof *v->ids);
        if (unit)
            tf__l2_normalize_rows(dst, len, D);
        v->start[at + 1] = v->start[at] + len;
    }
    return TF_OK;
}

static tf_status embed_hidden(const tf_pipeline *p, const tf_pipeline_args *a, tf_token_vectors *v,
                              size_t *truncated)
{
    const char *prompt;
    int32_t skip;
    char **texts;
    tf_status s = tf__pipeline_resolve_prompt(p, a->prompt_name, &prompt, &skip);
    if (s || (s = tf__pipeline_prefix_texts(prompt, a->texts, a->n, &texts)))
        return s;
    for (size_t i = 0; s == TF_OK && i < a->n; i += (size_t)a->batch_size) {
        const size_t n = a->n - i < (size_t)a->batch_size ? a->n - i : (size_t)a->batch_size;
        tf__pipeline_batch b;
        s = tf__pipeline_batch_run(p, (const char *const *)texts + i, NULL, n, i, a->n_threads, &b);
        if (s == TF_OK) {
            s = hidden_rows(p, &b, a->normalize == 1, v, i);
            *truncated += b.truncated;
            tf__pipeline_batch_free(&b);
        }
    }
    tf__free(texts);
    return s;
}

/* ---- The calls ----------------------------------------------------------------------------- */

/* What tf_pipeline_embed_tokens and a multi-vector score take beyond
 * tf__pipeline_read_args' checks. */
static tf_status check_token_args(const tf_pipeline *p, const tf_pipeline_args *a, int scoring)
{
    if (a->is_query != 0 && a->is_query != 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.is_query: expected 0 (documents) or 1 (queries), "
                        "got %d",
                        (int)a->is_query);
    if (a->normalize < -1 || a->normalize > 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.normalize: expected -1 (as the pipeline), 0 or 1, got %d",
                        (int)a->normalize);
    if (a->dimensions != 0 || a->dimensions_layer_norm != 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.dimensions %d, dimensions_layer_norm %d: token vectors "
                        "keep every dimension (0 and 0)",
                        (int)a->dimensions, (int)a->dimensions_layer_norm);
    if (!scoring && a->pairs)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.pairs: tf_pipeline_embed_tokens takes single texts "
                        "(NULL)");
    if (p->kind == TF_PIPELINE_MULTI_VECTOR && a->prompt_name && a->prompt_name[0])
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.prompt_name \"%s\": a multi-vector pipeline has no "
                        "prompts (its query and document prefixes are args.is_query's)",
                        a->prompt_name);
    return TF_OK;
}

tf_status tf_pipeline_embed_tokens(const tf_pipeline *p, const tf_pipeline_args *args,
                                   tf_token_vectors **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = NULL;
    tf_pipeline_args a;
    tf_status s = tf__pipeline_read_args(&a, p, args, 0, 0);
    if (s == TF_OK && p->kind != TF_PIPELINE_EMBEDDING && p->kind != TF_PIPELINE_MULTI_VECTOR)
        s = tf__pipeline_wrong_kind(p, "tf_pipeline_embed_tokens");
    if (s == TF_OK)
        s = check_token_args(p, &a, 0);
    const int mv = s == TF_OK && p->kind == TF_PIPELINE_MULTI_VECTOR;
    tf_token_vectors *v = NULL;
    if (s || (s = vectors_alloc(a.n, mv ? p->dim : p->cfg.d_model, &v)))
        return s;
    size_t truncated = 0;
    s = mv ? mv_encode(p, &a, a.texts, a.is_query, 0, v, &truncated)
           : embed_hidden(p, &a, v, &truncated);
    if (s) {
        tf_token_vectors_destroy(v);
        return s;
    }
    if (a.truncated)
        *a.truncated = truncated;
    *out = v;
    return TF_OK;
}

/* out[i] = MaxSim of queries q's input i and documents d's input i. */
static tf_status score_pairs(const tf_token_vectors *q, const tf_token_vectors *d, float *out)
{
    size_t most = 1;
    for (size_t i = 0; i < q->n; i++) {
        const size_t cells = (size_t)tf_token_vectors_rows(q, i) * tf_token_vectors_rows(d, i);
        most = cells > most ? cells : most;
    }
    float *sim = tf__malloc(most * sizeof *sim); /* (q_rows, d_rows) */
    if (!sim)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu similarities", most);
    for (size_t i = 0; i < q->n; i++) {
        const size_t nq = (size_t)tf_token_vectors_rows(q, i),
                     nd = (size_t)tf_token_vectors_rows(d, i);
        out[i] = nq && nd ? tf__maxsim(tf_token_vectors_data(q, i), nq, tf_token_vectors_data(d, i),
                                       nd, (size_t)q->dim, sim)
                          : 0.0f;
    }
    tf__free(sim);
    return TF_OK;
}

tf_status tf__multi_vector_score(const tf_pipeline *p, const tf_pipeline_args *args)
{
    tf_pipeline_args a;
    tf_status s = tf__pipeline_read_args(&a, p, args, 1, 1);
    if (s == TF_OK)
        s = check_token_args(p, &a, 1);
    if (s == TF_OK)
        s = tf__pipeline_check_out_len(args, &a, 1);
    float *scores = s == TF_OK ? tf__malloc(a.n * sizeof *scores) : NULL; /* [n] */
    if (s == TF_OK && !scores)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu scores", a.n);
    size_t truncated = 0;
    for (size_t i = 0; s == TF_OK && i < a.n; i += (size_t)a.batch_size) {
        tf_pipeline_args part = a; /* one batch of queries and of documents at a time */
        part.n = a.n - i < (size_t)a.batch_size ? a.n - i : (size_t)a.batch_size;
        part.normalize = -1; /* PyLate's unit vectors, as a head's score ignores normalize */
        tf_token_vectors *q = NULL, *d = NULL;
        if ((s = vectors_alloc(part.n, p->dim, &q)) == TF_OK &&
            (s = vectors_alloc(part.n, p->dim, &d)) == TF_OK &&
            (s = mv_encode(p, &part, a.texts + i, 1, 0, q, &truncated)) == TF_OK &&
            (s = mv_encode(p, &part, a.pairs + i, 0, 0, d, &truncated)) == TF_OK)
            s = score_pairs(q, d, scores + i);
        tf_token_vectors_destroy(q);
        tf_token_vectors_destroy(d);
    }
    if (s == TF_OK) {
        memcpy(a.out, scores, a.n * sizeof *scores);
        if (a.truncated)
            *a.truncated = truncated;
    }
    tf__free(scores);
    return s;
}

/* ---- MaxSim ------------------------------------------------------------------------------ */

/* TF_ERR_INVALID_ARGUMENT naming the first non-finite value of x (rows, dim). */
static tf_status check_finite(const float *x, int32_t rows, int32_t dim, const char *name)
{
    const size_t n = (size_t)rows * (size_t)dim;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s[%zu, %zu]: a non-finite value (%g)", name,
                            i / (size_t)dim, i % (size_t)dim, (double)x[i]);
    return TF_OK;
}

tf_status tf_maxsim(const float *query, int32_t q_rows, const float *doc, int32_t d_rows,
                    int32_t dim, float *score)
{
    if (!query || !doc || !score)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL",
                        !query     ? "query"
                            : !doc ? "doc"
                                   : "score");
    if (q_rows < 1 || d_rows < 1 || dim < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: expected >= 1, got %d",
                        q_rows < 1       ? "q_rows"
                            : d_rows < 1 ? "d_rows"
                                         : "dim",
                        (int)(q_rows < 1       ? q_rows
                                  : d_rows < 1 ? d_rows
                                               : dim));
    size_t cells;
    if (!tf__mul_size((size_t)q_rows, (size_t)d_rows, &cells) || cells > (size_t)INT32_MAX ||
        (size_t)q_rows * (size_t)dim > (size_t)INT32_MAX ||
        (size_t)d_rows * (size_t)dim > (size_t)INT32_MAX)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "q_rows %d x d_rows %d x dim %d: more than %d values in a matrix",
                        (int)q_rows, (int)d_rows, (int)dim, (int)INT32_MAX);
    tf_status s = check_finite(query, q_rows, dim, "query");
    if (s == TF_OK)
        s = check_finite(doc, d_rows, dim, "doc");
    float *sim = s == TF_OK ? tf__malloc(cells * sizeof *sim) : NULL; /* (q_rows, d_rows) */
    if (s == TF_OK && !sim)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu similarities", cells);
    if (s == TF_OK)
        *score = tf__maxsim(query, (size_t)q_rows, doc, (size_t)d_rows, (size_t)dim, sim);
    tf__free(sim);
    return s;
}
