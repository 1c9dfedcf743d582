/* observe.c — what each observation shows: the trace events of every step
 * (one table); the checkpoints' scans for non-finite values, and the
 * traced pass that locates the first. */
#include "observe.h"

#include "config.h"
#include "embedding.h"

/* How an event lays out the tensor it shows (trace.h's [B, T, ...] with
 * padded positions 0, or the tensor as it is). */
typedef enum event_view {
    ROWS,       /* packed rows (N, D) as [B, T, D] */
    EMBED_ROWS, /* packed rows (N, E) as [B, T, E] ("B,T,D" when E is D) */
    HEAD_Q,     /* part 0, 1 or 2 of Q | K | V (N, 3D) as [B, H, T, d_k] */
    HEAD_K,
    HEAD_V,
    GATED_UP,      /* the up half of a gated block's (N, 2F) as [B, T, F]; none if plain */
    GATED_GATE,    /* the gate half, the same */
    HIDDEN,        /* the first F columns of (N, F), or of (N, 2F) gated, as [B, T, F] */
    ATTENTION,     /* [B, H, T, T] as it is */
    POSITIONS,     /* the embedding's positional encodings [T, E] (tf__embed_positions) */
    ALIBI_SLOPES,  /* the call's ALiBi slopes [H], if it has them */
    RELATIVE_BIAS, /* the call's relative bias [H, 2 max_len - 1], if it has one */
    POOLED,        /* [B, D] as it is */
} event_view;

typedef struct event {
    const char *name; /* NULL: no further event */
    event_view view;
} event;

/* The events each step's tensor gives, in order: every name the trace
 * shows. */
#define TF_STEP_EVENTS_MAX 3
static const event step_events[][TF_STEP_EVENTS_MAX] = {
    [TF_STEP_EMBED_TOKEN] = {{"embed.token", EMBED_ROWS}},
    [TF_STEP_EMBED_POSITION] = {{"embed.position", POSITIONS}},
    [TF_STEP_EMBED_TOKEN_TYPE] = {{"embed.token_type", EMBED_ROWS}},
    [TF_STEP_EMBED_SUM] = {{"embed.sum", EMBED_ROWS}},
    [TF_STEP_EMBED_NORM] = {{"embed.norm", EMBED_ROWS}},
    [TF_STEP_EMBED_PROJECT] = {{"embed.project", ROWS}},
    [TF_STEP_NORM1] = {{"norm1", ROWS}},
    [TF_STEP_QKV] = {{"attn.q", HEAD_Q}, {"attn.k", HEAD_K}, {"attn.v", HEAD_V}},
    [TF_STEP_QK_NORM] = {{"attn.q_norm", HEAD_Q}, {"attn.k_norm", HEAD_K}},
    [TF_STEP_ROTARY] = {{"attn.q_rotated", HEAD_Q}, {"attn.k_rotated", HEAD_K}},
    [TF_STEP_POSITION_BIASES] = {{"attn.alibi_slopes", ALIBI_SLOPES},
                                 {"attn.relative_bias", RELATIVE_BIAS}},
    [TF_STEP_ATTN_SCORES] = {{"attn.scores", ATTENTION}},
    [TF_STEP_ATTN_WEIGHTS] = {{"attn.weights", ATTENTION}},
    [TF_STEP_ATTN_CONTEXT] = {{"attn.context", ROWS}},
    [TF_STEP_ATTN_OUT] = {{"attn.out", ROWS}},
    [TF_STEP_ADD_NORM1] = {{"add_norm1", ROWS}},
    [TF_STEP_ADD_NORM1B] = {{"add_norm1b", ROWS}},
    [TF_STEP_NORM2] = {{"norm2", ROWS}},
    [TF_STEP_FFN_IN] = {{"ffn.up", GATED_UP}, {"ffn.gate", GATED_GATE}},
    [TF_STEP_FFN_GATE] = {{"ffn.hidden", HIDDEN}},
    [TF_STEP_FFN_OUT] = {{"ffn.out", ROWS}},
    [TF_STEP_ADD_NORM2] = {{"add_norm2", ROWS}},
    [TF_STEP_FINAL_NORM] = {{"final_norm", ROWS}},
    [TF_STEP_POOLER] = {{"pooler", POOLED}},
};
_Static_assert(sizeof step_events / sizeof *step_events == TF_STEP_COUNT,
               "an entry of step_events for every tf__step");

const char *tf__step_name(tf__step step)
{
    return step_events[step][0].name;
}

/* Emits the embedding's positional encodings [T, E] from the trace's
 * buffer. */
static void emit_positions(tf__run *run, const char *name, int32_t layer)
{
    tf__tracer *tr = &run->tracer;
    const int64_t dims[2] = {run->batch.T, tf__embed_width(run->cfg)};
    tf__embed_positions(tr->buf, run->cfg, run->w, (size_t)dims[0]);
    tf__trace_emit(tr, name, layer, 2, dims, tf__embed_projects(run->cfg) ? "T,E" : "T,D", tr->buf);
}

static void emit(tf__run *run, const event *e, int32_t layer, const float *t)
{
    tf__tracer *tr = &run->tracer;
    const tf_config *cfg = run->cfg;
    const tf__attn_mask *m = &run->mask;
    const int64_t B = run->batch.B, T = run->batch.T, H = cfg->n_heads;
    const size_t D = (size_t)cfg->d_model, F = (size_t)cfg->d_ff, E = (size_t)tf__embed_width(cfg);
    const size_t hidden_width = cfg->ffn_gated ? 2 * F : F;
    switch (e->view) {
    case ROWS:
        tf__trace_rows(tr, e->name, layer, t, D, "B,T,D");
        break;
    case EMBED_ROWS:
        tf__trace_rows(tr, e->name, layer, t, E, tf__embed_projects(cfg) ? "B,T,E" : "B,T,D");
        break;
    case HEAD_Q:
    case HEAD_K:
    case HEAD_V:
        tf__trace_heads(tr, e->name, layer, t, (int)(e->view - HEAD_Q));
        break;
    case GATED_UP:
    case GATED_GATE:
        if (cfg->ffn_gated)
            tf__trace_columns(tr, e->name, layer, t + (e->view == GATED_GATE ? F : 0), 2 * F, F,
                              "B,T,F");
        break;
    case HIDDEN:
        tf__trace_columns(tr, e->name, layer, t, hidden_width, F, "B,T,F");
        break;
    case ATTENTION: {
        const int64_t dims[4] = {B, H, T, T};
        tf__trace_emit(tr, e->name, layer, 4, dims, "B,H,T,T", t);
        break;
    }
    case POSITIONS:
        emit_positions(run, e->name, layer);
        break;
    case ALIBI_SLOPES:
        if (m->alibi_slopes)
            tf__trace_emit(tr, e->name, layer, 1, &H, "H", m->alibi_slopes);
        break;
    case RELATIVE_BIAS:
        if (m->relative_bias) {
            const int64_t dims[2] = {H, 2 * (int64_t)m->relative_len - 1};
            tf__trace_emit(tr, e->name, layer, 2, dims, "H,j-i", m->relative_bias);
        }
        break;
    case POOLED: {
        const int64_t dims[2] = {B, (int64_t)D};
        tf__trace_emit(tr, e->name, layer, 2, dims, "B,D", t);
        break;
    }
    }
}

void tf__observe_step(tf__run *run, tf__step step, int32_t layer, const float *tensor)
{
    for (int i = 0; i < TF_STEP_EVENTS_MAX && step_events[step][i].name; i++)
        emit(run, &step_events[step][i], layer, tensor);
}

/* What explains a non-finite value in this call: its inputs (and what the
 * scans need to know of the call). */
static tf__nonfinite_scope scope_of(const tf__run *run)
{
    return (tf__nonfinite_scope){
        run->args, run->cfg, &run->batch, &run->mask, (size_t)run->cfg->d_model, &run->sched};
}

int tf__checkpoint_rows(const tf__run *run, tf__nonfinite *nf, tf__step step, int32_t layer,
                        const float *rows)
{
    const tf__nonfinite_scope scope = scope_of(run);
    return tf__nonfinite_rows(nf, &scope, tf__step_name(step), layer, rows,
                              (size_t)run->cfg->d_model, "B,T,D");
}

int tf__checkpoint_layer(const tf__run *run, tf__nonfinite *nf, int32_t l)
{
    const tf__nonfinite_scope scope = scope_of(run);
    return tf__nonfinite_scores(nf, &scope, l, run->s.qkv, (size_t)run->cfg->n_heads) ||
        tf__checkpoint_rows(run, nf, TF_STEP_ADD_NORM2, l, run->s.x);
}

int tf__checkpoint_pooled(const tf__run *run, tf__nonfinite *nf, const float *pooled)
{
    const tf__nonfinite_scope scope = scope_of(run);
    const int64_t dims[2] = {run->batch.B, run->cfg->d_model};
    return tf__nonfinite_tensor(nf, &scope, tf__step_name(TF_STEP_POOLER), 2, dims, "B,D", pooled);
}

void tf__locate_nonfinite(tf__run *run, tf__pass_fn *pass, int32_t stage, tf__nonfinite *nf)
{
    const size_t bytes = tf__tracer_bytes(run->cfg, &run->batch);
    if (!bytes || bytes > TF_LOCATE_MAX_BYTES)
        return;
    const tf_forward_args *args = run->args;
    tf_forward_args probe_args = *args;
    tf__nonfinite_probe probe = {.scope = scope_of(run)};
    probe_args.hidden_states = probe_args.attentions = probe_args.pooled_output = NULL;
    probe_args.trace = tf__nonfinite_trace;
    probe_args.trace_user_data = &probe;
    const tf__tracer callers = run->tracer;
    run->args = &probe_args;
    if (tf__tracer_init(&run->tracer, &probe_args, run->cfg, &run->batch) == TF_OK) {
        tf__nonfinite again;
        pass(run, stage, &again);
        tf__tracer_free(&run->tracer);
        if (probe.found)
            *nf = probe.first;
    }
    run->args = args;
    run->tracer = callers;
}
