/* mlm_head.c — the masked-LM prediction head as transformers computes it
 * (models/bert/modeling_bert.py BertPredictionHeadTransform.forward then
 * BertLMPredictionHead.forward; RobertaLMHead, DistilBertForMaskedLM,
 * ElectraGeneratorPredictions, ModernBertPredictionHead the same steps with
 * their own names): dense, activation, LayerNorm, then the decoder and its
 * bias. Both products are cblas_sgemm (tf__dense_forward, tf__linear). */
#include "mlm_head.h"

#include "kernels.h"
#include "linear.h"

void tf__mlm_head_logits(const tf__mlm_head *h, const float *hidden, size_t T, float *scratch,
                         float *logits)
{
    const float *x = hidden; /* (T, E): what the decoder reads */
    if (h->dense_w) {
        tf__dense_forward(scratch, hidden, h->dense_w, h->dense_b, T, h->E, h->D, h->act);
        x = scratch;
    }
    if (h->norm_w) {
        tf__layernorm_rows(scratch, x, h->norm_w, h->norm_b, T, h->E, h->norm_eps);
        x = scratch;
    }
    tf__linear(logits, x, h->decoder_w, h->decoder_b, T, h->V, h->E); /* (T, V) */
}
