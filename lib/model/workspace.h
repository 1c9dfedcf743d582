/* workspace.h — per-call scratch buffers, carved out of one tf_workspace
 * allocation. */
#ifndef TF_WORKSPACE_H
#define TF_WORKSPACE_H

#include "tfenc.h"

/* Query rows per attention block for a sequence of len tokens: the whole
 * sequence while its (rows, len) scores fit in 1 MiB (one core's L2 on the
 * machines measured, so QK^T, masks, softmax and .V of a block run out of
 * cache), fewer beyond (never under 64), so attention memory stays O(len),
 * never O(len^2). */
#define TF_ATTENTION_BLOCK_FLOATS ((size_t)1 << 18)
static inline size_t tf_attention_block_rows(size_t len)
{
    const size_t rows = TF_ATTENTION_BLOCK_FLOATS / (len ? len : 1);
    const size_t at_least = rows < 64 ? 64 : rows;
    return at_least < len ? at_least : len;
}
/* Rows per feed-forward chunk: the hidden activations are (chunk, F). */
#define TF_FFN_CHUNK_ROWS 512

struct tf_workspace {
    void *mem;
    size_t bytes;
};

/* Views of one forward call's scratch (N = real tokens). */
typedef struct tf_scratch {
    int32_t *lengths;   /* [B] */
    size_t *row_start;  /* [B] */
    float *x;           /* (N, D) the hidden state, updated layer by layer */
    float *tmp;         /* (N, D) a sub-layer's output, or LN(x) for pre-norm */
    float *ctx;         /* (N, D) attention context (heads concatenated) */
    float *qkv;         /* (N, 3D) Q | K | V side by side */
    float *ffn_hidden;  /* (min(N, TF_FFN_CHUNK_ROWS), F), or 2F when gated */
    float *scores;      /* (width, tf_attention_block_rows(max_len), max_len): one
                           block per thread, width = tf_pool_width() */
    float *pos_row;     /* (D) one positional-encoding row */
    float *pool_in;     /* (B, D) CLS rows, with a pooler */
    float *pool_out;    /* (B, D) */
    float *rotary;      /* (2, max_len, r) with rotary positions: the cos | sin tables
                           of global, then local layers (rotary.h) */
    float *alibi;       /* (H) with ALiBi positions: each head's slope */
} tf_scratch;

/* Bytes of scratch a call needs; returns 0 if the size overflows. */
size_t tf_scratch_bytes(const tf_config *cfg, int32_t B, int32_t max_len, size_t N);

/* Points *s into `mem` (tf_scratch_bytes(...) bytes, 64-byte aligned). */
void tf_scratch_carve(tf_scratch *s, void *mem, const tf_config *cfg, int32_t B, int32_t max_len,
                      size_t N);

/* Makes ws hold at least `bytes`; on failure ws is unchanged. */
tf_status tf_workspace_grow(tf_workspace *ws, size_t bytes);

#endif
