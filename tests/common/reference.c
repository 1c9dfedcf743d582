/* reference.c — float64 oracle of the encoder forward pass. */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor.h"

/* The tensor `name` as doubles (malloc'd), or NULL if the model lacks it. */
static double *tensor(const tf_encoder *enc, const char *name)
{
    size_t n;
    float *f = tensor_copy(enc, name, &n);
    if (!f)
        return NULL;
    double *d = malloc(n * sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[i] = f[i];
    free(f);
    return d;
}

static double *layer_tensor(const tf_encoder *enc, int l, const char *suffix)
{
    char name[96];
    snprintf(name, sizeof name, "layers.%d.%s", l, suffix);
    return tensor(enc, name);
}

/* y[n][o] = sum_i x[n][i] w[o][i] + b[o] */
static void linear(double *y, const double *x, const double *w, const double *b, int n, int out,
                   int in)
{
    for (int r = 0; r < n; r++)
        for (int o = 0; o < out; o++) {
            double acc = b ? b[o] : 0.0;
            for (int i = 0; i < in; i++)
                acc += x[r * in + i] * w[o * in + i];
            y[r * out + o] = acc;
        }
}

static void layernorm(double *y, const double *x, const double *w, const double *b, int n, int D,
                      double eps)
{
    for (int r = 0; r < n; r++) {
        double mean = 0, var = 0;
        for (int i = 0; i < D; i++)
            mean += x[r * D + i] / D;
        for (int i = 0; i < D; i++)
            var += (x[r * D + i] - mean) * (x[r * D + i] - mean) / D;
        for (int i = 0; i < D; i++)
            y[r * D + i] = (x[r * D + i] - mean) / sqrt(var + eps) * w[i] + (b ? b[i] : 0.0);
    }
}

static double activation(double x, int act)
{
    switch (act) {
    case TF_ACTIVATION_GELU:
        return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case TF_ACTIVATION_GELU_TANH:
        return 0.5 * x *
            (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    default:
        return x > 0 ? x : 0.0;
    }
}

static int seq_length(const tf_forward_args *a, int b)
{
    if (a->lengths)
        return a->lengths[b];
    int n = 0;
    if (!a->attention_mask)
        return a->seq_len;
    while (n < a->seq_len && a->attention_mask[b * a->seq_len + n])
        n++;
    return n;
}

/* Multi-head attention of one sequence: y (n, D) = MHA(x), weights of layer
 * written to attn_bh (H, T, T) if not NULL. */
static void mha(double *y, double *attn_h, const double *x, const tf_encoder *enc, int l,
                const tf_config *c, const tf_forward_args *a, int b, int n)
{
    const int D = c->d_model, H = c->n_heads, dk = D / H, T = a->seq_len;
    double *wq = layer_tensor(enc, l, "attn.q.weight"), *bq = layer_tensor(enc, l, "attn.q.bias");
    double *wk = layer_tensor(enc, l, "attn.k.weight"), *bk = layer_tensor(enc, l, "attn.k.bias");
    double *wv = layer_tensor(enc, l, "attn.v.weight"), *bv = layer_tensor(enc, l, "attn.v.bias");
    double *wo = layer_tensor(enc, l, "attn.out.weight");
    double *bo = layer_tensor(enc, l, "attn.out.bias");
    double *q = malloc(sizeof(double) * n * D), *k = malloc(sizeof(double) * n * D);
    double *v = malloc(sizeof(double) * n * D), *ctx = calloc((size_t)n * D, sizeof(double));
    double *p = malloc(sizeof(double) * n);
    linear(q, x, wq, bq, n, D, D);
    linear(k, x, wk, bk, n, D, D);
    linear(v, x, wv, bv, n, D, D);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < n; i++) {
            double max = -INFINITY;
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int e = 0; e < dk; e++)
                    s += q[i * D + h * dk + e] * k[j * D + h * dk + e];
                s /= sqrt((double)dk);
                if (a->additive_mask)
                    s += a->additive_mask[(a->additive_mask_batched ? (size_t)b * T * T : 0) +
                                          (size_t)i * T + j];
                if (a->causal && j > i)
                    s = -INFINITY;
                p[j] = s;
                if (s > max)
                    max = s;
            }
            double sum = 0;
            for (int j = 0; j < n; j++) {
                p[j] = max == -INFINITY ? 0.0 : exp(p[j] - max);
                sum += p[j];
            }
            for (int j = 0; j < n; j++) {
                p[j] = sum > 0 ? p[j] / sum : 0.0;
                if (attn_h)
                    attn_h[((size_t)h * T + i) * T + j] = p[j];
                for (int e = 0; e < dk; e++)
                    ctx[i * D + h * dk + e] += p[j] * v[j * D + h * dk + e];
            }
        }
    linear(y, ctx, wo, bo, n, D, D);
    free(wq), free(bq), free(wk), free(bk), free(wv), free(bv), free(wo), free(bo);
    free(q), free(k), free(v), free(ctx), free(p);
}

/* y (n, D) = FFN(x) */
static void ffn(double *y, const double *x, const tf_encoder *enc, int l, const tf_config *c, int n)
{
    const int D = c->d_model, F = c->d_ff;
    double *w1 = layer_tensor(enc, l, "ffn.up.weight"), *b1 = layer_tensor(enc, l, "ffn.up.bias");
    double *w2 = layer_tensor(enc, l, "ffn.down.weight");
    double *b2 = layer_tensor(enc, l, "ffn.down.bias");
    double *hid = malloc(sizeof(double) * n * F);
    linear(hid, x, w1, b1, n, F, D);
    for (int i = 0; i < n * F; i++)
        hid[i] = activation(hid[i], c->activation);
    linear(y, hid, w2, b2, n, D, F);
    free(w1), free(b1), free(w2), free(b2), free(hid);
}

/* h (n, D) = the embeddings of sequence b. */
static void embed(double *h, const tf_encoder *enc, const tf_config *c, const tf_forward_args *a,
                  int b, int n)
{
    const int D = c->d_model, T = a->seq_len;
    double *tok = tensor(enc, "embed.token.weight"), *pos = tensor(enc, "embed.position.weight");
    double *typ = tensor(enc, "embed.token_type.weight");
    for (int t = 0; t < n; t++)
        for (int i = 0; i < D; i++) {
            const size_t bt = (size_t)b * T + t;
            double e = a->input_ids ? tok[(size_t)a->input_ids[bt] * D + i]
                                    : a->input_embeds[bt * D + i];
            if (c->position == TF_POSITION_SINUSOIDAL) {
                const double angle = t / pow(10000.0, (double)(i - i % 2) / D);
                e += i % 2 ? cos(angle) : sin(angle);
            } else if (c->position == TF_POSITION_LEARNED) {
                e += pos[(size_t)t * D + i];
            }
            if (c->n_token_types > 0)
                e += typ[(size_t)(a->token_type_ids ? a->token_type_ids[bt] : 0) * D + i];
            h[t * D + i] = e;
        }
    if (c->embedding_norm) {
        double *w = tensor(enc, "embed.norm.weight"), *bb = tensor(enc, "embed.norm.bias");
        layernorm(h, h, w, bb, n, D, c->layer_norm_eps);
        free(w), free(bb);
    }
    free(tok), free(pos), free(typ);
}

int ref_forward(const tf_encoder *enc, const tf_forward_args *a, double *out, double *hidden,
                double *attn, double *pooled)
{
    tf_config c;
    tf_config_init(&c);
    if (tf_encoder_get_config(enc, &c) != TF_OK)
        return -1;
    const int B = a->batch, T = a->seq_len, D = c.d_model, H = c.n_heads, L = c.n_layers;
    const size_t BTD = (size_t)B * T * D, BHTT = (size_t)B * H * T * T;
    memset(out, 0, BTD * sizeof *out);
    if (hidden)
        memset(hidden, 0, (size_t)(L + 1) * BTD * sizeof *hidden);
    if (attn)
        memset(attn, 0, (size_t)L * BHTT * sizeof *attn);
    if (pooled)
        memset(pooled, 0, (size_t)B * D * sizeof *pooled);

    for (int b = 0; b < B; b++) {
        const int n = seq_length(a, b);
        if (n == 0)
            continue;
        double *h = malloc(sizeof(double) * n * D), *u = malloc(sizeof(double) * n * D);
        double *sub = malloc(sizeof(double) * n * D);
        embed(h, enc, &c, a, b, n);
        if (hidden)
            memcpy(hidden + (size_t)b * T * D, h, sizeof(double) * n * D);
        for (int l = 0; l < L; l++) {
            double *n1w = layer_tensor(enc, l, "norm1.weight"),
                   *n1b = layer_tensor(enc, l, "norm1.bias");
            double *n2w = layer_tensor(enc, l, "norm2.weight"),
                   *n2b = layer_tensor(enc, l, "norm2.bias");
            double *attn_h = attn ? attn + (size_t)l * BHTT + (size_t)b * H * T * T : NULL;
            const int pre = c.norm_placement == TF_NORM_PRE;
            if (pre)
                layernorm(u, h, n1w, n1b, n, D, c.layer_norm_eps);
            mha(sub, attn_h, pre ? u : h, enc, l, &c, a, b, n);
            for (int i = 0; i < n * D; i++)
                h[i] += sub[i];
            if (!pre)
                layernorm(h, h, n1w, n1b, n, D, c.layer_norm_eps);
            if (pre)
                layernorm(u, h, n2w, n2b, n, D, c.layer_norm_eps);
            ffn(sub, pre ? u : h, enc, l, &c, n);
            for (int i = 0; i < n * D; i++)
                h[i] += sub[i];
            if (!pre)
                layernorm(h, h, n2w, n2b, n, D, c.layer_norm_eps);
            if (hidden)
                memcpy(hidden + (size_t)(l + 1) * BTD + (size_t)b * T * D, h,
                       sizeof(double) * n * D);
            free(n1w), free(n1b), free(n2w), free(n2b);
        }
        if (c.final_norm) {
            double *w = tensor(enc, "final_norm.weight"), *bb = tensor(enc, "final_norm.bias");
            layernorm(h, h, w, bb, n, D, c.layer_norm_eps);
            free(w), free(bb);
        }
        memcpy(out + (size_t)b * T * D, h, sizeof(double) * n * D);
        if (pooled && c.pooler) {
            double *w = tensor(enc, "pooler.weight"), *bb = tensor(enc, "pooler.bias");
            linear(pooled + (size_t)b * D, h, w, bb, 1, D, D);
            for (int i = 0; i < D; i++)
                pooled[(size_t)b * D + i] = tanh(pooled[(size_t)b * D + i]);
            free(w), free(bb);
        }
        free(h), free(u), free(sub);
    }
    return 0;
}
