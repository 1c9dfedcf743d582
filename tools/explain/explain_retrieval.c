/* explain_retrieval.c — the retrieval heads' steps of `tfenc explain`
 * (explain_retrieval.h): the view computed through tfenc.h, then printed.
 *
 * Dimensions: T tokens of the text, V the vocabulary, R rows of a ColBERT
 * matrix, N its tokens with the skipped ones. */
#define _POSIX_C_SOURCE 200809L
#include "explain_retrieval.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SHOWN_VALUES = 4 };

static int failed(char *err, size_t n, const char *what)
{
    snprintf(err, n, "%s: %s", what, tf_last_error());
    return -1;
}

/* Pipeline args for the one text. */
static tf_pipeline_args one_text(const char *const *text, int32_t is_query)
{
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = 1, a.texts = text, a.is_query = is_query;
    return a;
}

/* The indices of the n_top_terms largest values of the sparse vector. */
static void pick_top_terms(retrieval_view *v)
{
    const int32_t nnz = tf_sparse_vectors_nnz(v->sparse, 0);
    const int32_t *index = tf_sparse_vectors_indices(v->sparse, 0);
    const float *value = tf_sparse_vectors_values(v->sparse, 0);
    char *taken = calloc((size_t)(nnz ? nnz : 1), 1); /* (nnz) already picked */
    for (v->n_top_terms = 0; taken && v->n_top_terms < RETRIEVAL_TOP_TERMS; v->n_top_terms++) {
        int32_t best = -1; /* the largest not yet picked; the lower index of equals */
        for (int32_t i = 0; i < nnz; i++)
            if (!taken[i] && (best < 0 || value[i] > value[best]))
                best = i;
        if (best < 0)
            break;
        taken[best] = 1;
        v->top_terms[v->n_top_terms] = index[best];
    }
    free(taken);
}

static int build_mlm(const char *text, retrieval_view *v, char *err, size_t n)
{
    const tf_pipeline_args a = one_text(&text, 0);
    if (tf_pipeline_predict_tokens(v->p, text, RETRIEVAL_TOP_K, &v->predictions))
        return failed(err, n, "tf_pipeline_predict_tokens");
    if (tf_pipeline_embed_sparse(v->p, &a, &v->sparse))
        return failed(err, n, "tf_pipeline_embed_sparse");
    pick_top_terms(v);
    return 0;
}

/* *rows (malloc'ed, *count) = the matrix's tokens merged with the text's
 * encoding enc [N0]: a row whose id is the encoding's next token is that
 * token; the row after [CLS] that is not is the prefix ([Q] / [D]); an
 * encoding token with no row was skipped (the skiplist); rows after the
 * encoding's end are the query's [MASK] expansion. */
static int merge_rows(const tf_token_vectors *m, const int32_t *enc, int32_t N0,
                      retrieval_row **rows, int32_t *count)
{
    const int32_t R = tf_token_vectors_rows(m, 0);
    const int32_t *ids = tf_token_vectors_ids(m, 0); /* (R) */
    retrieval_row *out = malloc((size_t)(R + N0) * sizeof *out);
    if (!out)
        return -1;
    int32_t i = 0, j = 0, k = 0;
    while (i < R || j < N0) {
        if (i < R && j < N0 && ids[i] == enc[j]) { /* the token's row */
            out[k++] = (retrieval_row){ids[i], i, 0};
            i++, j++;
        } else if (i < R && (j >= N0 || i == 1)) { /* the prefix, or the expansion */
            out[k++] = (retrieval_row){ids[i], i, j >= N0};
            i++;
        } else { /* a token with no row: the skiplist's */
            out[k++] = (retrieval_row){enc[j], -1, 0};
            j++;
        }
    }
    *rows = out, *count = k;
    return 0;
}

static int build_colbert(const char *text, retrieval_view *v, char *err, size_t n)
{
    const tf_encoding *e = v->enc;
    const tf_pipeline_args doc = one_text(&text, 0), query = one_text(&text, 1);
    int rc = 0;
    if (tf_pipeline_embed_tokens(v->p, &doc, &v->doc) ||
        tf_pipeline_embed_tokens(v->p, &query, &v->query))
        rc = failed(err, n, "tf_pipeline_embed_tokens");
    const int32_t N0 = tf_encoding_lengths(e)[0];
    if (rc == 0 &&
        (merge_rows(v->doc, tf_encoding_ids(e), N0, &v->doc_rows, &v->n_doc_rows) ||
         merge_rows(v->query, tf_encoding_ids(e), N0, &v->query_rows, &v->n_query_rows))) {
        snprintf(err, n, "out of memory");
        rc = -1;
    }
    return rc;
}

int retrieval_view_build(const char *model, const char *text, retrieval_view *v, char *err,
                         size_t n)
{
    *v = (retrieval_view){.kind = -1};
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.kind = TF_PIPELINE_FILL_MASK; /* a bare *ForMaskedLM folder with its head */
    if (tf_pipeline_load(model, &o, &v->p) != TF_OK)
        return 0; /* not a pipeline folder: the encoder's steps are all there is */
    v->kind = tf_pipeline_kind_of(v->p);
    const tf_tokenizer *tok = tf_pipeline_tokenizer(v->p);
    int rc = 0;
    if (tf_tokenizer_encode(tok, text, strlen(text), NULL, 0, &v->enc))
        rc = failed(err, n, "the text");
    else if (v->kind == TF_PIPELINE_FILL_MASK || v->kind == TF_PIPELINE_SPARSE)
        rc = build_mlm(text, v, err, n);
    else if (v->kind == TF_PIPELINE_MULTI_VECTOR)
        rc = build_colbert(text, v, err, n);
    if (rc != 0 ||
        (v->kind != TF_PIPELINE_FILL_MASK && v->kind != TF_PIPELINE_SPARSE &&
         v->kind != TF_PIPELINE_MULTI_VECTOR))
        retrieval_view_free(v);
    return rc;
}

void retrieval_view_free(retrieval_view *v)
{
    tf_encoding_destroy(v->enc);
    tf_fill_mask_destroy(v->predictions);
    tf_sparse_vectors_destroy(v->sparse);
    tf_token_vectors_destroy(v->doc);
    tf_token_vectors_destroy(v->query);
    free(v->doc_rows);
    free(v->query_rows);
    tf_pipeline_destroy(v->p);
    *v = (retrieval_view){.kind = -1};
}

const char *retrieval_token(const retrieval_view *v, int32_t id)
{
    const char *t = tf_tokenizer_id_to_token(tf_pipeline_tokenizer(v->p), id);
    return t ? t : "?";
}

/* ---- Printing ----------------------------------------------------------------- */

static void heading(int *step, int color, const char *title)
{
    ++*step;
    printf(color ? "\n\033[1;36mStep %d. %s\033[0m\n" : "\nStep %d. %s\n", *step, title);
}

static void print_predictions(const retrieval_view *v)
{
    const tf_fill_mask *m = v->predictions;
    const int32_t *ids = tf_encoding_ids(v->enc); /* (T) */
    printf("  the encoder's output (T, D) through the head (dense, activation, LayerNorm,\n"
           "  decoder) -> logits (%zu, %d); softmax over each row; its top %d, best first:\n",
           tf_fill_mask_count(m), (int)tf_pipeline_dim(v->p), (int)tf_fill_mask_top_k(m));
    for (size_t t = 0; t < tf_fill_mask_count(m); t++) {
        printf("    %2zu %-8.8s", t, retrieval_token(v, ids[t]));
        for (int32_t k = 0; k < tf_fill_mask_top_k(m); k++)
            printf(" %8.8s %.3f", retrieval_token(v, tf_fill_mask_token(m, t, k)),
                   (double)tf_fill_mask_score(m, t, k));
        printf("\n");
    }
}

static void print_sparse(const retrieval_view *v)
{
    const int32_t *index = tf_sparse_vectors_indices(v->sparse, 0);
    const float *value = tf_sparse_vectors_values(v->sparse, 0);
    const int32_t nnz = tf_sparse_vectors_nnz(v->sparse, 0);
    printf(v->kind == TF_PIPELINE_SPARSE
               ? "  the folder's SpladePooling (its activation, then its pooling over the\n"
                 "  tokens) of the logits -> (%d)\n"
               : "  SPLADE: the max over the tokens of log(1 + ReLU(logits)) -> (%d)\n",
           (int)tf_sparse_vectors_dim(v->sparse));
    printf("  %d of %d values are not zero; the largest %d terms:\n", (int)nnz,
           (int)tf_sparse_vectors_dim(v->sparse), (int)v->n_top_terms);
    for (int32_t i = 0; i < v->n_top_terms; i++) {
        int32_t at = 0;
        while (index[at] != v->top_terms[i])
            at++;
        printf("    %-12.12s %6d  %.4f\n", retrieval_token(v, index[at]), (int)index[at],
               (double)value[at]);
    }
}

/* One matrix's tokens: each row's first values, or why there is none. */
static void print_rows(const retrieval_view *v, const tf_token_vectors *m,
                       const retrieval_row *rows, int32_t n)
{
    const int32_t dim = tf_token_vectors_dim(m);
    for (int32_t i = 0; i < n; i++) {
        printf("    %-10.10s", retrieval_token(v, rows[i].id));
        if (rows[i].row < 0) {
            printf(" skipped (the skiplist)\n");
            continue;
        }
        const float *x = tf_token_vectors_data(m, 0) + (size_t)rows[i].row * (size_t)dim;
        printf(" row %2d [", (int)rows[i].row);
        for (int32_t d = 0; d < dim && d < SHOWN_VALUES; d++)
            printf(" %7.3f", (double)x[d]);
        printf("%s ]%s\n", dim > SHOWN_VALUES ? "  ..." : "",
               rows[i].expansion ? "  expansion" : "");
    }
}

static void print_colbert(const retrieval_view *v, int *step, int color)
{
    heading(step, color, "ColBERT document: one vector per token, the skiplist left out");
    printf("  the prefix after [CLS], the Dense projection to %d, unit rows; the tokens of\n"
           "  the skiplist (punctuation) have no row: (%d, %d)\n",
           (int)tf_token_vectors_dim(v->doc), (int)tf_token_vectors_rows(v->doc, 0),
           (int)tf_token_vectors_dim(v->doc));
    print_rows(v, v->doc, v->doc_rows, v->n_doc_rows);
    heading(step, color, "ColBERT query: [MASK] expansion");
    printf("  the query prefix, then [MASK] up to the query length; every row kept: (%d, %d)\n",
           (int)tf_token_vectors_rows(v->query, 0), (int)tf_token_vectors_dim(v->query));
    print_rows(v, v->query, v->query_rows, v->n_query_rows);
}

void retrieval_view_print(const retrieval_view *v, int *step, int color)
{
    if (!v->p)
        return;
    if (v->kind == TF_PIPELINE_MULTI_VECTOR) {
        print_colbert(v, step, color);
        return;
    }
    heading(step, color, "Masked-LM head: the likeliest tokens at every position");
    print_predictions(v);
    heading(step, color, "Sparse vector: a weight for each vocabulary term");
    print_sparse(v);
}
