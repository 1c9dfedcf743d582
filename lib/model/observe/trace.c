/* trace.c — the trace callback's events and their buffers. */
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "checked.h"
#include "config.h"
#include "error.h"

/* The element counts of the trace buffers (see tf__tracer) and their bytes;
 * 0 when a size overflows. */
static int tracer_sizes(const tf_config *cfg, const tf__batch *batch, size_t *buf_n,
                        size_t *hidden_n, size_t *attn_n, size_t *bytes)
{
    const size_t B = (size_t)batch->B, T = (size_t)batch->T, H = (size_t)cfg->n_heads;
    const size_t D = (size_t)cfg->d_model, F = (size_t)cfg->d_ff;
    const size_t E = (size_t)tf__embed_width(cfg), DF = D > F ? D : F;
    const size_t hidden_width = cfg->ffn_gated ? 2 * F : F;
    size_t total;
    return tf__mul_size(B * T, DF > E ? DF : E, buf_n) &&
        tf__mul_size(batch->N, hidden_width, hidden_n) && tf__mul_size(B * H, T, attn_n) &&
        tf__mul_size(*attn_n, T, attn_n) && tf__add_size(*buf_n, *hidden_n, &total) &&
        tf__add_size(total, *attn_n, &total) && tf__add_size(total, *attn_n, &total) &&
        tf__mul_size(total, sizeof(float), bytes);
}

size_t tf__tracer_bytes(const tf_config *cfg, const tf__batch *batch)
{
    size_t buf_n, hidden_n, attn_n, bytes;
    return tracer_sizes(cfg, batch, &buf_n, &hidden_n, &attn_n, &bytes) ? bytes : 0;
}

tf_status tf__tracer_init(tf__tracer *tr, const tf_forward_args *a, const tf_config *cfg,
                          const tf__batch *batch)
{
    memset(tr, 0, sizeof *tr);
    if (!a->trace)
        return TF_OK;
    size_t buf_n, hidden_n, attn_n, bytes;
    if (!tracer_sizes(cfg, batch, &buf_n, &hidden_n, &attn_n, &bytes))
        return tf__fail(TF_ERR_OUT_OF_MEMORY,
                        "trace: buffers for batch %d x seq_len %d overflow "
                        "size_t",
                        (int)batch->B, (int)batch->T);
    tr->buf = tf__malloc(bytes);
    if (!tr->buf)
        return tf__fail(TF_ERR_OUT_OF_MEMORY,
                        "trace: cannot allocate %zu bytes for batch %d x "
                        "seq_len %d",
                        bytes, (int)batch->B, (int)batch->T);
    tr->ffn_hidden = tr->buf + buf_n;
    tr->scores = tr->ffn_hidden + hidden_n;
    tr->weights = tr->scores + attn_n;
    tr->fn = a->trace;
    tr->user_data = a->trace_user_data;
    tr->batch = batch;
    tr->D = cfg->d_model;
    tr->H = cfg->n_heads;
    return TF_OK;
}

void tf__tracer_free(tf__tracer *tr)
{
    tf__free(tr->buf);
    memset(tr, 0, sizeof *tr);
}

const char *tf__trace_name(char *buf, size_t size, const char *name, int32_t layer)
{
    if (layer < 0)
        return name;
    snprintf(buf, size, "layers.%d.%s", (int)layer, name);
    return buf;
}

void tf__trace_emit(tf__tracer *tr, const char *name, int32_t layer, int32_t rank,
                    const int64_t *dims, const char *dim_names, const float *data)
{
    char full[TF_TRACE_NAME_MAX];
    tf_trace_event ev = {.struct_size = sizeof ev,
                         .name = tf__trace_name(full, sizeof full, name, layer),
                         .layer = layer,
                         .rank = rank,
                         .dim_names = dim_names,
                         .data = data};
    for (int32_t i = 0; i < rank; i++)
        ev.dims[i] = dims[i];
    tr->fn(&ev, tr->user_data);
}

void tf__trace_columns(tf__tracer *tr, const char *name, int32_t layer, const float *rows,
                       size_t ld, size_t W, const char *dim_names)
{
    const tf__batch *bt = tr->batch;
    const size_t T = (size_t)bt->T;
    for (int32_t b = 0; b < bt->B; b++) {
        const size_t len = (size_t)bt->lengths[b];
        float *seq = tr->buf + (size_t)b * T * W; /* [T, W] */
        for (size_t t = 0; t < len; t++)
            memcpy(seq + t * W, rows + (bt->row_start[b] + t) * ld, W * sizeof *seq);
        memset(seq + len * W, 0, (T - len) * W * sizeof *seq);
    }
    const int64_t dims[3] = {bt->B, (int64_t)T, (int64_t)W};
    tf__trace_emit(tr, name, layer, 3, dims, dim_names, tr->buf);
}

void tf__trace_rows(tf__tracer *tr, const char *name, int32_t layer, const float *rows, size_t W,
                    const char *dim_names)
{
    tf__trace_columns(tr, name, layer, rows, W, W, dim_names);
}

void tf__trace_heads(tf__tracer *tr, const char *name, int32_t layer, const float *qkv, int which)
{
    const tf__batch *bt = tr->batch;
    const size_t T = (size_t)bt->T, H = (size_t)tr->H, D = (size_t)tr->D, dk = D / H;
    for (int32_t b = 0; b < bt->B; b++) {
        const size_t len = (size_t)bt->lengths[b];
        for (size_t h = 0; h < H; h++) {
            float *dst = tr->buf + ((size_t)b * H + h) * T * dk; /* [T, d_k] */
            const float *src = qkv + bt->row_start[b] * 3 * D + (size_t)which * D + h * dk;
            for (size_t t = 0; t < len; t++)
                memcpy(dst + t * dk, src + t * 3 * D, dk * sizeof *dst);
            memset(dst + len * dk, 0, (T - len) * dk * sizeof *dst);
        }
    }
    const int64_t dims[4] = {bt->B, (int64_t)H, (int64_t)T, (int64_t)dk};
    tf__trace_emit(tr, name, layer, 4, dims, "B,H,T,d_k", tr->buf);
}
