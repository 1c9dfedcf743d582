/* ffn.c — D -> F -> D with an activation (or a gate) between, over a chunk
 * of rows; each projection in column blocks on the call's threads. */
#include "ffn.h"

#include "kernels.h"
#include "linear.h"

void tf__ffn_in(const tf__schedule *s, float *hidden, const float *x, const tf__layer_weights *lw,
                size_t rows, const tf__ffn_shape *f)
{
    /* (rows, F) = act(x . W_up^T + b_up), the activation inside each block;
     * gated: (rows, 2F) = x . [W_up | W_gate]^T + [b_up | b_gate] */
    tf__linear_split(s, hidden, x, lw->up_w, lw->up_b, rows, tf__ffn_hidden_width(f), f->D,
                     f->gated ? TF_LINEAR_NO_ACTIVATION : f->activation);
}

typedef struct gate_job {
    float *hidden; /* (rows, 2F) */
    size_t F;
    int activation;
} gate_job;

static void gate_task(void *ctx, size_t first, size_t count)
{
    const gate_job *j = ctx;
    for (size_t r = first; r < first + count; r++) {
        float *up = j->hidden + r * 2 * j->F, *gate = up + j->F; /* (F) each */
        tf__activation_apply(gate, j->F, j->activation);
        tf__mul(up, gate, j->F);
    }
}

void tf__ffn_gate(const tf__schedule *s, float *hidden, size_t rows, const tf__ffn_shape *f)
{
    if (!f->gated)
        return;
    gate_job job = {hidden, f->F, f->activation};
    tf__schedule_rows(s, gate_task, &job, rows, 2 * f->F);
}

void tf__ffn_out(const tf__schedule *s, float *y, const float *hidden, const tf__layer_weights *lw,
                 size_t rows, const tf__ffn_shape *f)
{
    /* (rows, D) = hidden[:, :F] (row stride F or 2F) . W_down^T + b_down */
    tf__linear_split_strided(s, y, hidden, tf__ffn_hidden_width(f), lw->down_w, lw->down_b, rows,
                             f->D, f->F, TF_LINEAR_NO_ACTIVATION);
}
