/* observe.h — watching the forward pass at the boundaries between its
 * steps. After a step, one tf__observe call names the tensor it left; the
 * trace callback gets that tensor's events (their names and layouts: one
 * table in observe.c). At the end of each stage (the embeddings, a layer,
 * the head) a checkpoint looks for non-finite values; when one finds some,
 * the locator runs the pass again, traced, to name the first tensor that
 * holds one. The steps themselves (embedding.c, layer.c, attention.c,
 * ffn.c) only compute; with tracing off an observation is one test of a
 * pointer. */
#ifndef TF_OBSERVE_H
#define TF_OBSERVE_H

#include "nonfinite.h"
#include "run.h"

/* The tensors a forward pass shows, in the order the steps make them, and
 * the buffer each observation is given (N real tokens, E the embeddings'
 * width, F the feed-forward width). */
typedef enum tf__step {
    TF_STEP_EMBED_TOKEN,      /* (N, E) token vectors: embed.token */
    TF_STEP_EMBED_POSITION,   /* none: embed.position, the encodings of positions
                                 0..T-1 as the embedding adds them [T, E] */
    TF_STEP_EMBED_TOKEN_TYPE, /* (N, E) token-type vectors: embed.token_type */
    TF_STEP_EMBED_SUM,        /* (N, E) embed.sum */
    TF_STEP_EMBED_NORM,       /* (N, E) embed.norm */
    TF_STEP_EMBED_PROJECT,    /* (N, D) embed.project */
    TF_STEP_NORM1,            /* (N, D) pre-norm's LN1(x): norm1 */
    TF_STEP_QKV,              /* (N, 3D) Q | K | V: attn.q, attn.k, attn.v */
    TF_STEP_QK_NORM,          /* (N, 3D) after qk_norm: attn.q_norm, attn.k_norm */
    TF_STEP_ROTARY,           /* (N, 3D) after rotation: attn.q_rotated, attn.k_rotated */
    TF_STEP_POSITION_BIASES,  /* none: the call's attn.alibi_slopes and
                                 attn.relative_bias (run->mask), those it has */
    TF_STEP_ATTN_SCORES,      /* (B, H, T, T) attn.scores */
    TF_STEP_ATTN_WEIGHTS,     /* (B, H, T, T) attn.weights */
    TF_STEP_ATTN_CONTEXT,     /* (N, D) attn.context */
    TF_STEP_ATTN_OUT,         /* (N, D) attn.out */
    TF_STEP_ADD_NORM1,        /* (N, D) add_norm1 */
    TF_STEP_ADD_NORM1B,       /* (N, D) add_norm1b */
    TF_STEP_NORM2,            /* (N, D) pre-norm's LN2(x): norm2 */
    TF_STEP_FFN_IN,           /* (N, 2F) gated: up | gate, ffn.up and ffn.gate; a
                                 plain block's (N, F) is its hidden layer, shown
                                 after TF_STEP_FFN_GATE */
    TF_STEP_FFN_GATE,         /* (N, F), or (N, 2F) gated: ffn.hidden, the first F */
    TF_STEP_FFN_OUT,          /* (N, D) ffn.out */
    TF_STEP_ADD_NORM2,        /* (N, D) add_norm2 */
    TF_STEP_FINAL_NORM,       /* (N, D) final_norm */
    TF_STEP_POOLER,           /* (B, D) pooler */
    TF_STEP_COUNT
} tf__step;

/* The name of the tensor a step leaves (its first event's, before the
 * "layers.<l>." of a layer). */
const char *tf__step_name(tf__step step);

/* Hands the tensor `step` left in `tensor` to the trace callback as its
 * events (tf__trace_name(name, layer)). Only while tracing. */
void tf__observe_step(tf__run *run, tf__step step, int32_t layer, const float *tensor);

static inline void tf__observe(tf__run *run, tf__step step, int32_t layer, const float *tensor)
{
    if (tf__tracing(&run->tracer))
        tf__observe_step(run, step, layer, tensor);
}

/* Where attention leaves the scores and weights (B, H, T, T) that the
 * observations show: *scores nowhere (NULL) and *weights where the caller
 * wants them (or NULL), unless tracing: then both, the weights in the
 * trace's buffer when the caller wants none. */
static inline void tf__observed_attention(tf__run *run, float **scores, float **weights)
{
    *scores = NULL;
    if (!tf__tracing(&run->tracer))
        return;
    *scores = run->tracer.scores;
    if (!*weights)
        *weights = run->tracer.weights;
}

/* The feed-forward hidden layer's buffer and the rows it holds at a time:
 * the workspace's TF_FFN_CHUNK_ROWS; while tracing the trace's, all N
 * rows, so that the observations show the whole layer. */
static inline float *tf__observed_ffn_hidden(tf__run *run, size_t *rows)
{
    if (!tf__tracing(&run->tracer)) {
        *rows = TF_FFN_CHUNK_ROWS;
        return run->s.ffn_hidden;
    }
    *rows = run->batch.N;
    return run->tracer.ffn_hidden;
}

/* The checkpoints at the end of a stage: each returns whether its tensor
 * holds a non-finite value that the call's inputs do not explain, and if
 * so *nf names the first.
 * Rows (N, D), the tensor `step` left (named for `layer`): */
int tf__checkpoint_rows(const tf__run *run, tf__nonfinite *nf, tf__step step, int32_t layer,
                        const float *rows);
/* Layer l, just run: its attention scores (from the Q | K | V it leaves in
 * s.qkv), or its output s.x (add_norm2): */
int tf__checkpoint_layer(const tf__run *run, tf__nonfinite *nf, int32_t l);
/* The pooler's output pooled (B, D): */
int tf__checkpoint_pooled(const tf__run *run, tf__nonfinite *nf, const float *pooled);

/* The pass through checkpoint `last` (encoder.c's: the embeddings are
 * checkpoint 0, layer l's output l + 1, the head n_layers + 1): returns the
 * checkpoint where it found a non-finite value the inputs do not explain
 * (*nf names it), or -1. */
typedef int32_t tf__pass_fn(tf__run *run, int32_t last, tf__nonfinite *nf);

/* The most the trace that names an overflow's tensor may allocate. */
#define TF_LOCATE_MAX_BYTES ((size_t)256 << 20)

/* Runs the pass again up to checkpoint `stage`, without outputs, tracing
 * every intermediate, and keeps the first traced tensor that holds a
 * non-finite value the inputs do not explain in *nf (which keeps what the
 * checkpoint found when the trace would take more than TF_LOCATE_MAX_BYTES
 * or cannot be allocated). */
void tf__locate_nonfinite(tf__run *run, tf__pass_fn *pass, int32_t stage, tf__nonfinite *nf);

#endif
