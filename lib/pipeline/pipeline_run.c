/* pipeline_run.c — tf_pipeline_embed, _score and _classify: batches of
 * inputs through the encoder, then sentence-transformers' modules or the
 * classification head. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "abi.h"
#include "alloc.h"
#include "checked.h"
#include "classifier_head.h"
#include "dense.h"
#include "error.h"
#include "multi_vector.h"
#include "names.h"
#include "pipeline.h"
#include "pipeline_images.h"
#include "sentence_pool.h"

#define TF_PIPELINE_BATCH 32
/* nomic-embed-text-v1.5's Matryoshka layer norm: F.layer_norm's default eps,
 * as its model card calls it */
#define TF_MATRYOSHKA_LAYER_NORM_EPS 1e-5

static const tf_pipeline_args args_defaults = {
    .struct_size = sizeof(tf_pipeline_args),
    .normalize = -1,
};

void tf_pipeline_args_init_sized(tf_pipeline_args *args, size_t struct_size)
{
    tf__abi_init(args, struct_size, &args_defaults, sizeof args_defaults);
}

tf_status tf__pipeline_read_args(tf_pipeline_args *a, const tf_pipeline *p,
                                 const tf_pipeline_args *in, int need_pairs, int writes_out)
{
    if (!p || !in)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", p ? "args" : "pipeline");
    *a = args_defaults;
    tf_status s = tf__abi_read(a, sizeof *a, in, TF_PIPELINE_ARGS_SIZE_0_3, "args");
    if (s)
        return s;
    if (a->n < 1 || !a->texts || (writes_out && !a->out))
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.%s",
                        a->n < 1        ? "n: expected >= 1, got 0"
                            : !a->texts ? "texts is NULL"
                                        : "out is NULL");
    if (!writes_out && (a->out || a->out_len))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.out and args.out_len: expected NULL and 0 (the call "
                        "allocates its results), got %s and %zu",
                        a->out ? "a pointer" : "NULL", a->out_len);
    if (need_pairs && !a->pairs)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.pairs is NULL: scoring takes (text, pair) "
                        "inputs");
    for (size_t i = 0; i < a->n; i++)
        if (!a->texts[i] || (a->pairs && !a->pairs[i]))
            return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.%s[%zu] is NULL",
                            a->texts[i] ? "pairs" : "texts", i);
    if (a->batch_size < 0 || a->n_threads < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.%s: expected >= 0, got %d",
                        a->batch_size < 0 ? "batch_size" : "n_threads",
                        (int)(a->batch_size < 0 ? a->batch_size : a->n_threads));
    if (a->batch_size == 0)
        a->batch_size = TF_PIPELINE_BATCH;
    return TF_OK;
}

tf_status tf__pipeline_check_out_len(const tf_pipeline_args *in, const tf_pipeline_args *a,
                                     size_t width)
{
    if (in->struct_size < offsetof(tf_pipeline_args, out_len) + sizeof a->out_len)
        return TF_OK;
    size_t need;
    if (!tf__mul_size(a->n, width, &need))
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "args.n %zu times the width %zu overflows", a->n,
                        width);
    if (a->out_len < need)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.out_len: out holds %zu floats, but %zu "
                        "inputs of %zu values need %zu",
                        a->out_len, a->n, width, need);
    return TF_OK;
}

/* tmp [n, width] for results that reach out only when the call succeeds. */
static tf_status alloc_results(size_t n, size_t width, float **tmp)
{
    size_t bytes;
    if (!tf__mul_size(n, width, &bytes) || !tf__mul_size(bytes, sizeof(float), &bytes) ||
        !(*tmp = tf__malloc(bytes)))
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the results of %zu inputs", n);
    return TF_OK;
}

/* ---- Embedding ---------------------------------------------------------------------- */

tf_status tf__pipeline_resolve_prompt(const tf_pipeline *p, const char *name, const char **text,
                                      int32_t *skip)
{
    *text = "", *skip = 0;
    if (!name && p->st.default_prompt >= 0)
        name = p->st.prompts[p->st.default_prompt].name;
    if (!name || !name[0])
        return TF_OK;
    const int32_t i = tf__st_prompt_find(&p->st, name);
    if (i < 0)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.prompt_name \"%s\": the folder's prompts "
                        "(config_sentence_transformers.json) are %s%s%s",
                        name, p->st.n_prompts ? p->st.prompts[0].name : "none",
                        p->st.n_prompts > 1 ? ", " : "",
                        p->st.n_prompts > 1 ? p->st.prompts[1].name : "");
    *text = p->st.prompts[i].text;
    if (p->st.include_prompt || !*text)
        return TF_OK;
    tf_encoding *e;
    tf_status s = tf_tokenizer_encode(p->tok, *text, strlen(*text), NULL, 0, &e);
    if (s == TF_OK) {
        *skip = tf_encoding_lengths(e)[0] - 1;
        tf_encoding_destroy(e);
    }
    return s;
}

tf_status tf__pipeline_prefix_texts(const char *prompt, const char *const *texts, size_t n,
                                    char ***out)
{
    size_t bytes = n * sizeof(char *);
    for (size_t i = 0; i < n; i++)
        bytes += strlen(prompt) + strlen(texts[i]) + 1;
    char **block = tf__malloc(bytes);
    if (!block)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate %zu prompted texts", n);
    char *at = (char *)(block + n);
    for (size_t i = 0; i < n; i++) {
        block[i] = at;
        at += sprintf(at, "%s%s", prompt, texts[i]) + 1;
    }
    *out = block;
    return TF_OK;
}

/* The widest vector between the Pooling module and the end. */
static size_t widest_vector(const tf__st_pipeline *st)
{
    size_t w = (size_t)st->pooled_dim;
    for (size_t i = 0; i < st->n_steps; i++)
        w = !st->steps[i].normalize && (size_t)st->steps[i].out > w ? (size_t)st->steps[i].out : w;
    return w;
}

/* What an embedding call holds besides its batch. */
typedef struct embed_scratch {
    char **texts;   /* [n] the inputs with the prompt before each */
    int32_t *first; /* [batch_size] the first token Pooling counts */
    float *x, *y;   /* (batch_size, widest) each: a module's input and output */
    float *results; /* [n, dim] */
} embed_scratch;

static void scratch_free(embed_scratch *e)
{
    tf__free(e->texts);
    tf__free(e->first);
    tf__free(e->x);
    tf__free(e->y);
    tf__free(e->results);
}

static tf_status scratch_alloc(embed_scratch *e, const tf_pipeline *p, const tf_pipeline_args *a,
                               const char *prompt)
{
    *e = (embed_scratch){0};
    const size_t bs = (size_t)a->batch_size < a->n ? (size_t)a->batch_size : a->n;
    const size_t widest = widest_vector(&p->st);
    tf_status s = tf__pipeline_prefix_texts(prompt, a->texts, a->n, &e->texts);
    if (s == TF_OK)
        s = alloc_results(a->n, (size_t)p->dim, &e->results);
    e->first = s ? NULL : tf__malloc(bs * sizeof *e->first);
    e->x = e->first ? tf__malloc(bs * widest * sizeof *e->x) : NULL;
    e->y = e->x ? tf__malloc(bs * widest * sizeof *e->y) : NULL;
    if (s == TF_OK && !e->y)
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate the vectors of %zu inputs", bs);
    if (s)
        scratch_free(e);
    return s;
}

/* The batch's vectors into out (B, dim): the pooling modes side by side
 * (Pooling.py's order), then each Dense and, unless normalize is 0, each
 * Normalize; normalize 1 ends with one more. */
static void embed_modules(const tf_pipeline *p, const tf__pipeline_batch *b, int32_t skip,
                          int32_t normalize, embed_scratch *e, float *out)
{
    const size_t B = (size_t)b->B, D = (size_t)p->cfg.d_model;
    size_t width = (size_t)p->st.pooled_dim, at = 0;
    for (size_t r = 0; r < B; r++)
        e->first[r] = skip;
    for (size_t k = 0; k < TF_POOLING_COUNT; k++)
        if (p->st.pooling_modes & (1u << tf__pooling_order[k])) { /* x (B, width): block `at` */
            const int mode = tf__pooling_order[k];
            tf__pool_mode(e->x + at, width, b->hidden, tf_encoding_lengths(b->enc), e->first, B,
                          (size_t)b->T, D, mode);
            at += D;
        }
    float *x = e->x, *y = e->y;
    for (size_t i = 0; i < p->st.n_steps; i++) {
        const tf__st_step *step = &p->st.steps[i];
        if (step->normalize && normalize != 0) {
            tf__l2_normalize_rows(x, B, width);
        } else if (!step->normalize) {
            tf__dense_forward(y, x, step->w, step->b, B, (size_t)step->out, width, step->act);
            width = (size_t)step->out;
            float *t = x;
            x = y, y = t;
        }
    }
    if (normalize == 1)
        tf__l2_normalize_rows(x, B, width);
    memcpy(out, x, B * width * sizeof *out);
}

/* 1 when the call's vectors are unit vectors (a plain Matryoshka cut
 * renormalises them). */
static int normalises(const tf_pipeline *p, int32_t normalize)
{
    int has = 0;
    for (size_t i = 0; i < p->st.n_steps; i++)
        has |= p->st.steps[i].normalize;
    return normalize == 1 || (normalize == -1 && has);
}

/* out [n, dims] = the first dims of each row of results [n, dim], scaled to
 * unit L2 norm when `unit`. */
static void cut_dimensions(float *out, const float *results, size_t n, size_t dim, size_t dims,
                           int unit)
{
    for (size_t r = 0; r < n; r++)
        memcpy(out + r * dims, results + r * dim, dims * sizeof *out);
    if (unit)
        tf__l2_normalize_rows(out, n, dims);
}

/* The call's vectors results [n, dim] into out [n, dims]: the plain cut
 * (renormalised when the vectors are unit vectors and it drops some), or
 * nomic's recipe (dimensions_layer_norm): layer norm, cut, unit norm. */
static void matryoshka(float *out, float *results, const tf_pipeline *p, const tf_pipeline_args *a)
{
    const size_t dim = (size_t)p->dim, dims = a->dimensions ? (size_t)a->dimensions : dim;
    if (a->dimensions_layer_norm)
        tf__layer_norm_vectors(results, a->n, dim, TF_MATRYOSHKA_LAYER_NORM_EPS);
    cut_dimensions(out, results, a->n, dim, dims,
                   a->dimensions_layer_norm || (dims < dim && normalises(p, a->normalize)));
}

/* The call each tf_pipeline_kind is for (tf_pipeline_<call>). */
static const char *const kind_calls[] = {
    [TF_PIPELINE_EMBEDDING] = "embed",
    [TF_PIPELINE_CROSS_ENCODER] = "score",
    [TF_PIPELINE_CLASSIFIER] = "classify",
    [TF_PIPELINE_TOKEN_CLASSIFIER] = "entities",
    [TF_PIPELINE_FILL_MASK] = "fill_mask",
    [TF_PIPELINE_SPARSE] = "embed_sparse",
    [TF_PIPELINE_MULTI_VECTOR] = "embed_tokens",
    [TF_PIPELINE_IMAGE_EMBEDDING] = "embed_images",
    [TF_PIPELINE_IMAGE_CLASSIFIER] = "classify_images",
};
_Static_assert(sizeof kind_calls / sizeof *kind_calls == TF_PIPELINE_KIND_COUNT,
               "a call for every tf_pipeline_kind");

tf_status tf__pipeline_wrong_kind(const tf_pipeline *p, const char *call)
{
    const char *kind = tf_pipeline_kind_name(p->kind);
    return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: the pipeline is a%s %s; use tf_pipeline_%s", call,
                    strchr("aeiou", kind[0]) ? "n" : "", kind, kind_calls[p->kind]);
}

static tf_status check_embed_args(const tf_pipeline *p, const tf_pipeline_args *a)
{
    if (p->kind != TF_PIPELINE_EMBEDDING)
        return tf__pipeline_wrong_kind(p, "tf_pipeline_embed");
    if (a->normalize < -1 || a->normalize > 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.normalize: expected -1 (as the folder), 0 "
                        "or 1, got %d",
                        (int)a->normalize);
    if (a->dimensions < 0 || a->dimensions > p->dim)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.dimensions %d: the model's vectors have "
                        "%d dimensions (0 keeps them all)",
                        (int)a->dimensions, (int)p->dim);
    if (a->dimensions_layer_norm < 0 || a->dimensions_layer_norm > 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "args.dimensions_layer_norm: expected 0 (the "
                        "plain cut) or 1 (nomic's layer norm before it), got %d",
                        (int)a->dimensions_layer_norm);
    return TF_OK;
}

tf_status tf_pipeline_embed(const tf_pipeline *p, const tf_pipeline_args *args)
{
    if (p && tf__pipeline_images_has_text(p)) /* a whole CLIP or SigLIP folder's texts */
        return tf__pipeline_images_embed_texts(p, args);
    tf_pipeline_args a;
    tf_status s = tf__pipeline_read_args(&a, p, args, 0, 1);
    if (s == TF_OK)
        s = check_embed_args(p, &a);
    if (s == TF_OK)
        s = tf__pipeline_check_out_len(args, &a, (size_t)(a.dimensions ? a.dimensions : p->dim));
    const char *prompt = "";
    int32_t skip = 0;
    if (s == TF_OK)
        s = tf__pipeline_resolve_prompt(p, a.prompt_name, &prompt, &skip);
    embed_scratch e;
    if (s || (s = scratch_alloc(&e, p, &a, prompt)))
        return s;
    size_t truncated = 0;
    for (size_t i = 0; s == TF_OK && i < a.n; i += (size_t)a.batch_size) {
        const size_t n = a.n - i < (size_t)a.batch_size ? a.n - i : (size_t)a.batch_size;
        tf__pipeline_batch b;
        s = tf__pipeline_batch_run(p, (const char *const *)e.texts + i,
                                   a.pairs ? a.pairs + i : NULL, n, a.first_index + i, a.n_threads,
                                   &b);
        if (s == TF_OK) {
            embed_modules(p, &b, skip, a.normalize, &e, e.results + i * (size_t)p->dim);
            truncated += b.truncated;
            tf__pipeline_batch_free(&b);
        }
    }
    if (s == TF_OK) {
        matryoshka(a.out, e.results, p, &a);
        if (a.truncated)
            *a.truncated = truncated;
    }
    scratch_free(&e);
    return s;
}

/* ---- Heads ----------------------------------------------------------------------------- */

tf_status tf__pipeline_run_head(const tf_pipeline *p, const tf_pipeline_args *args, int need_pairs,
                                const char *call,
                                tf__head_activation (*activation)(const tf_pipeline *))
{
    tf_pipeline_args a;
    tf_status s = tf__pipeline_read_args(&a, p, args, need_pairs, 1);
    if (s == TF_OK && p->kind != TF_PIPELINE_CROSS_ENCODER && p->kind != TF_PIPELINE_CLASSIFIER)
        s = tf__pipeline_wrong_kind(p, call);
    if (s == TF_OK)
        s = tf__pipeline_check_out_len(args, &a, (size_t)p->dim);
    float *results = NULL; /* [n, labels] */
    if (s || (s = alloc_results(a.n, (size_t)p->dim, &results)))
        return s;
    const size_t labels = (size_t)p->dim, D = (size_t)p->cfg.d_model;
    size_t truncated = 0;
    for (size_t i = 0; s == TF_OK && i < a.n; i += (size_t)a.batch_size) {
        const size_t n = a.n - i < (size_t)a.batch_size ? a.n - i : (size_t)a.batch_size;
        tf__pipeline_batch b;
        s = tf__pipeline_batch_run(p, a.texts + i, a.pairs ? a.pairs + i : NULL, n,
                                   a.first_index + i, a.n_threads, &b);
        if (s == TF_OK) {
            float *logits = results + i * labels; /* (n, labels) */
            tf__head_logits(logits, b.pooled, p->cls_w, p->cls_b, n, labels, D);
            tf__head_activate(logits, n, labels, activation(p));
            truncated += b.truncated;
            tf__pipeline_batch_free(&b);
        }
    }
    if (s == TF_OK) {
        memcpy(a.out, results, a.n * labels * sizeof *results);
        if (a.truncated)
            *a.truncated = truncated;
    }
    tf__free(results);
    return s;
}

/* CrossEncoder's activation_fn, as the folder's config.json chooses it (pipeline.c). */
static tf__head_activation score_activation(const tf_pipeline *p)
{
    return p->score_activation;
}

/* The text-classification pipeline's function_to_apply by problem_type. */
static tf__head_activation classify_activation(const tf_pipeline *p)
{
    switch (p->arch.problem) {
    case TF_PROBLEM_SINGLE_LABEL:
        return TF_HEAD_SOFTMAX;
    case TF_PROBLEM_MULTI_LABEL:
        return TF_HEAD_SIGMOID;
    case TF_PROBLEM_REGRESSION:
        return TF_HEAD_LOGITS;
    case TF_PROBLEM_UNSET:
        break;
    }
    return p->dim == 1 ? TF_HEAD_SIGMOID : TF_HEAD_SOFTMAX;
}

tf_status tf_pipeline_score(const tf_pipeline *p, const tf_pipeline_args *args)
{
    if (p && p->kind == TF_PIPELINE_MULTI_VECTOR)
        return tf__multi_vector_score(p, args);
    return tf__pipeline_run_head(p, args, 1, "tf_pipeline_score", score_activation);
}

tf_status tf_pipeline_classify(const tf_pipeline *p, const tf_pipeline_args *args)
{
    return tf__pipeline_run_head(p, args, 0, "tf_pipeline_classify", classify_activation);
}
