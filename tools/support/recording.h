/* recording.h — every trace event of one forward call, copied. */
#ifndef TFENC_RECORDING_H
#define TFENC_RECORDING_H

#include <stddef.h>

#include "tfenc.h"

typedef struct recorded {
    char name[64];
    char dim_names[32];
    int32_t layer, rank;
    int64_t dims[TF_MAX_RANK];
    size_t count;
    float *data;
} recorded;

typedef struct recording {
    recorded *events;
    size_t n, cap;
    int out_of_memory;
} recording;

/* Appends a copy of the event to the recording (a tf_trace_fn helper). */
void recording_add(recording *r, const tf_trace_event *event);
/* The event called name, or NULL. */
const recorded *recording_find(const recording *r, const char *name);
void recording_free(recording *r);

#endif
