/* workspace.c — sizing and carving the scratch of a forward call. */
#include "workspace.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "batch.h"
#include "checked.h"
#include "config.h"
#include "encoder.h"
#include "error.h"
#include "rotary.h"
#include "threadpool.h"

#define TF_SCRATCH_ALIGN 64

enum {
    R_LENGTHS,
    R_ROW_START,
    R_X,
    R_EMBED,
    R_TMP,
    R_CTX,
    R_QKV,
    R_FFN,
    R_SCORES,
    R_POS,
    R_POOL_IN,
    R_POOL_OUT,
    R_ROTARY,
    R_ALIBI,
    R_RELATIVE,
    R_COUNT
};

/* Byte offset of each region and the total; 0 total on overflow. */
static size_t layout(size_t offsets[R_COUNT], const tf_config *cfg, int32_t B, int32_t max_len,
                     size_t N)
{
    const size_t D = (size_t)cfg->d_model, F = (size_t)cfg->d_ff, Bz = (size_t)B;
    const size_t E = (size_t)tf__embed_width(cfg), wide = E > D ? E : D;
    const size_t projected = tf__embed_projects(cfg) ? N : 0; /* rows of the E-wide sum */
    const size_t L = (size_t)max_len;
    const size_t chunk = N < TF_FFN_CHUNK_ROWS ? N : TF_FFN_CHUNK_ROWS;
    const size_t blocks = (size_t)tf__pool_width(); /* one a thread */
    const size_t pool = cfg->pooler ? Bz : 0;
    const size_t ffn_width = cfg->ffn_gated ? 2 * F : F;
    const size_t rotary = cfg->position == TF_POSITION_ROTARY ? 2 * L : 0; /* rows of r */
    const size_t slopes = cfg->position == TF_POSITION_ALIBI ? (size_t)cfg->n_heads : 0;
    const size_t relative = cfg->relative_buckets && L ? (size_t)cfg->n_heads : 0; /* rows */
    const size_t f = sizeof(float);
    const size_t shape[R_COUNT][3] = {
        /* rows, columns, bytes per element */
        [R_LENGTHS] = {Bz, 1, sizeof(int32_t)},
        [R_ROW_START] = {Bz, 1, sizeof(size_t)},
        [R_X] = {N, D, f},
        [R_EMBED] = {projected, E, f},
        [R_TMP] = {N, wide, f},
        [R_CTX] = {N, D, f},
        [R_QKV] = {N, 3 * D, f},
        [R_FFN] = {chunk, ffn_width, f},
        [R_SCORES] = {blocks, tf__attention_block_floats(L), f},
        [R_POS] = {1, wide, f},
        [R_POOL_IN] = {pool, D, f},
        [R_POOL_OUT] = {pool, D, f},
        [R_ROTARY] = {rotary, tf__rotary_dim(cfg), f},
        [R_ALIBI] = {slopes, 1, f},
        [R_RELATIVE] = {relative, 2 * L - 1, f},
    };
    size_t total = 0;
    for (int r = 0; r < R_COUNT; r++) {
        size_t bytes;
        if (!tf__mul_size(shape[r][0], shape[r][1], &bytes) ||
            !tf__mul_size(bytes, shape[r][2], &bytes) ||
            !tf__add_size(bytes, TF_SCRATCH_ALIGN - 1, &bytes))
            return 0;
        bytes -= bytes % TF_SCRATCH_ALIGN;
        offsets[r] = total;
        if (!tf__add_size(total, bytes, &total))
            return 0;
    }
    return total ? total : TF_SCRATCH_ALIGN;
}

size_t tf__scratch_bytes(const tf_config *cfg, int32_t B, int32_t max_len, size_t N)
{
    size_t offsets[R_COUNT];
    return layout(offsets, cfg, B, max_len, N);
}

void tf__scratch_carve(tf__scratch *s, void *mem, const tf_config *cfg, int32_t B, int32_t max_len,
                       size_t N)
{
    size_t o[R_COUNT];
    layout(o, cfg, B, max_len, N);
    char *base = mem;
    s->lengths = (int32_t *)(void *)(base + o[R_LENGTHS]);
    s->row_start = (size_t *)(void *)(base + o[R_ROW_START]);
    s->x = (float *)(void *)(base + o[R_X]);
    s->embed = (float *)(void *)(base + o[R_EMBED]);
    s->tmp = (float *)(void *)(base + o[R_TMP]);
    s->ctx = (float *)(void *)(base + o[R_CTX]);
    s->qkv = (float *)(void *)(base + o[R_QKV]);
    s->ffn_hidden = (float *)(void *)(base + o[R_FFN]);
    s->scores = (float *)(void *)(base + o[R_SCORES]);
    s->pos_row = (float *)(void *)(base + o[R_POS]);
    s->pool_in = (float *)(void *)(base + o[R_POOL_IN]);
    s->pool_out = (float *)(void *)(base + o[R_POOL_OUT]);
    s->rotary = (float *)(void *)(base + o[R_ROTARY]);
    s->alibi = (float *)(void *)(base + o[R_ALIBI]);
    s->relative = (float *)(void *)(base + o[R_RELATIVE]);
}

tf_status tf__workspace_grow(tf_workspace *ws, size_t bytes)
{
    if (ws->bytes >= bytes)
        return TF_OK;
    void *mem = tf__aligned_alloc(TF_SCRATCH_ALIGN, bytes); /* bytes is a multiple of 64 */
    if (!mem)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "workspace: cannot allocate %zu bytes", bytes);
    tf__free(ws->mem);
    ws->mem = mem;
    ws->bytes = bytes;
    return TF_OK;
}

/* ---- Public API ---------------------------------------------------------- */

tf_status tf_workspace_create(tf_workspace **out)
{
    if (!out)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "out is NULL");
    *out = tf__calloc(1, sizeof **out);
    if (!*out)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "workspace: cannot allocate its handle");
    return TF_OK;
}

void tf_workspace_destroy(tf_workspace *ws)
{
    if (!ws)
        return;
    tf__free(ws->mem);
    tf__free(ws);
}

size_t tf_workspace_bytes(const tf_workspace *ws)
{
    return ws ? ws->bytes : 0;
}

tf_status tf_workspace_reserve(tf_workspace *ws, const tf_encoder *enc, int32_t batch,
                               int32_t seq_len)
{
    if (!ws || !enc)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL", ws ? "encoder" : "workspace");
    if (batch < 1 || seq_len < 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s: expected >= 1, got %d",
                        batch < 1 ? "batch" : "seq_len", (int)(batch < 1 ? batch : seq_len));
    tf_status s = tf__check_token_count(batch, seq_len);
    if (s)
        return s;
    const size_t N = (size_t)batch * (size_t)seq_len;
    const size_t bytes = tf__scratch_bytes(&enc->cfg, batch, seq_len, N);
    if (!bytes)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "workspace: batch %d x seq_len %d overflows size_t",
                        (int)batch, (int)seq_len);
    return tf__workspace_grow(ws, bytes);
}
