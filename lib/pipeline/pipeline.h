/* pipeline.h — the handle behind the opaque tf_pipeline, and the batches
 * its calls run. */
#ifndef TF_PIPELINE_H
#define TF_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "classifier_head.h"
#include "hf_arch.h"
#include "hf_family.h"
#include "mlm_weights.h"
#include "st_modules.h"
#include "tfenc.h"

struct tf_pipeline {
    tf_pipeline_kind kind;
    tf_encoder *enc;
    tf_config cfg;
    tf_tokenizer *tok;   /* cuts each input to max_len tokens */
    tf_tokenizer *probe; /* uncut: an input longer than max_len there was cut */
    int32_t max_len;
    int32_t truncation_error;             /* tf_pipeline_options' */
    int32_t dim;                          /* embedding: the vectors' width; heads: labels */
    tf__st_pipeline st;                   /* embedding: pooling, Dense and Normalize, prompts */
    tf__hf_arch arch;                     /* heads: labels, problem_type */
    const tf__hf_seq_head *head;          /* sequence heads: arch.head (hf_family.h) */
    float *dense_w, *dense_b;             /* heads with a dense layer: (D, D), (D) or NULL */
    float *norm_w, *norm_b;               /* heads with a LayerNorm after it: (D), (D) or NULL */
    float *cls_w;                         /* heads: the logits' Linear, (labels, D) */
    float *cls_b;                         /* heads: its bias (labels) */
    tf__head_activation score_activation; /* sequence heads: tf_pipeline_score's, as
                                            CrossEncoder's activation_fn */
    char pooling[96];                     /* embedding: its Pooling modes' names, '+' between
                                            (tf_pipeline_pooling) */
    tf__mlm_weights mlm;                  /* fill-mask: the masked-LM head (mlm_weights.h) */
    int32_t mask_id;                      /* fill-mask: the tokenizer's mask_token, -1: none */
    /* multi-vector: PyLate's settings (multi_vector.h) */
    struct tf__multi_vector *multi_vector;
    /* sparse: the SparseEncoder's modules (pipeline_sparse.c) */
    struct tf__pipeline_sparse *sparse;
    /* image-embedding, image-classifier: the tower and processor (pipeline_images.h) */
    struct tf__pipeline_images *images;
    int32_t wordpiece_subwords; /* token heads: a subword is a token longer than its
                                   span (WordPiece's "##"), else one not after a space */
};

/* One batch of inputs first..first+B tokenised and run through the encoder. */
typedef struct tf__pipeline_batch {
    tf_encoding *enc;
    int32_t B, T;
    float *hidden;    /* [B, T, D] the encoder's output */
    float *pooled;    /* [B, D] sequence heads only: what the logits' Linear reads
                                 (BERT's pooler output, or norm(act(dense(pool(hidden))))) */
    size_t truncated; /* inputs of the batch that were cut */
} tf__pipeline_batch;

/* Tokenises texts[0..n) (with pairs, or NULL), counts or refuses (per
 * p->truncation_error) the inputs cut, and runs the encoder; first is the
 * index of texts[0] among the call's inputs, for messages. On failure
 * nothing stays allocated. */
tf_status tf__pipeline_batch_run(const tf_pipeline *p, const char *const *texts,
                                 const char *const *pairs, size_t n, size_t first,
                                 int32_t n_threads, tf__pipeline_batch *b);
void tf__pipeline_batch_free(tf__pipeline_batch *b);

/* Counts b's rows that max_len cut (a row of max_len tokens that the probe
 * makes longer) into b->truncated, or refuses them when p->truncation_error;
 * texts and pairs (or NULL) are b's inputs, first the index of texts[0]. */
tf_status tf__pipeline_count_cut(const tf_pipeline *p, const char *const *texts,
                                 const char *const *pairs, size_t first, tf__pipeline_batch *b);

/* p->tok and p->probe from the folder dir (its tokenizer file and what
 * tokenizer_config.json says), cut at the limit p->cfg and o give (p->max_len). */
tf_status tf__pipeline_load_tokenizers(tf_pipeline *p, const char *dir,
                                       const tf_pipeline_options *o);

/* A head's call (score, classify, logits): batches of inputs, the logits
 * of the pooled vectors, then activation(p) on them; call names it in
 * messages. need_pairs: args.pairs is required. */
tf_status tf__pipeline_run_head(const tf_pipeline *p, const tf_pipeline_args *args, int need_pairs,
                                const char *call,
                                tf__head_activation (*activation)(const tf_pipeline *));

/* The caller's args into *a, checked for what every call needs (need_pairs:
 * args.pairs is required); writes_out 1: args.out is required; 0 (a call
 * allocating its results): args.out must be NULL and out_len 0. */
tf_status tf__pipeline_read_args(tf_pipeline_args *a, const tf_pipeline *p,
                                 const tf_pipeline_args *in, int need_pairs, int writes_out);

/* out holds n x width floats: the caller's out_len (in's) says so, or the
 * caller predates out_len (its struct_size ends before it). */
tf_status tf__pipeline_check_out_len(const tf_pipeline_args *in, const tf_pipeline_args *a,
                                     size_t width);

/* The prompt's text ("" for none) and the tokens Pooling leaves out for it
 * (include_prompt false: [CLS] and the prompt's, as Transformer.py counts
 * them: its ids without the final [SEP]). */
tf_status tf__pipeline_resolve_prompt(const tf_pipeline *p, const char *name, const char **text,
                                      int32_t *skip);

/* texts[i] with the prompt before it, [n] strings in one block (tf__free it). */
tf_status tf__pipeline_prefix_texts(const char *prompt, const char *const *texts, size_t n,
                                    char ***out);

/* A SparseEncoder folder (st_sparse.h) into p: TF_PIPELINE_SPARSE, its
 * encoder, masked-LM head (p->mlm) and modules (p->sparse); *tokenizer_dir
 * the folder of its tokenizer (the MLMTransformer's, owned by p). */
tf_status tf__pipeline_sparse_load(tf_pipeline *p, const char *dir, const char **tokenizer_dir);
void tf__pipeline_sparse_free(struct tf__pipeline_sparse *sp); /* NULL is a no-op */

/* TF_ERR_INVALID_ARGUMENT "<call>: the pipeline is a <kind>; use
 * tf_pipeline_<the call its kind has>", for a call p's kind does not have. */
tf_status tf__pipeline_wrong_kind(const tf_pipeline *p, const char *call);

#endif
