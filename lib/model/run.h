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

typedef struct tf__run {
    const tf_config *cfg;
    const tf__weights *w;
    const tf_forward_args *args;
    tf__batch batch;
    tf__scratch s;
    tf__attn_mask mask;
    tf__tracer tracer;
    tf__schedule sched; /* the call's threads (tf__schedule_begin) */
} tf__run;

#endif
