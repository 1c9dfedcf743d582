/* nonfinite.h — finding the first value of a forward pass that is NaN or
 * infinite although the inputs it came from were finite (float32 overflow),
 * so the pass can stop and name it instead of returning a silent NaN. */
#ifndef TF_NONFINITE_H
#define TF_NONFINITE_H

#include "attention.h"
#include "batch.h"
#include "schedule.h"
#include "tfenc.h"
#include "trace.h"

/* What explains a non-finite value: a sequence whose input vectors
 * (input_embeds) hold NaN or an infinity carries it on, as documented; in
 * every other sequence one is an overflow. The quick scans of the usual,
 * all-finite case run on the call's threads (sched). */
typedef struct tf__nonfinite_scope {
    const tf_forward_args *args;
    const tf_config *cfg; /* which layers are local (their windows) */
    const tf__batch *batch;
    const tf__attn_mask *mask; /* the call's: causal, ALiBi's slopes, the relative bias
                                 (tf__layer_prepare's) */
    size_t D;
    const tf__schedule *sched;
} tf__nonfinite_scope;

/* A non-finite value: the tensor (a trace event's name), the position in its
 * [B, ...] layout, the value. */
typedef struct tf__nonfinite {
    char tensor[TF_TRACE_NAME_MAX];
    const char *dim_names; /* static, e.g. "B,T,D" */
    int32_t rank;
    int64_t index[TF_MAX_RANK];
    float value;
} tf__nonfinite;

/* Whether rows (N, W), the tensor tf__trace_name(name, layer), hold a
 * non-finite value in a sequence whose inputs are finite; if so *nf says
 * the first (index [b, t, w] in the [B, T, W] layout). One vectorised scan,
 * split over the call's threads, when every value is finite. */
int tf__nonfinite_rows(tf__nonfinite *nf, const tf__nonfinite_scope *scope, const char *name,
                       int32_t layer, const float *rows, size_t W, const char *dim_names);

/* The same for a tensor laid out [B, ...] (dim_names "B,...") or without a
 * batch dimension (then any non-finite value counts); in attn.scores a -inf
 * that a mask put there does not count. */
int tf__nonfinite_tensor(tf__nonfinite *nf, const tf__nonfinite_scope *scope, const char *name,
                         int32_t rank, const int64_t *dims, const char *dim_names,
                         const float *data);

/* Whether layer `layer`'s attention scores, from its Q | K | V in qkv (N,
 * 3D) (Q and K rotated, with rotary positions), overflowed float32 where a
 * query reads them (+inf turns into NaN, but -inf would silently act as a
 * masked key); if so *nf names the first, in attn.scores. A score is what
 * attention computes: q . k, then / sqrt(d_k), then the relative position
 * bias and ALiBi's -m_h |i - j| added in float32 (the caller's additive mask
 * is not: a very negative value there is how masks are written). Bounds from
 * the largest |q| and |k| (one pass split over the call's threads; then per
 * head from the rows' norms) and the largest bias skip what cannot come
 * near the limit. */
int tf__nonfinite_scores(tf__nonfinite *nf, const tf__nonfinite_scope *scope, int32_t layer,
                         const float *qkv, size_t H);

/* A trace callback that keeps the first event holding a non-finite value
 * that the inputs do not explain; user_data is a tf__nonfinite_probe. */
typedef struct tf__nonfinite_probe {
    tf__nonfinite_scope scope;
    int found;
    tf__nonfinite first;
} tf__nonfinite_probe;
void tf__nonfinite_trace(const tf_trace_event *event, void *user_data);

/* Fails with TF_ERR_UNSUPPORTED, the message naming nf's tensor, position
 * and value. */
tf_status tf__nonfinite_fail(const tf__nonfinite *nf);

#endif
