/* workspace.h — per-call scratch buffers, carved out of one tf_workspace
 * allocation. */
#ifndef TF_WORKSPACE_H
#define TF_WORKSPACE_H

#include "threadpool.h"
#include "tfenc.h"

/* Query rows per attention block for a sequence of len tokens and H heads:
 * as many as keep the block's (rows, len) scores within
 * TF_ATTENTION_BLOCK_FLOATS (4 MiB: QK^T and attn.V then pack each head's
 * K and V once per 256 query rows at T = 4096 rather than per 64; measured
 * on one BERT-base layer against 1 MiB, alternating: 1.13x at T = 4096,
 * 1.055x at 2048, 1.03x at 1024; 2 MiB and 8 MiB were slower), and few
 * enough that one sequence's heads x blocks give each of the pool's
 * threads two tasks; never under 64 rows, never more than len. So attention
 * memory stays O(len), never O(len^2). The rows depend on len, H and the
 * machine's cores (tf__pool_width), never on a call's thread count. */
#define TF_ATTENTION_BLOCK_FLOATS ((size_t)1 << 20)
#define TF_ATTENTION_MIN_BLOCK_ROWS ((size_t)64)
static inline size_t tf__attention_block_rows(size_t len, size_t H)
{
    const size_t in_budget = TF_ATTENTION_BLOCK_FLOATS / (len ? len : 1);
    const size_t blocks_wanted = (2 * (size_t)tf__pool_width() + H - 1) / (H ? H : 1);
    const size_t for_threads = (len + blocks_wanted - 1) / blocks_wanted;
    size_t rows = in_budget < for_threads ? in_budget : for_threads;
    rows = rows < TF_ATTENTION_MIN_BLOCK_ROWS ? TF_ATTENTION_MIN_BLOCK_ROWS : rows;
    return rows < len ? rows : len;
}

/* Floats one thread's block of scores takes for sequences of up to L
 * tokens: at least tf__attention_block_rows(len, H) * len for every len <= L
 * (which rows(L) * L is not: L = 1100 gives 953 rows, len 1099 954). */
static inline size_t tf__attention_block_floats(size_t L)
{
    const size_t in_budget = (TF_ATTENTION_BLOCK_FLOATS + L - 1) / (L ? L : 1); /* rounded up */
    const size_t rows = in_budget < TF_ATTENTION_MIN_BLOCK_ROWS ? TF_ATTENTION_MIN_BLOCK_ROWS
                                                                : in_budget;
    return L * (rows < L ? rows : L);
}

/* Rows per feed-forward chunk: the hidden activations are (chunk, F). */
#define TF_FFN_CHUNK_ROWS 512

struct tf_workspace {
    void *mem;
    size_t bytes;
};

/* Views of one forward call's scratch (N = real tokens). */
typedef struct tf__scratch {
    int32_t *lengths;  /* [B] */
    size_t *row_start; /* [B] */
    float *x;          /* (N, D) the hidden state, updated layer by layer */
    float *embed;      /* (N, E) the embeddings before embed.project (E = the
                           config's embedding_dim other than D; else no rows) */
    float *tmp;        /* (N, max(D, E)) a sub-layer's output, or LN(x) for
                           pre-norm; the token-type vectors (N, E) first */
    float *ctx;        /* (N, D) attention context (heads concatenated) */
    float *qkv;        /* (N, 3D) Q | K | V side by side */
    float *ffn_hidden; /* (min(N, TF_FFN_CHUNK_ROWS), F), or 2F when gated */
    float *scores;     /* (width, tf__attention_block_floats(max_len)): one block
                           per thread, width = tf__pool_width() */
    float *pos_row;    /* (max(D, E)) one positional-encoding row */
    float *pool_in;    /* (B, D) CLS rows, with a pooler */
    float *pool_out;   /* (B, D) */
    float *rotary;     /* (2, max_len, r) with rotary positions: the cos | sin tables
                           of global, then local layers (rotary.h) */
    float *alibi;      /* (H) with ALiBi positions: each head's slope */
    float *relative;   /* (H, 2 max_len - 1) with relative_buckets: each head's bias
                           for each j - i (relative_bias.h) */
} tf__scratch;

/* Bytes of scratch a call needs; returns 0 if the size overflows. */
size_t tf__scratch_bytes(const tf_config *cfg, int32_t B, int32_t max_len, size_t N);

/* Points *s into `mem` (tf__scratch_bytes(...) bytes, 64-byte aligned). */
void tf__scratch_carve(tf__scratch *s, void *mem, const tf_config *cfg, int32_t B, int32_t max_len,
                       size_t N);

/* Makes ws hold at least `bytes`; on failure ws is unchanged. */
tf_status tf__workspace_grow(tf_workspace *ws, size_t bytes);

#endif
