/* run.h — the state of one forward call: what its steps compute with and
 * into, and what its observers read. */
#ifndef TF_RUN_H
#define TF_RUN_H

#include "attention.h"
#include "batch.h"
#include "schedule.h"
#include "trace.h"
#include "weights.h"
#include "workspace.h"

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

#endif
