/* trace.h — hands every intermediate tensor to the caller's callback, laid
 * out [B, T, ...] with padded positions 0. Costs nothing when off. */
#ifndef TF_TRACE_H
#define TF_TRACE_H

#include "batch.h"
#include "tfenc.h"

typedef struct tf__tracer {
    tf_trace_fn fn; /* NULL: tracing is off and nothing below exists */
    void *user_data;
    const tf__batch *batch;
    int32_t D, H;
    float *buf;        /* [B, T, max(D, F, E)] where events are laid out;
                                the one allocation the three below live in */
    float *ffn_hidden; /* (N, F), or (N, 2F) when gated: the whole FFN
                                hidden layer at once */
    float *scores;     /* [B, H, T, T] */
    float *weights;    /* [B, H, T, T] */
} tf__tracer;

/* Sets up tracing for one call if args->trace is set (allocating its
 * buffers); otherwise leaves it off. */
tf_status tf__tracer_init(tf__tracer *tr, const tf_forward_args *a, const tf_config *cfg,
                          const tf__batch *batch);
void tf__tracer_free(tf__tracer *tr);

/* Bytes tf__tracer_init allocates for a call, or 0 when that overflows. */
size_t tf__tracer_bytes(const tf_config *cfg, const tf__batch *batch);

static inline int tf__tracing(const tf__tracer *tr)
{
#ifdef TF_TRACE_COMPILED_OUT /* only for bench/trace_overhead.sh's baseline */
    (void)tr;
    return 0;
#else
    return tr->fn != NULL;
#endif
}

/* Room for any event's full name. */
#define TF_TRACE_NAME_MAX 64

/* An event's full name: `name` itself when layer < 0, else
 * "layers.<layer>.<name>" written into buf (size bytes). */
const char *tf__trace_name(char *buf, size_t size, const char *name, int32_t layer);

/* Emits an event named tf__trace_name(name, layer). */
void tf__trace_emit(tf__tracer *tr, const char *name, int32_t layer, int32_t rank,
                    const int64_t *dims, const char *dim_names, const float *data);

/* Emits packed rows (N, W) as [B, T, W]. */
void tf__trace_rows(tf__tracer *tr, const char *name, int32_t layer, const float *rows, size_t W,
                    const char *dim_names);

/* Emits the first W columns of packed rows (N, ld) as [B, T, W]. */
void tf__trace_columns(tf__tracer *tr, const char *name, int32_t layer, const float *rows,
                       size_t ld, size_t W, const char *dim_names);

/* Emits part `which` (0 = Q, 1 = K, 2 = V) of qkv (N, 3D) as [B, H, T, d_k]. */
void tf__trace_heads(tf__tracer *tr, const char *name, int32_t layer, const float *qkv, int which);

#endif
