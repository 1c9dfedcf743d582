/* explain_retrieval.h — `tfenc explain` on a retrieval folder: what its head
 * makes of the encoder's output, through the public API only. A fill-mask
 * or SPLADE folder: the masked-LM head's top tokens at every position
 * (tf_pipeline_predict_tokens) and the sparse vector's top terms; a ColBERT
 * folder: the document's per-token rows with the tokens the skiplist
 * dropped, and the query's [MASK] expansion. */
#ifndef TFENC_EXPLAIN_RETRIEVAL_H
#define TFENC_EXPLAIN_RETRIEVAL_H

#include <stddef.h>

#include "tfenc.h"

enum { RETRIEVAL_TOP_K = 5, RETRIEVAL_TOP_TERMS = 10 };

/* One row of a ColBERT matrix, or one token the skiplist dropped. */
typedef struct retrieval_row {
    int32_t id;    /* the token */
    int32_t row;   /* its row of the matrix, or -1: skipped */
    int expansion; /* a query's [MASK] padding */
} retrieval_row;

typedef struct retrieval_view {
    tf_pipeline *p;                         /* NULL: the folder has no retrieval head */
    int32_t kind;                           /* tf_pipeline_kind */
    tf_encoding *enc;                       /* the text by the pipeline's tokenizer: [T] tokens */
    tf_fill_mask *predictions;              /* fill-mask and sparse: the top k at every token */
    tf_sparse_vectors *sparse;              /* fill-mask and sparse: the text's sparse vector */
    int32_t top_terms[RETRIEVAL_TOP_TERMS]; /* its largest values' indices, largest first */
    int32_t n_top_terms;
    tf_token_vectors *doc, *query;        /* multi-vector: the text as a document and a query */
    retrieval_row *doc_rows, *query_rows; /* each matrix's tokens in order, skipped ones too */
    int32_t n_doc_rows, n_query_rows;
} retrieval_view;

/* *v = the view of folder `model` on text; v->p NULL when the folder does
 * not load as a fill-mask, sparse or multi-vector pipeline (a plain
 * encoder). 0, or -1 with a message in err (n bytes) and *v empty. */
int retrieval_view_build(const char *model, const char *text, retrieval_view *v, char *err,
                         size_t n);
void retrieval_view_free(retrieval_view *v);

/* The token text of id (the pipeline's tokenizer), "?" for none. */
const char *retrieval_token(const retrieval_view *v, int32_t id);

/* The view's steps, printed after the encoder's, numbered from *step on. */
void retrieval_view_print(const retrieval_view *v, int *step, int color);

#endif
