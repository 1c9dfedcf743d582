/* nonfinite.c — non-finite values that finite inputs cannot explain: where
 * they are, and the message that names them. */
#include "nonfinite.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "error.h"
#include "kernels.h"

/* Whether sequence b's input vectors hold a NaN or an infinity. */
static int input_nonfinite(const tf__nonfinite_scope *sc, int64_t b)
{
    const tf_forward_args *a = sc->args;
    if (!a->input_embeds)
        return 0; /* ids select weights, and weights are finite */
    const size_t n = (size_t)sc->batch->lengths[b] * sc->D;
    const float *in = a->input_embeds + (size_t)b * (size_t)a->seq_len * sc->D; /* [T, D] */
    return tf__first_nonfinite(in, n) < n;
}

static void record(tf__nonfinite *nf, const char *name, int32_t layer, int32_t rank,
                   const int64_t *index, const char *dim_names, float value)
{
    char full[TF_TRACE_NAME_MAX];
    snprintf(nf->tensor, sizeof nf->tensor, "%s", tf__trace_name(full, sizeof full, name, layer));
    nf->dim_names = dim_names;
    nf->rank = rank;
    memcpy(nf->index, index, (size_t)rank * sizeof *index);
    nf->value = value;
}

typedef struct finite_scan {
    const float *rows; /* (N, W) */
    size_t W;
    atomic_bool found; /* a part saw a non-finite value */
} finite_scan;

static void scan_finite_part(void *ctx, size_t first, size_t count)
{
    finite_scan *f = ctx;
    const float *part = f->rows + first * f->W; /* (count, W) */
    if (tf__first_nonfinite(part, count * f->W) < count * f->W)
        atomic_store(&f->found, true);
}

int tf__nonfinite_rows(tf__nonfinite *nf, const tf__nonfinite_scope *sc, const char *name,
                       int32_t layer, const float *rows, size_t W, const char *dim_names)
{
    const tf__batch *bt = sc->batch;
    finite_scan scan = {.rows = rows, .W = W};
    atomic_init(&scan.found, false);
    tf__schedule_rows(sc->sched, scan_finite_part, &scan, bt->N, W);
    if (!atomic_load(&scan.found))
        return 0; /* the usual case */
    for (int32_t b = 0; b < bt->B; b++) {
        const float *seq = rows + bt->row_start[b] * W; /* (len, W) */
        const size_t n = (size_t)bt->lengths[b] * W, i = tf__first_nonfinite(seq, n);
        if (i < n && !input_nonfinite(sc, b)) {
            const int64_t index[3] = {b, (int64_t)(i / W), (int64_t)(i % W)};
            record(nf, name, layer, 3, index, dim_names, seq[i]);
            return 1;
        }
    }
    return 0;
}

/* ---- Attention scores ------------------------------------------------------ */

/* The half window of layer l (0: a global layer). */
static size_t half_window(const tf__nonfinite_scope *sc, int32_t l)
{
    return tf__layer_is_local(sc->cfg, l) ? (size_t)sc->cfg->attn_window / 2 : 0;
}

/* Whether score (q, k) of sequence b in layer l is masked (or padding, or
 * outside a local layer's window): a -inf there is the mask's, not an
 * overflow. */
static int score_masked(const tf__nonfinite_scope *sc, int32_t l, int64_t b, int64_t q, int64_t k)
{
    const tf_forward_args *a = sc->args;
    const int64_t len = sc->batch->lengths[b], T = a->seq_len;
    const int64_t hw = (int64_t)half_window(sc, l);
    if (q >= len || k >= len || (a->causal && k > q) || (hw && (q - k > hw || k - q > hw)))
        return 1;
    return a->additive_mask &&
        a->additive_mask[(a->additive_mask_batched ? b * T * T : 0) + q * T + k] == -INFINITY;
}

/* A traced attn.scores [B, H, T, T]: NaN, +inf, or -inf where no mask put it. */
/* l of a name "layers.<l>. ...", else -1. */
static int layer_of(const char *name)
{
    const char prefix[] = "layers.";
    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return -1;
    char *end;
    const long l = strtol(name + sizeof prefix - 1, &end, 10);
    return end != name + sizeof prefix - 1 && *end == '.' && l >= 0 && l <= INT_MAX ? (int)l : -1;
}

static int find_in_scores(tf__nonfinite *nf, const tf__nonfinite_scope *sc, const char *name,
                          const int64_t *dims, const float *data)
{
    const int64_t H = dims[1], T = dims[2];
    const int l = layer_of(name); /* from "layers.<l>.attn.scores" */
    for (int64_t b = 0; b < dims[0]; b++) {
        if (input_nonfinite(sc, b))
            continue;
        for (int64_t h = 0; h < H; h++)
            for (int64_t q = 0; q < T; q++)
                for (int64_t k = 0; k < T; k++) {
                    const float v = data[((b * H + h) * T + q) * T + k];
                    if (isfinite(v) || (v == -INFINITY && score_masked(sc, l, b, q, k)))
                        continue;
                    const int64_t index[4] = {b, h, q, k};
                    record(nf, name, -1, 4, index, "B,H,T,T", v);
                    return 1;
                }
    }
    return 0;
}

/* Largest squared L2 norm, in double, of n rows of dk values, ld apart. */
static double max_sq_norm(const float *x, size_t n, size_t ld, size_t dk)
{
    double max = 0.0;
    for (size_t r = 0; r < n; r++) {
        double sq = 0.0;
        for (size_t i = 0; i < dk; i++)
            sq += (double)x[r * ld + i] * (double)x[r * ld + i];
        max = sq > max ? sq : max;
    }
    return max;
}

static double dot(const float *q, const float *k, size_t dk)
{
    double sum = 0.0;
    for (size_t i = 0; i < dk; i++)
        sum += (double)q[i] * (double)k[i];
    return sum;
}

/* The largest |value| the call's position biases add to a score: the
 * relative bias table's largest, plus ALiBi's steepest slope over the
 * longest distance. */
static double max_position_bias(const tf__attn_mask *m, size_t H, size_t max_len)
{
    double most = 0.0;
    if (m->relative_bias)
        most += tf__max_abs(m->relative_bias, H * (2 * m->relative_len - 1));
    if (m->alibi_slopes && max_len > 0)
        most += (double)tf__max_abs(m->alibi_slopes, H) * (double)(max_len - 1);
    return most;
}

/* One head of one sequence, as the locator reads it. */
typedef struct score_head {
    const float *Q, *K; /* (len, d_k) each, rows ld apart */
    size_t len, ld, dk, h;
    int causal;
    size_t hw;                 /* the layer's half window; 0: global */
    const tf__attn_mask *bias; /* the call's position biases */
    double max_bias;           /* max_position_bias */
} score_head;

/* Score (q, k) of a head from its exact q . k (|dot| <= FLT_MAX), as
 * attend_block and apply_masks compute it: scaled in float32, then the
 * relative bias for k - q, then ALiBi's -m_h |q - k|. */
static float biased_score(const score_head *s, double dot, size_t q, size_t k)
{
    const tf__attn_mask *m = s->bias;
    float score = (float)(dot / sqrt((double)s->dk));
    if (m->relative_bias) /* (H, 2 relative_len - 1), j - i = 0 at relative_len - 1 */
        score += m->relative_bias[s->h * (2 * m->relative_len - 1) + m->relative_len - 1 + k - q];
    if (m->alibi_slopes)
        score -= m->alibi_slopes[s->h] * (float)(k > q ? k - q : q - k);
    return score;
}

/* The first score of head s that float32 cannot hold, among the pairs
 * attention computes (k <= q when causal, |q - k| <= hw when hw > 0): its
 * query and key in *at, its value (NaN or an infinity) in *value; 0 when
 * there is none. */
static int find_score_overflow(const score_head *s, size_t at[2], float *value)
{
    /* Cauchy-Schwarz: no |q . k| exceeds max |q| max |k| (L2 norms); when
     * that and the biases are well inside float32 this head has nothing to
     * look for. */
    const size_t len = s->len, hw = s->hw;
    if (sqrt(max_sq_norm(s->Q, len, s->ld, s->dk)) * sqrt(max_sq_norm(s->K, len, s->ld, s->dk)) +
            s->max_bias <=
        FLT_MAX / 2)
        return 0;
    for (size_t q = 0; q < len; q++) {
        const size_t first = hw && q > hw ? q - hw : 0;
        size_t end = s->causal ? q + 1 : len;
        end = hw && q + hw + 1 < end ? q + hw + 1 : end;
        for (size_t k = first; k < end; k++) {
            const double d = dot(s->Q + q * s->ld, s->K + k * s->ld, s->dk);
            const float score = fabs(d) <= FLT_MAX ? biased_score(s, d, q, k)
                : isnan(d)                         ? NAN
                : d > 0                            ? INFINITY
                                                   : -INFINITY;
            if (!isfinite(score)) {
                at[0] = q, at[1] = k, *value = score;
                return 1;
            }
        }
    }
    return 0;
}

typedef struct qk_bound {
    const float *qkv; /* (N, 3D) */
    size_t D;
    atomic_uint max_q, max_k; /* the bits of max |q|, max |k| (tf__max_abs: NaN
                                 never wins), which for floats >= 0 order as
                                 integers do */
} qk_bound;

static void raise_to(atomic_uint *max, float value)
{
    unsigned bits;
    memcpy(&bits, &value, sizeof bits);
    unsigned seen = atomic_load(max);
    while (bits > seen && !atomic_compare_exchange_weak(max, &seen, bits))
        ;
}

static void qk_bound_part(void *ctx, size_t first, size_t count)
{
    qk_bound *b = ctx;
    float max_q = 0.0f, max_k = 0.0f;
    for (size_t r = first; r < first + count; r++) {
        const float *row = b->qkv + r * 3 * b->D; /* Q | K | V */
        const float q = tf__max_abs(row, b->D), k = tf__max_abs(row + b->D, b->D);
        max_q = q > max_q ? q : max_q;
        max_k = k > max_k ? k : max_k;
    }
    raise_to(&b->max_q, max_q);
    raise_to(&b->max_k, max_k);
}

static float float_of(unsigned bits)
{
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

/* Whether |q . k| <= d_k max|q| max|k| and the biases (up to max_bias)
 * keep every score of qkv (N, 3D) well inside float32: one vectorised pass
 * over Q and K, split over the call's threads (the usual case). */
static int scores_cannot_overflow(const tf__schedule *sched, const float *qkv, size_t N, size_t D,
                                  size_t dk, double max_bias)
{
    qk_bound b = {.qkv = qkv, .D = D};
    atomic_init(&b.max_q, 0u);
    atomic_init(&b.max_k, 0u);
    tf__schedule_rows(sched, qk_bound_part, &b, N, 2 * D);
    const double max_q = float_of(atomic_load(&b.max_q)), max_k = float_of(atomic_load(&b.max_k));
    return (double)dk * max_q * max_k + max_bias <= FLT_MAX / 2;
}

int tf__nonfinite_scores(tf__nonfinite *nf, const tf__nonfinite_scope *sc, int32_t layer,
                         const float *qkv, size_t H)
{
    const tf__batch *bt = sc->batch;
    const size_t D = sc->D, dk = D / H, ld = 3 * D;
    const double max_bias = max_position_bias(sc->mask, H, (size_t)bt->max_len);
    if (scores_cannot_overflow(sc->sched, qkv, bt->N, D, dk, max_bias))
        return 0;
    for (int32_t b = 0; b < bt->B; b++) {
        const float *rows = qkv + bt->row_start[b] * ld; /* (len, 3D) */
        if (input_nonfinite(sc, b))
            continue;
        for (size_t h = 0; h < H; h++) {
            const score_head head = {.Q = rows + h * dk,
                                     .K = rows + D + h * dk,
                                     .len = (size_t)bt->lengths[b],
                                     .ld = ld,
                                     .dk = dk,
                                     .h = h,
                                     .causal = sc->args->causal,
                                     .hw = half_window(sc, layer),
                                     .bias = sc->mask,
                                     .max_bias = max_bias};
            size_t at[2];
            float value;
            if (!find_score_overflow(&head, at, &value))
                continue;
            const int64_t index[4] = {b, (int64_t)h, (int64_t)at[0], (int64_t)at[1]};
            record(nf, "attn.scores", layer, 4, index, "B,H,T,T", value);
            return 1;
        }
    }
    return 0;
}

/* ---- Any traced tensor ------------------------------------------------------ */

int tf__nonfinite_tensor(tf__nonfinite *nf, const tf__nonfinite_scope *sc, const char *name,
                         int32_t rank, const int64_t *dims, const char *dim_names,
                         const float *data)
{
    if (strcmp(dim_names, "B,H,T,T") == 0 && strstr(name, "attn.scores"))
        return find_in_scores(nf, sc, name, dims, data);
    const int batched = strncmp(dim_names, "B,", 2) == 0;
    size_t slab = 1; /* values per sequence, or all of them */
    for (int32_t k = batched; k < rank; k++)
        slab *= (size_t)dims[k];
    for (int64_t b = 0; b < (batched ? dims[0] : 1); b++) {
        const float *x = data + (size_t)b * slab;
        const size_t at = tf__first_nonfinite(x, slab);
        if (at == slab || (batched && input_nonfinite(sc, b)))
            continue;
        int64_t index[TF_MAX_RANK];
        size_t rest = at;
        for (int32_t k = rank - 1; k >= batched; k--) {
            index[k] = (int64_t)(rest % (size_t)dims[k]);
            rest /= (size_t)dims[k];
        }
        if (batched)
            index[0] = b;
        record(nf, name, -1, rank, index, dim_names, x[at]);
        return 1;
    }
    return 0;
}

void tf__nonfinite_trace(const tf_trace_event *ev, void *user_data)
{
    tf__nonfinite_probe *p = user_data;
    if (!p->found)
        p->found = tf__nonfinite_tensor(&p->first, &p->scope, ev->name, ev->rank, ev->dims,
                                        ev->dim_names, ev->data);
}

tf_status tf__nonfinite_fail(const tf__nonfinite *nf)
{
    char at[TF_MAX_RANK * 24];
    tf__format_shape(at, sizeof at, nf->rank, nf->index);
    return tf__fail(TF_ERR_UNSUPPORTED,
                    "%s: a non-finite value (%g) at %s (%s) from finite inputs and weights "
                    "(float32 overflow)",
                    nf->tensor, (double)nf->value, at, nf->dim_names);
}
