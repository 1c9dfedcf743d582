/* st_sparse.h — a sentence-transformers 5 SparseEncoder folder understood:
 * modules.json with an MLMTransformer and a SpladePooling, or one Router
 * (router_config.json) whose document route is those two and whose query
 * route is the same or an inference-free SparseStaticEmbedding. */
#ifndef TF_ST_SPARSE_H
#define TF_ST_SPARSE_H

#include <stdint.h>

#include "tfenc.h"

/* SpladePooling.py's pooling_strategy and activation_function. */
typedef enum tf__splade_strategy { TF_SPLADE_MAX, TF_SPLADE_SUM } tf__splade_strategy;
typedef enum tf__splade_activation {
    TF_SPLADE_RELU,      /* "relu": log1p(relu(logits)) */
    TF_SPLADE_LOG1P_RELU /* "log1p_relu": log1p(log1p(relu(logits))) */
} tf__splade_activation;

/* What a Router sends queries through. */
typedef enum tf__sparse_query_route {
    TF_SPARSE_QUERY_DOCUMENT, /* no Router, or its query route is the document route */
    TF_SPARSE_QUERY_NONE,     /* a Router without a "query" route */
    TF_SPARSE_QUERY_STATIC    /* a SparseStaticEmbedding */
} tf__sparse_query_route;

typedef struct tf__st_sparse {
    char *mlm_dir;                    /* the MLMTransformer's folder (dir or below), owned */
    int32_t max_seq_length;           /* its sentence_bert_config.json's, or 0 */
    int32_t do_lower_case;            /* likewise, or 0 */
    tf__splade_strategy strategy;     /* SpladePooling's */
    tf__splade_activation activation; /* SpladePooling's */
    int32_t pooling_dim;              /* its word_embedding_dimension, or 0 (not said) */
    char *pooling_label;              /* its config.json, relative to dir, owned */
    tf__sparse_query_route query;
    char *static_dir;     /* SparseStaticEmbedding's folder, owned, or NULL */
    char *static_label;   /* its model.safetensors relative to dir, owned, or NULL */
    float *static_weight; /* [vocab] (tf__st_sparse_check), owned, or NULL */
    const char *router;   /* "router_config.json" (as read, for messages) or NULL */
} tf__st_sparse;

/* *found = 1 if dir's modules.json starts with an MLMTransformer or a
 * Router (the folder is a SparseEncoder's), else 0 (none, or another
 * sentence-transformers folder). */
tf_status tf__st_sparse_probe(const char *dir, int *found);

/* Reads dir's modules and their configuration files (not the tensors).
 * A module type or a value upstream does not have, or a layout this
 * library does not run, is an error naming the file, the field and the
 * value; a module's path stays in dir as written (tf__path_leaves). On
 * failure nothing stays allocated. */
tf_status tf__st_sparse_read(tf__st_sparse *sp, const char *dir);

/* Checks SpladePooling's word_embedding_dimension against the masked-LM
 * head's vocabulary (vocab rows) and reads the SparseStaticEmbedding's
 * weight [vocab] when there is one. */
tf_status tf__st_sparse_check(tf__st_sparse *sp, int32_t vocab);

/* Frees what sp owns and zeroes it; a zeroed sp is a no-op. */
void tf__st_sparse_free(tf__st_sparse *sp);

#endif
