/* test_trace.c — the shape contract of every sub-module, as the tutorial
 * lists them, seen through the trace callback on the tutorial's model
 * (D 512, 8 heads, d_k 64, F 2048, sinusoidal positions, T 5): each event's
 * name, shape and values, each recomputed in float64 from the events before
 * it. Also: tracing does not change the output, and the events of a padded,
 * pre-norm, BERT-like model. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/tensor.h"
#include "common/util.h"
#include "recording.h"
#include "common/suite.h"
#include "tfenc.h"

/* Records an event after checking the library's struct_size. */
static void record(const tf_trace_event *e, void *user)
{
    ck_assert_uint_eq(e->struct_size, sizeof(tf_trace_event));
    recording_add(user, e);
}

static const recorded *find(const recording *r, const char *name)
{
    const recorded *e = recording_find(r, name);
    ck_assert_msg(e != NULL, "no event %s", name);
    return e;
}

static void check_shape(const recorded *e, const char *dim_names, int rank, const int64_t *dims)
{
    ck_assert_str_eq(e->dim_names, dim_names);
    ck_assert_int_eq(e->rank, rank);
    for (int i = 0; i < rank; i++)
        ck_assert_msg(e->dims[i] == dims[i], "%s: dim %d is %lld, expected %lld", e->name, i,
                      (long long)e->dims[i], (long long)dims[i]);
}

static float *weight(const tf_encoder *enc, const char *name, size_t n)
{
    size_t count = 0;
    float *w = tensor_copy(enc, name, &count);
    ck_assert_msg(w != NULL && count == n, "%s: %zu values, expected %zu", name, count, n);
    return w;
}

/* max over rows r, cols o of |y[r][o] - (sum_i x[r][i] w[o][i] + b[o])| */
static double linear_err(const float *y, const float *x, const float *w, const float *b, int rows,
                         int out, int in)
{
    double worst = 0;
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < out; o++) {
            double acc = b[o];
            for (int i = 0; i < in; i++)
                acc += (double)x[r * in + i] * w[(size_t)o * in + i];
            worst = fmax(worst, fabs(y[(size_t)r * out + o] - acc));
        }
    return worst;
}

/* max |y - LayerNorm(a + b)| with weight 1 and bias 0 (fresh model) */
static double add_norm_err(const float *y, const float *a, const float *b, int rows, int D)
{
    double worst = 0;
    for (int r = 0; r < rows; r++) {
        double mean = 0, var = 0;
        for (int i = 0; i < D; i++)
            mean += ((double)a[r * D + i] + b[r * D + i]) / D;
        for (int i = 0; i < D; i++) {
            const double d = (double)a[r * D + i] + b[r * D + i] - mean;
            var += d * d / D;
        }
        for (int i = 0; i < D; i++) {
            const double want = ((double)a[r * D + i] + b[r * D + i] - mean) / sqrt(var + 1e-5);
            worst = fmax(worst, fabs(y[r * D + i] - want));
        }
    }
    return worst;
}

START_TEST(test_tutorial_model_walkthrough)
{
    enum { T = 5, D = 512, H = 8, DK = 64, F = 2048 };
    tf_config cfg;
    tf_config_init(&cfg);
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    float *x = malloc(sizeof(float) * T * D), *out = malloc(sizeof(float) * T * D);
    float *plain = malloc(sizeof(float) * T * D);
    fill_uniform(x, T * D, 1, -1, 1);
    recording rec = {0};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = T, a.input_embeds = x, a.output = plain;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    a.output = out, a.trace = record, a.trace_user_data = &rec;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    ck_assert_mem_eq(out, plain, sizeof(float) * T * D); /* tracing changes nothing */

    static const char *const order[] = {
        "embed.token",          "embed.position",        "embed.sum",
        "layers.0.attn.q",      "layers.0.attn.k",       "layers.0.attn.v",
        "layers.0.attn.scores", "layers.0.attn.weights", "layers.0.attn.context",
        "layers.0.attn.out",    "layers.0.add_norm1",    "layers.0.ffn.hidden",
        "layers.0.ffn.out",     "layers.0.add_norm2"};
    ck_assert_int_eq(rec.n, (int)(sizeof order / sizeof order[0]));
    for (size_t i = 0; i < rec.n; i++) {
        ck_assert_str_eq(rec.events[i].name, order[i]);
        ck_assert_int_eq(rec.events[i].layer, strncmp(order[i], "layers.", 7) ? -1 : 0);
    }
    const int64_t btd[3] = {1, T, D}, td[2] = {T, D}, bhtk[4] = {1, H, T, DK};
    const int64_t bhtt[4] = {1, H, T, T}, btf[3] = {1, T, F};
    const recorded *tok = find(&rec, "embed.token"), *pos = find(&rec, "embed.position");
    const recorded *sum = find(&rec, "embed.sum"), *q = find(&rec, "layers.0.attn.q");
    const recorded *k = find(&rec, "layers.0.attn.k"), *v = find(&rec, "layers.0.attn.v");
    const recorded *sc = find(&rec, "layers.0.attn.scores"),
                   *wt = find(&rec, "layers.0.attn.weights");
    const recorded *ctx = find(&rec, "layers.0.attn.context"),
                   *ao = find(&rec, "layers.0.attn.out");
    const recorded *an1 = find(&rec, "layers.0.add_norm1"),
                   *hid = find(&rec, "layers.0.ffn.hidden");
    const recorded *fo = find(&rec, "layers.0.ffn.out"), *an2 = find(&rec, "layers.0.add_norm2");
    check_shape(tok, "B,T,D", 3, btd);
    check_shape(pos, "T,D", 2, td);
    check_shape(sum, "B,T,D", 3, btd);
    check_shape(q, "B,H,T,d_k", 4, bhtk);
    check_shape(k, "B,H,T,d_k", 4, bhtk);
    check_shape(v, "B,H,T,d_k", 4, bhtk);
    check_shape(sc, "B,H,T,T", 4, bhtt);
    check_shape(wt, "B,H,T,T", 4, bhtt);
    check_shape(ctx, "B,T,D", 3, btd);
    check_shape(ao, "B,T,D", 3, btd);
    check_shape(an1, "B,T,D", 3, btd);
    check_shape(hid, "B,T,F", 3, btf);
    check_shape(fo, "B,T,D", 3, btd);
    check_shape(an2, "B,T,D", 3, btd);

    /* embeddings: the input, PE(t, 2i) = sin(t / 10000^(2i/D)), their sum */
    ck_assert_mem_eq(tok->data, x, sizeof(float) * T * D);
    for (int t = 0; t < T; t++)
        for (int i = 0; i < D; i++) {
            const double angle = t / pow(10000.0, (double)(i - i % 2) / D);
            ck_assert_double_eq_tol(pos->data[t * D + i], i % 2 ? cos(angle) : sin(angle), 1e-7);
            ck_assert_float_eq(sum->data[t * D + i], x[t * D + i] + pos->data[t * D + i]);
        }
    /* Q, K, V: (5,512) . (512,64) -> (5,64) per head, i.e. x W^T + b split by head */
    const char *proj[3] = {"q", "k", "v"};
    const recorded *qkv[3] = {q, k, v};
    float *per_token = malloc(sizeof(float) * T * D);
    for (int p = 0; p < 3; p++) {
        char wname[64], bname[64];
        snprintf(wname, sizeof wname, "layers.0.attn.%s.weight", proj[p]);
        snprintf(bname, sizeof bname, "layers.0.attn.%s.bias", proj[p]);
        float *w = weight(enc, wname, D * D), *b = weight(enc, bname, D);
        for (int h = 0; h < H; h++) /* [B,H,T,d_k] back to [T, D] */
            for (int t = 0; t < T; t++)
                memcpy(per_token + t * D + h * DK, qkv[p]->data + (h * T + t) * DK,
                       DK * sizeof(float));
        ck_assert_double_le(linear_err(per_token, sum->data, w, b, T, D, D), 2e-5);
        free(w), free(b);
    }
    /* scores = Q K^T / sqrt(64) = Q K^T * 0.125; weights = softmax rows;
     * context[t, h*64 + e] = sum_j weights[h,t,j] V[h,j,e] (heads concatenated) */
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++) {
            double row_sum = 0, max = -INFINITY, z = 0;
            for (int j = 0; j < T; j++) {
                double s = 0;
                for (int e = 0; e < DK; e++)
                    s += (double)q->data[(h * T + i) * DK + e] * k->data[(h * T + j) * DK + e];
                ck_assert_double_eq_tol(sc->data[(h * T + i) * T + j], s * 0.125, 2e-6);
                max = fmax(max, sc->data[(h * T + i) * T + j]);
            }
            for (int j = 0; j < T; j++)
                z += exp(sc->data[(h * T + i) * T + j] - max);
            for (int j = 0; j < T; j++) {
                const double w = exp(sc->data[(h * T + i) * T + j] - max) / z;
                ck_assert_double_eq_tol(wt->data[(h * T + i) * T + j], w, 1e-6);
                row_sum += wt->data[(h * T + i) * T + j];
            }
            ck_assert_double_eq_tol(row_sum, 1.0, 1e-6);
            for (int e = 0; e < DK; e++) {
                double c = 0;
                for (int j = 0; j < T; j++)
                    c += (double)wt->data[(h * T + i) * T + j] * v->data[(h * T + j) * DK + e];
                ck_assert_double_eq_tol(ctx->data[i * D + h * DK + e], c, 2e-6);
            }
        }
    /* W_O, Add & Norm, FFN 512 -> 2048 -> 512, Add & Norm */
    float *wo = weight(enc, "layers.0.attn.out.weight", D * D);
    float *bo = weight(enc, "layers.0.attn.out.bias", D);
    float *w1 = weight(enc, "layers.0.ffn.up.weight", (size_t)F * D);
    float *b1 = weight(enc, "layers.0.ffn.up.bias", F);
    float *w2 = weight(enc, "layers.0.ffn.down.weight", (size_t)D * F);
    float *b2 = weight(enc, "layers.0.ffn.down.bias", D);
    ck_assert_double_le(linear_err(ao->data, ctx->data, wo, bo, T, D, D), 2e-5);
    ck_assert_double_le(add_norm_err(an1->data, sum->data, ao->data, T, D), 2e-5);
    for (int t = 0; t < T; t++)
        for (int f = 0; f < F; f++) {
            double acc = b1[f];
            for (int i = 0; i < D; i++)
                acc += (double)an1->data[t * D + i] * w1[(size_t)f * D + i];
            const double gelu = 0.5 * acc * (1.0 + erf(acc / sqrt(2.0)));
            ck_assert_double_eq_tol(hid->data[t * F + f], gelu, 2e-5);
        }
    ck_assert_double_le(linear_err(fo->data, hid->data, w2, b2, T, D, F), 5e-5);
    ck_assert_double_le(add_norm_err(an2->data, an1->data, fo->data, T, D), 2e-5);
    ck_assert_mem_eq(an2->data, out, sizeof(float) * T * D);

    free(wo), free(bo), free(w1), free(b1), free(w2), free(b2), free(per_token);
    free(x), free(out), free(plain);
    recording_free(&rec);
    tf_encoder_destroy(enc);
}
END_TEST

/* A padded batch on a pre-norm BERT-like model: the extra events appear,
 * padded rows are 0, padded keys score -inf and weigh 0. */
START_TEST(test_padded_bert_like_events)
{
    enum { B = 2, T = 4, D = 16, H = 2 };
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = H, cfg.d_ff = 24, cfg.vocab_size = 10, cfg.n_token_types = 2;
    cfg.position = TF_POSITION_LEARNED, cfg.max_positions = 8, cfg.embedding_norm = 1;
    cfg.norm_placement = TF_NORM_PRE, cfg.final_norm = 1, cfg.pooler = 1;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    const int32_t ids[B * T] = {1, 2, 3, 4, 5, 6, 0, 0}, lengths[B] = {4, 2};
    float out[B * T * D], pooled[B * D];
    recording rec = {0};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids, a.lengths = lengths, a.output = out;
    a.pooled_output = pooled, a.trace = record, a.trace_user_data = &rec;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    static const char *const order[] = {"embed.token",
                                        "embed.position",
                                        "embed.token_type",
                                        "embed.sum",
                                        "embed.norm",
                                        "layers.0.norm1",
                                        "layers.0.attn.q",
                                        "layers.0.attn.k",
                                        "layers.0.attn.v",
                                        "layers.0.attn.scores",
                                        "layers.0.attn.weights",
                                        "layers.0.attn.context",
                                        "layers.0.attn.out",
                                        "layers.0.add_norm1",
                                        "layers.0.norm2",
                                        "layers.0.ffn.hidden",
                                        "layers.0.ffn.out",
                                        "layers.0.add_norm2",
                                        "final_norm",
                                        "pooler"};
    ck_assert_int_eq(rec.n, (int)(sizeof order / sizeof order[0]));
    for (size_t i = 0; i < rec.n; i++)
        ck_assert_str_eq(rec.events[i].name, order[i]);
    const recorded *sc = find(&rec, "layers.0.attn.scores"),
                   *wt = find(&rec, "layers.0.attn.weights");
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                const size_t at = (((size_t)1 * H + h) * T + i) * T + j; /* sequence 1, length 2 */
                if (i >= 2) {
                    ck_assert_float_eq(sc->data[at], 0.0f);
                    ck_assert_float_eq(wt->data[at], 0.0f);
                } else if (j >= 2) {
                    ck_assert(isinf(sc->data[at]) && sc->data[at] < 0);
                    ck_assert_float_eq(wt->data[at], 0.0f);
                }
            }
    const recorded *pos = find(&rec, "embed.position"), *pooler = find(&rec, "pooler");
    ck_assert_int_eq(pos->dims[0], T);
    ck_assert_mem_eq(pooler->data, pooled, sizeof pooled);
    const int32_t len2[2] = {4, 2};
    ck_assert(padding_is_zero(find(&rec, "layers.0.ffn.hidden")->data, B, T, 24, len2));
    ck_assert(padding_is_zero(find(&rec, "final_norm")->data, B, T, D, len2));
    ck_assert_mem_eq(find(&rec, "final_norm")->data, out, sizeof out);
    recording_free(&rec);
    tf_encoder_destroy(enc);
}
END_TEST

/* Each per-layer name once per layer, layers in order, nothing else twice. */
START_TEST(test_each_name_once_per_layer)
{
    enum { L = 3, T = 4, D = 8 };
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = 2, cfg.d_ff = 12, cfg.n_layers = L;
    cfg.norm_placement = TF_NORM_PRE, cfg.final_norm = 1;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    float x[T * D], out[T * D];
    fill_uniform(x, T * D, 4, -1, 1);
    recording rec = {0};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = T, a.input_embeds = x, a.output = out;
    a.trace = record, a.trace_user_data = &rec;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    static const char *const per_layer[] = {
        "norm1",        "attn.q",       "attn.k",   "attn.v",    "attn.scores",
        "attn.weights", "attn.context", "attn.out", "add_norm1", "norm2",
        "ffn.hidden",   "ffn.out",      "add_norm2"};
    enum { N = sizeof per_layer / sizeof per_layer[0] };
    ck_assert_int_eq(rec.n, 3 + L * N + 1); /* embed.token, .position, .sum; layers; final_norm */
    for (int l = 0; l < L; l++)
        for (int k = 0; k < N; k++) {
            char name[64];
            snprintf(name, sizeof name, "layers.%d.%s", l, per_layer[k]);
            const recorded *e = &rec.events[3 + l * N + k];
            ck_assert_str_eq(e->name, name);
            ck_assert_int_eq(e->layer, l);
        }
    ck_assert_str_eq(rec.events[rec.n - 1].name, "final_norm");
    ck_assert_mem_eq(rec.events[rec.n - 1].data, out, sizeof out);
    recording_free(&rec);
    tf_encoder_destroy(enc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("trace");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_tutorial_model_walkthrough);
    tcase_add_test(tc, test_padded_bert_like_events);
    tcase_add_test(tc, test_each_name_once_per_layer);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
