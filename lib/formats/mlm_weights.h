/* mlm_weights.h — a *ForMaskedLM checkpoint's prediction head
 * (tf__mlm_head, mlm_head.h) read from its folder, with each family's
 * tensor names as transformers' modeling_*.py gives them:
 *   BertForMaskedLM        cls.predictions.transform.{dense,LayerNorm},
 *                          cls.predictions.decoder, cls.predictions.bias
 *   Roberta/XLMRoberta/CamembertForMaskedLM, MPNetForMaskedLM
 *                          lm_head.{dense,layer_norm,decoder}, lm_head.bias
 *   DistilBertForMaskedLM  vocab_transform, vocab_layer_norm, vocab_projector
 *   ElectraForMaskedLM     generator_predictions.{dense,LayerNorm},
 *                          generator_lm_head
 *   ModernBertForMaskedLM  head.{dense,norm}, decoder
 * The decoder is the checkpoint's own "<decoder>.weight" when it has one,
 * else (config.json tie_word_embeddings true, the default) the encoder's
 * word embeddings, read in place. Older files' names are read too: the
 * LayerNorm's gamma and beta, BERT's and RoBERTa's bias as
 * "<decoder>.bias". */
#ifndef TF_MLM_WEIGHTS_H
#define TF_MLM_WEIGHTS_H

#include <stdint.h>

#include "mlm_head.h"
#include "tfenc.h"

struct tf__hf_family;

typedef struct tf__mlm_weights {
    tf__mlm_head head; /* views into the buffers below, the decoder into enc's
                          word embeddings when tied: valid while enc is */
    int32_t tied;      /* 1: head.decoder_w is enc's word embeddings */
    float *dense_w, *dense_b, *norm_w, *norm_b; /* owned, or NULL */
    float *decoder_w;                           /* owned (untied), or NULL (tied) */
    float *decoder_b;                           /* owned, or NULL */
} tf__mlm_weights;

/* The masked-LM head of the folder dir (its config.json and
 * model.safetensors) whose encoder enc is (tf_encoder_load(dir)). A
 * config.json whose model_type has no masked-LM head here, a config value
 * the head cannot run (an activation) is TF_ERR_UNSUPPORTED naming the key
 * and the value; a tensor missing or of another shape TF_ERR_FORMAT /
 * TF_ERR_SHAPE naming it and where its shape comes from. On failure
 * nothing stays allocated and *out is zeroed. */
tf_status tf__mlm_weights_read(const char *dir, const tf_encoder *enc, tf__mlm_weights *out);

/* 1 if family (hf_family.h) has a masked-LM head here (the list above). */
int tf__mlm_weights_known(const struct tf__hf_family *family);

/* Frees what w owns and zeroes it; a zeroed w is a no-op. */
void tf__mlm_weights_free(tf__mlm_weights *w);

#endif
