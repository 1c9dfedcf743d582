/* multi_vector.h — a PyLate (ColBERT) pipeline's state: the folder's
 * settings (pylate_folder.h) and the token ids they name in its tokenizer,
 * and the calls pipeline.c and pipeline_run.c hand a multi-vector
 * pipeline to (pipeline_embed_tokens.c). */
#ifndef TF_MULTI_VECTOR_H
#define TF_MULTI_VECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "pylate_folder.h"
#include "tfenc.h"

typedef struct tf__multi_vector {
    tf__pylate_folder folder;
    int32_t query_prefix_id, document_prefix_id; /* -1: no prefix token */
    int32_t expansion_id;  /* what pads queries: the mask token (ColBERT.__init__'s pad_token_id) */
    int32_t *skiplist_ids; /* [n_skiplist] the skiplist words' ids (convert_tokens_to_ids) */
    size_t n_skiplist;
} tf__multi_vector;

/* p->multi_vector from a PyLate folder dir before the tokenizer loads:
 * kind, dim, and the settings the tokenizer takes (p->st.max_seq_length =
 * document_length, do_lower_case). */
tf_status tf__multi_vector_load(tf_pipeline *p, const char *dir);
/* The token ids of p->multi_vector's settings, once p->tok has loaded. */
tf_status tf__multi_vector_resolve(tf_pipeline *p, const char *dir);
void tf__multi_vector_free(tf__multi_vector *m); /* NULL is a no-op */

/* tf_pipeline_score of a multi-vector pipeline: out[i] = MaxSim(texts[i]
 * as a query, pairs[i] as a document). a: the caller's args, read. */
tf_status tf__multi_vector_score(const tf_pipeline *p, const tf_pipeline_args *a);

#endif
