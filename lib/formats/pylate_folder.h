/* pylate_folder.h — a PyLate (ColBERT) folder understood: modules.json (a
 * Transformer, then Dense projections of every token), the Dense modules'
 * config.json and weights (pylate/models/Dense.py), and the settings
 * PyLate's ColBERT keeps in config_sentence_transformers.json
 * (pylate/models/colbert.py, ColBERT.__init__ and _parse_model_config), with
 * PyLate's defaults where a field is absent or null. */
#ifndef TF_PYLATE_FOLDER_H
#define TF_PYLATE_FOLDER_H

#include <stddef.h>
#include <stdint.h>

#include "dense.h"
#include "tfenc.h"

/* PyLate's defaults (ColBERT.__init__). */
#define TF_PYLATE_QUERY_PREFIX "[Q] "
#define TF_PYLATE_DOCUMENT_PREFIX "[D] "
#define TF_PYLATE_QUERY_LENGTH 32
#define TF_PYLATE_DOCUMENT_LENGTH 180

/* One Dense module on every token: y = act(x W^T + b), plus x (use_residual
 * with in == out) or x R^T (use_residual with in != out). */
typedef struct tf__pylate_dense {
    int32_t in, out;          /* in_features, out_features */
    tf__dense_activation act; /* activation_function */
    int32_t use_residual;
    float *w;          /* linear.weight (out, in), owned */
    float *b;          /* linear.bias (out), owned, or NULL (bias false) */
    float *residual_w; /* residual.weight (out, in), owned: use_residual and in != out */
} tf__pylate_dense;

typedef struct tf__pylate_folder {
    char *query_prefix, *document_prefix; /* owned; "" = no prefix token */
    int32_t query_length, document_length;
    int32_t do_query_expansion;         /* queries padded with the mask token to query_length */
    int32_t attend_to_expansion_tokens; /* 0 when do_query_expansion is */
    char **skiplist_words;              /* [n_skiplist] owned */
    size_t n_skiplist;
    int32_t do_lower_case;   /* sentence_bert_config.json's */
    tf__pylate_dense *dense; /* [n_dense] in modules.json's order, at least one */
    size_t n_dense;
} tf__pylate_folder;

/* *found = 1 when dir is a PyLate folder: a modules.json module of a
 * "pylate." type, or config_sentence_transformers.json's model_type
 * "ColBERT". */
tf_status tf__pylate_is_folder(const char *dir, int *found);

/* Reads dir's PyLate files for an encoder of hidden_size whose positions
 * bound a sequence at max_positions tokens (0: no bound). Every field has
 * the type PyLate takes, or TF_ERR_FORMAT naming the file, the field and
 * the value; modules other than Transformer, Dense, Pooling and Normalize
 * (which PyLate drops), an activation or a features key PyLate's Dense does
 * not run, are TF_ERR_UNSUPPORTED naming them. On failure nothing stays
 * allocated. */
tf_status tf__pylate_folder_read(tf__pylate_folder *f, const char *dir, int32_t hidden_size,
                                 int32_t max_positions);
void tf__pylate_folder_free(tf__pylate_folder *f);

#endif
