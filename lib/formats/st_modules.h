/* st_modules.h — a sentence-transformers folder understood: modules.json
 * followed module by module (Transformer, Pooling, Dense, Normalize), and
 * config_sentence_transformers.json's prompts and similarity function. */
#ifndef TF_ST_MODULES_H
#define TF_ST_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "dense.h"
#include "tfenc.h"

/* A module after Pooling. */
typedef struct tf__st_step {
    int32_t normalize;        /* 1: Normalize; 0: Dense */
    int32_t in, out;          /* Dense: in_features, out_features */
    tf__dense_activation act; /* Dense: activation_function */
    float *w;                 /* Dense: (out, in), owned */
    float *b;                 /* Dense: (out), owned, or NULL (bias false) */
} tf__st_step;

typedef struct tf__st_prompt {
    char *name, *text; /* owned */
} tf__st_prompt;

typedef struct tf__st_pipeline {
    int32_t max_seq_length; /* sentence_bert_config.json's, or 0 */
    int32_t do_lower_case;  /* sentence_bert_config.json's, or 0 */
    uint32_t pooling_modes; /* bit 1 << tf_pooling for each mode on */
    int32_t include_prompt; /* Pooling's, default 1 */
    int32_t pooled_dim;     /* modes x hidden size */
    tf__st_step *steps;     /* [n_steps] */
    size_t n_steps;
    tf__st_prompt *prompts; /* [n_prompts] */
    size_t n_prompts;
    int32_t default_prompt; /* index into prompts, or -1 */
    const char *similarity; /* static: "cosine", "dot", "euclidean", "manhattan" */
} tf__st_pipeline;

/* *found = 1 if dir has a modules.json, else 0. */
tf_status tf__st_is_pipeline(const char *dir, int *found);

/* Reads dir's modules and their files for an encoder of hidden_size whose
 * positions bound a sequence at max_positions tokens (0: no bound; a
 * longer max_seq_length is an error). Every inconsistency is an error naming the file (relative
 * to dir), the field and both values; every field has the type
 * sentence-transformers takes (json_file.h's rule), and a module's path
 * stays in dir as written (tf__path_leaves). On failure nothing stays
 * allocated. */
tf_status tf__st_pipeline_read(tf__st_pipeline *p, const char *dir, int32_t hidden_size,
                               int32_t max_positions);
void tf__st_pipeline_free(tf__st_pipeline *p);

/* A Dense module's activation_function (required): its full torch name
 * (torch.nn.modules.linear.Identity, torch.nn.modules.activation.Tanh, ReLU,
 * Sigmoid, GELU), else TF_ERR_UNSUPPORTED naming label and the value. */
struct cJSON;
tf_status tf__st_read_activation(const struct cJSON *root, const char *label,
                                 tf__dense_activation *act);

/* dir's config_sentence_transformers.json (optional) into p: its prompts,
 * default_prompt_name and similarity_fn_name (absent or null: similarity,
 * the model class's default: "cosine" for SentenceTransformer, "dot" for
 * SparseEncoder). */
tf_status tf__st_config_read(tf__st_pipeline *p, const char *dir, const char *similarity);

/* The index of the prompt named name, or -1. */
int32_t tf__st_prompt_find(const tf__st_pipeline *p, const char *name);

#endif
