/* layer.h — one encoder layer, and the state of one forward call. */
#ifndef TF_LAYER_H
#define TF_LAYER_H

#include "attention.h"
#include "batch.h"
#include "schedule.h"
#include "trace.h"
#include "weights.h"
#include "workspace.h"

/* Everything one forward call works with. */
typedef struct tf_run {
    const tf_config *cfg;
    const tf_weights *w;
    const tf_forward_args *args;
    tf_batch batch;
    tf_scratch s;
    tf_attn_mask mask;
    tf_tracer tracer;
    tf_schedule sched; /* the call's threads (tf_schedule_begin) */
} tf_run;

/* What every layer of a call shares, computed once: the rotary tables, the
 * ALiBi slopes and the relative bias of each head per distance (into
 * run->s, the slopes and the biases also into run->mask). */
void tf_layer_prepare(tf_run *run);

/* run->s.x (N, D) = layer l applied to run->s.x. attn_weights (B, H, T, T)
 * receives the softmax weights, or is NULL. */
void tf_layer_forward(tf_run *run, int32_t l, float *attn_weights);

#endif
