/* test_encoder_pieces.c — the pieces of modern encoders (rotary positions, ALiBi,
 * gated feed-forward blocks, bias-free layers, local attention, MPNet's
 * relative position bias) against
 * float64 PyTorch references written from each family's modeling code
 * (tests/encoder_pieces/gen_encoder_pieces.py names the upstream function of each piece):
 * the output and every layer's hidden state within 1e-5 on real tokens,
 * the same bits on one thread and on all, the same result when a local
 * layer's window covers the whole sequence as when it is global; Hugging
 * Face folders with rotary or ALiBi positions past their trained length
 * (tests/encoder_pieces/beyond_*); and the validation of every tf_config field
 * 0.4.0 added. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "recording.h"
#include "common/suite.h"
#include "common/tmp_dir.h"
#include "common/util.h"
#include "tfenc.h"

#define TOL 1e-5

static char pieces_dir[512];
static char case_names[16][64];
static int n_cases;

static void load_npy(const char *case_dir, const char *file, npy_array *a)
{
    char path[1024], err[256];
    ck_assert(snprintf(path, sizeof path, "%s/%s", case_dir, file) < (int)sizeof path);
    ck_assert_msg(npy_read(path, a, err, sizeof err) == 0, "%s", err);
}

/* The largest error over real tokens of got [B, T, D] against want. */
static double error_of(const float *got, const float *want, int B, int T, int D,
                       const int32_t *lengths)
{
    const size_t n = (size_t)B * T * D;
    double *want64 = malloc(n * sizeof *want64);
    ck_assert(want64 != NULL);
    for (size_t i = 0; i < n; i++)
        want64[i] = want[i];
    const double e = max_abs_err_real(got, want64, B, T, (size_t)D, lengths);
    free(want64);
    return e;
}

/* The model of case `name`, into dir (its folder, 1024 bytes). */
static tf_encoder *load_case(const char *name, char *dir)
{
    char path[1100];
    ck_assert(snprintf(dir, 1024, "%s/%s", pieces_dir, name) < 1024);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_load(path, NULL, &enc) == TF_OK, "%s", tf_last_error());
    return enc;
}

/* out [B, T, D] and hidden [L + 1, B, T, D] of enc on x, on n_threads. */
static void forward(const tf_encoder *enc, const npy_array *x, const npy_array *lengths,
                    int32_t n_threads, float *out, float *hidden)
{
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = (int32_t)x->dims[0], a.seq_len = (int32_t)x->dims[1];
    a.input_embeds = x->data, a.lengths = lengths->data, a.n_threads = n_threads;
    a.output = out, a.hidden_states = hidden;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
}

START_TEST(test_encoder_pieces_case)
{
    const char *name = case_names[_i];
    char dir[1024];
    tf_encoder *enc = load_case(name, dir);
    tf_config cfg;
    tf_config_init(&cfg);
    ck_assert_int_eq(tf_encoder_get_config(enc, &cfg), TF_OK);

    npy_array x, lengths, want_out, want_hidden;
    load_npy(dir, "x.npy", &x);
    load_npy(dir, "lengths.npy", &lengths);
    load_npy(dir, "out.npy", &want_out);
    load_npy(dir, "hidden.npy", &want_hidden);
    const int B = (int)x.dims[0], T = (int)x.dims[1], D = cfg.d_model, L = cfg.n_layers;
    const size_t BTD = (size_t)B * T * D;
    ck_assert_int_eq((int)want_hidden.dims[0], L + 1);
    float *out = malloc(BTD * sizeof *out), *hidden = malloc((L + 1) * BTD * sizeof *hidden);
    float *out1 = malloc(BTD * sizeof *out1), *hidden1 = malloc((L + 1) * BTD * sizeof *hidden1);
    ck_assert(out && hidden && out1 && hidden1);
    forward(enc, &x, &lengths, 0, out, hidden);

    const double e_out = error_of(out, want_out.data, B, T, D, lengths.data);
    double e_hidden = 0;
    for (int l = 0; l <= L; l++) {
        const float *want = (const float *)want_hidden.data + (size_t)l * BTD;
        const double e = error_of(hidden + (size_t)l * BTD, want, B, T, D, lengths.data);
        e_hidden = e > e_hidden ? e : e_hidden;
    }
    printf("%-22s max abs error: output %.2e hidden %.2e\n", name, e_out, e_hidden);
    ck_assert_msg(e_out <= TOL, "%s: output error %g > %g", name, e_out, TOL);
    ck_assert_msg(e_hidden <= TOL, "%s: hidden error %g > %g", name, e_hidden, TOL);
    ck_assert(padding_is_zero(out, B, T, (size_t)D, lengths.data));

    forward(enc, &x, &lengths, 1, out1, hidden1); /* the caller's thread alone */
    ck_assert_mem_eq(out1, out, BTD * sizeof *out);
    ck_assert_mem_eq(hidden1, hidden, (L + 1) * BTD * sizeof *out);

    free(out), free(hidden), free(out1), free(hidden1);
    npy_free(&x), npy_free(&lengths), npy_free(&want_out), npy_free(&want_hidden);
    tf_encoder_destroy(enc);
}
END_TEST

/* Dynamic NTK (nomic_like: factor 2 past 8 positions, sequences of 12 and 7)
 * is a function of the call alone: a call's longest sequence sets theta
 * for all of its sequences, so the 7 tokens in the batch with 12 get the
 * scaled theta (out.npy) and alone the trained one (alone.npy, float64:
 * each sequence in a call of its own), whatever ran before. Upstream's
 * NomicBertDynamicNTKRotaryEmbedding keeps the tables of the longest call
 * it has seen, so there the second call would repeat the first's vectors. */
START_TEST(test_dynamic_ntk_is_per_call)
{
    char dir[1024];
    tf_encoder *enc = load_case("nomic_like", dir);
    npy_array x, lengths, want_batch, want_alone;
    load_npy(dir, "x.npy", &x);
    load_npy(dir, "lengths.npy", &lengths);
    load_npy(dir, "out.npy", &want_batch);
    load_npy(dir, "alone.npy", &want_alone);
    const int B = (int)x.dims[0], T = (int)x.dims[1], D = (int)x.dims[2];
    const int32_t *len = lengths.data;
    ck_assert_int_eq(B, 2);
    ck_assert_int_eq(len[0], 12); /* past the trained 8 */
    ck_assert_int_eq(len[1], 7);
    const size_t BTD = (size_t)B * T * D;
    float *batch = malloc(BTD * sizeof *batch), *again = malloc(BTD * sizeof *again);
    float *one = malloc((size_t)T * D * sizeof *one); /* [1, len, D] */
    ck_assert(batch && again && one);
    forward(enc, &x, &lengths, 0, batch, NULL);
    ck_assert(error_of(batch, want_batch.data, B, T, D, len) <= TOL);
    for (int b = B - 1; b >= 0; b--) { /* the short one first, after the long call */
        tf_forward_args a;
        tf_forward_args_init(&a);
        a.batch = 1, a.seq_len = len[b], a.output = one;
        a.input_embeds = (const float *)x.data + (size_t)b * T * D;
        ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
        const float *want = (const float *)want_alone.data + (size_t)b * T * D;
        const double e = error_of(one, want, 1, len[b], D, &len[b]);
        ck_assert_msg(e <= TOL, "sequence %d alone: error %g", b, e);
    }
    /* the 7 tokens alone are not what they are beside 12 (theta scaled) */
    const float *in_batch = batch + (size_t)T * D; /* [len, D] of sequence 1 */
    const float *alone = (const float *)want_alone.data + (size_t)T * D;
    double moved = 0.0;
    for (size_t i = 0; i < (size_t)len[1] * D; i++)
        moved = fmax(moved, fabs((double)in_batch[i] - alone[i]));
    ck_assert_msg(moved > 1e-3, "sequence 1: %g", moved);
    forward(enc, &x, &lengths, 0, again, NULL); /* the same bits after the short calls */
    ck_assert_mem_eq(again, batch, BTD * sizeof *batch);
    free(batch), free(again), free(one);
    npy_free(&x), npy_free(&lengths), npy_free(&want_batch), npy_free(&want_alone);
    tf_encoder_destroy(enc);
}
END_TEST

/* A model whose layers are all local with a window wider than the longest
 * sequence computes what the same model with global layers does (the
 * window leaves every key in; only the query blocks differ, so within
 * float32 rounding). */
START_TEST(test_wide_window_is_global)
{
    enum { B = 2, T = 150, D = 16 };
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = 2, cfg.d_ff = 32, cfg.n_layers = 2, cfg.seed = 7;
    cfg.position = TF_POSITION_ROTARY, cfg.norm_placement = TF_NORM_PRE;
    tf_encoder *global, *local;
    ck_assert_int_eq(tf_encoder_create(&cfg, &global), TF_OK);
    cfg.attn_window = 2 * T;
    ck_assert_int_eq(tf_encoder_create(&cfg, &local), TF_OK);
    static float x[B * T * D], want[B * T * D], got[B * T * D];
    fill_uniform(x, B * T * D, 3, -1.0f, 1.0f);
    const int32_t lengths[B] = {T, 77};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x, a.lengths = lengths, a.output = want;
    ck_assert_int_eq(tf_encoder_forward(global, &a), TF_OK);
    a.output = got;
    ck_assert_int_eq(tf_encoder_forward(local, &a), TF_OK);
    double worst = 0;
    for (size_t i = 0; i < B * T * D; i++)
        worst = fmax(worst, fabs((double)got[i] - want[i]));
    ck_assert_double_le(worst, 1e-5);
    tf_encoder_destroy(global);
    tf_encoder_destroy(local);
}
END_TEST

/* A window of 2 in a local layer: query i sees keys i - 1 .. i + 1 only,
 * which the traced weights show (0 elsewhere), and the rotated queries are
 * traced beside the projections. */
START_TEST(test_window_in_trace)
{
    enum { T = 6, D = 8, H = 2 };
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = H, cfg.d_ff = 16, cfg.n_layers = 1;
    cfg.position = TF_POSITION_ROTARY, cfg.attn_window = 2;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    float x[T * D], out[T * D], attn[H * T * T];
    fill_uniform(x, T * D, 5, -1.0f, 1.0f);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = T, a.input_embeds = x, a.output = out, a.attentions = attn;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++) {
            double sum = 0;
            for (int j = 0; j < T; j++) {
                const float w = attn[(h * T + i) * T + j];
                sum += w;
                if (abs(i - j) > 1)
                    ck_assert_float_eq(w, 0.0f);
                else
                    ck_assert_float_gt(w, 0.0f);
            }
            ck_assert_double_eq_tol(sum, 1.0, 1e-6);
        }
    tf_encoder_destroy(enc);
}
END_TEST

static void record(const tf_trace_event *e, void *user)
{
    recording_add(user, e);
}

static const recorded *event(const recording *rec, const char *name)
{
    const recorded *e = recording_find(rec, name);
    ck_assert_msg(e != NULL, "no trace event %s", name);
    return e;
}

/* The trace of a rotary, gated, ALiBi-free model and of an ALiBi one: the
 * new events with their shapes, the rotation leaving V and the norms of Q's
 * rows alone (a rotation), ffn.hidden = SiLU(ffn.gate) * ffn.up, the
 * slopes 2^(-8 (h + 1) / 4). */
START_TEST(test_trace_of_the_new_steps)
{
    enum { B = 2, T = 5, D = 16, H = 4, F = 12, dk = D / H };
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = H, cfg.d_ff = F, cfg.n_layers = 1, cfg.seed = 11;
    cfg.position = TF_POSITION_ROTARY, cfg.ffn_gated = 1, cfg.activation = TF_ACTIVATION_SILU;
    float x[B * T * D], out[B * T * D];
    fill_uniform(x, B * T * D, 9, -1.0f, 1.0f);
    const int32_t lengths[B] = {T, 3};
    for (int alibi = 0; alibi < 2; alibi++) {
        if (alibi)
            cfg.position = TF_POSITION_ALIBI;
        tf_encoder *enc;
        ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
        recording rec = {0};
        tf_forward_args a;
        tf_forward_args_init(&a);
        a.batch = B, a.seq_len = T, a.input_embeds = x, a.lengths = lengths, a.output = out;
        a.trace = record, a.trace_user_data = &rec;
        ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
        ck_assert(!rec.out_of_memory);
        const recorded *up = event(&rec, "layers.0.ffn.up"),
                       *gate = event(&rec, "layers.0.ffn.gate");
        const recorded *hidden = event(&rec, "layers.0.ffn.hidden");
        ck_assert_int_eq(up->dims[2], F);
        for (size_t i = 0; i < hidden->count; i++) {
            const double g = gate->data[i], want = g / (1.0 + exp(-g)) * up->data[i];
            ck_assert_double_le(fabs(hidden->data[i] - want), 1e-6);
        }
        if (alibi) {
            const recorded *slopes = event(&rec, "layers.0.attn.alibi_slopes");
            ck_assert_int_eq(slopes->rank, 1);
            for (int h = 0; h < H; h++)
                ck_assert_float_eq(slopes->data[h], (float)pow(2.0, -2.0 * (h + 1)));
            ck_assert_ptr_null(recording_find(&rec, "layers.0.attn.q_rotated"));
        } else {
            const recorded *q = event(&rec, "layers.0.attn.q");
            const recorded *qr = event(&rec, "layers.0.attn.q_rotated");
            ck_assert(event(&rec, "layers.0.attn.k_rotated")->count == qr->count);
            ck_assert_int_eq(qr->dims[3], dk);
            for (size_t row = 0; row < qr->count / dk; row++) { /* each head's row */
                double n0 = 0, n1 = 0;
                for (int i = 0; i < dk; i++)
                    n0 += q->data[row * dk + i] * q->data[row * dk + i],
                        n1 += qr->data[row * dk + i] * qr->data[row * dk + i];
                ck_assert_double_le(fabs(n0 - n1), 1e-5 * (1 + n0));
            }
            ck_assert_mem_eq(q->data, qr->data, dk * sizeof(float)); /* position 0: no turn */
            ck_assert_ptr_null(recording_find(&rec, "layers.0.attn.alibi_slopes"));
        }
        recording_free(&rec);
        tf_encoder_destroy(enc);
    }
}
END_TEST

/* Mean and variance of the D values of token t of sequence b in a [B, H, T,
 * d_k] event (its heads side by side). */
static void token_moments(const recorded *ev, int b, int t, double *mean, double *var)
{
    const int64_t H = ev->dims[1], T = ev->dims[2], dk = ev->dims[3];
    double sum = 0, sq = 0;
    for (int64_t h = 0; h < H; h++)
        for (int64_t i = 0; i < dk; i++) {
            const double v = ev->data[((b * H + h) * T + t) * dk + i];
            sum += v, sq += v * v;
        }
    *mean = sum / (double)(H * dk);
    *var = sq / (double)(H * dk) - *mean * *mean;
}

/* qk_norm and add_norm1b in the trace: attn.q_norm and .k_norm hold each
 * token's whole row of Q and K normalised over its D features (the norms
 * initialised to weight 1, bias 0: mean 0, variance v / (v + eps) of the
 * row's variance v in attn.q, .k), not head by head;
 * add_norm1b is LN(x + add_norm1) of the layer's input x. */
START_TEST(test_qk_norm_in_trace)
{
    enum { B = 2, T = 4, D = 16, H = 4, F = 12 };
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = H, cfg.d_ff = F, cfg.n_layers = 1, cfg.seed = 5;
    cfg.position = TF_POSITION_ALIBI, cfg.qk_norm = 1, cfg.add_norm1b = 1;
    float x[B * T * D], out[B * T * D];
    fill_uniform(x, B * T * D, 3, -1.0f, 1.0f);
    const int32_t lengths[B] = {T, 2};
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    recording rec = {0};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x, a.lengths = lengths, a.output = out;
    a.trace = record, a.trace_user_data = &rec;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    ck_assert(!rec.out_of_memory);
    const char *names[2][2] = {{"layers.0.attn.q", "layers.0.attn.q_norm"},
                               {"layers.0.attn.k", "layers.0.attn.k_norm"}};
    for (int n = 0; n < 2; n++) {
        const recorded *raw = event(&rec, names[n][0]), *ev = event(&rec, names[n][1]);
        ck_assert_int_eq(ev->rank, 4);
        for (int b = 0; b < B; b++)
            for (int t = 0; t < lengths[b]; t++) {
                double mean, var, raw_mean, raw_var;
                token_moments(ev, b, t, &mean, &var);
                token_moments(raw, b, t, &raw_mean, &raw_var);
                ck_assert_double_le(fabs(mean), 1e-5);
                ck_assert_double_le(fabs(var - raw_var / (raw_var + 1e-5)), 1e-5);
            }
    }
    const recorded *an1 = event(&rec, "layers.0.add_norm1"),
                   *an1b = event(&rec, "layers.0.add_norm1b");
    for (int t = 0; t < T; t++) { /* sequence 0: x is the layer's input as given */
        double sum = 0, sq = 0, v[D];
        for (int i = 0; i < D; i++)
            v[i] = (double)x[t * D + i] + an1->data[t * D + i], sum += v[i];
        for (int i = 0; i < D; i++)
            sq += (v[i] - sum / D) * (v[i] - sum / D);
        for (int i = 0; i < D; i++)
            ck_assert_double_le(
                fabs(an1b->data[t * D + i] - (v[i] - sum / D) / sqrt(sq / D + 1e-5)), 1e-4);
    }
    recording_free(&rec);
    tf_encoder_destroy(enc);
}
END_TEST

/* The relative position bias in the trace: [H, 2 max_len - 1] per layer,
 * each head's entry for j - i being its row of relative_bias.weight at the
 * bucket MPNetEncoder.relative_position_bucket gives (8 buckets: E = 2,
 * distances 2..4 in bucket 2 of their half, by hand); and the scores of a
 * query and key hold it (scores with it minus scores without it). */
START_TEST(test_relative_bias_in_trace)
{
    enum { B = 2, T = 5, D = 8, H = 2, SPAN = 2 * T - 1 };
    static const int buckets[SPAN] = {2, 2, 2, 1, 0, 5, 6, 6, 6}; /* j - i = -4 .. 4 */
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = H, cfg.d_ff = 8, cfg.n_layers = 2, cfg.seed = 5;
    cfg.relative_buckets = 8;
    float x[B * T * D], out[B * T * D], weight[8 * H];
    fill_uniform(x, B * T * D, 3, -1.0f, 1.0f);
    const int32_t lengths[B] = {T, 2};
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    const int64_t dims[2] = {8, H};
    ck_assert_int_eq(tf_encoder_get_tensor(enc, "relative_bias.weight", weight, 2, dims), TF_OK);
    recording rec = {0};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x, a.lengths = lengths, a.output = out;
    a.trace = record, a.trace_user_data = &rec;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    for (int l = 0; l < 2; l++) {
        char name[64];
        snprintf(name, sizeof name, "layers.%d.attn.relative_bias", l);
        const recorded *bias = event(&rec, name);
        ck_assert_int_eq(bias->rank, 2);
        ck_assert_int_eq(bias->dims[0], H);
        ck_assert_int_eq(bias->dims[1], SPAN);
        for (int h = 0; h < H; h++)
            for (int d = 0; d < SPAN; d++)
                ck_assert_float_eq(bias->data[h * SPAN + d], weight[buckets[d] * H + h]);
    }
    /* the scores of layer 0 without the bias: the same weights, relative_buckets 0 */
    const recorded *with = event(&rec, "layers.0.attn.scores");
    tf_config plain = cfg;
    plain.relative_buckets = 0;
    tf_encoder *without;
    ck_assert_int_eq(tf_encoder_create(&plain, &without), TF_OK);
    for (size_t i = 0; i < tf_encoder_tensor_count(without); i++) {
        const char *tensor = tf_encoder_tensor_name(without, i);
        int32_t rank;
        int64_t shape[TF_MAX_RANK];
        static float values[64 * 64];
        ck_assert_int_eq(tf_encoder_tensor_shape(enc, tensor, &rank, shape), TF_OK);
        ck_assert_int_eq(tf_encoder_get_tensor(enc, tensor, values, rank, shape), TF_OK);
        ck_assert_int_eq(tf_encoder_set_tensor(without, tensor, values, rank, shape), TF_OK);
    }
    recording plain_rec = {0};
    a.trace_user_data = &plain_rec;
    ck_assert_int_eq(tf_encoder_forward(without, &a), TF_OK);
    const recorded *base = event(&plain_rec, "layers.0.attn.scores"); /* [B, H, T, T] */
    for (int h = 0; h < H; h++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                const size_t at = ((size_t)h * T + (size_t)i) * T + (size_t)j; /* sequence 0 */
                ck_assert_double_le(
                    fabs(with->data[at] - base->data[at] - weight[buckets[j - i + T - 1] * H + h]),
                    1e-5);
            }
    ck_assert_ptr_null(recording_find(&plain_rec, "layers.0.attn.relative_bias"));
    recording_free(&rec);
    recording_free(&plain_rec);
    tf_encoder_destroy(enc);
    tf_encoder_destroy(without);
}
END_TEST

/* One head, D 2, x = (a, 0), (0, 1), (0, a) with a = 1e20, W_Q = I, W_K a
 * quarter turn: the only q . k past float32 are those of tokens 0 and 2
 * (a^2), two apart. A layer with a window of 2 never computes them and runs;
 * the same layer global stops at score [0, 0, 0, 2] (the overflow check
 * looked at every pair, local layers included, before). */
START_TEST(test_overflow_outside_the_window_is_not_computed)
{
    enum { T = 3, D = 2 };
    const float x[T * D] = {1e20f, 0, 0, 1, 0, 1e20f};
    const float qk[2 * D * D] = {1, 0, 0, 1, /* W_Q */ 0, 1, -1, 0 /* W_K */};
    const float v[D * D] = {1e-3f, 0, 0, 1e-3f};
    const int64_t dims[2] = {D, D};
    for (int window = 0; window <= 2; window += 2) {
        tf_config cfg;
        tf_config_init(&cfg);
        cfg.d_model = D, cfg.n_heads = 1, cfg.d_ff = 2, cfg.position = TF_POSITION_NONE;
        cfg.bias = 0, cfg.attn_window = window;
        tf_encoder *enc;
        ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
        ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.q.weight", qk, 2, dims), TF_OK);
        ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.k.weight", qk + 4, 2, dims),
                         TF_OK);
        ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.v.weight", v, 2, dims), TF_OK);
        float out[T * D];
        tf_forward_args a;
        tf_forward_args_init(&a);
        a.batch = 1, a.seq_len = T, a.input_embeds = x, a.output = out;
        const tf_status s = tf_encoder_forward(enc, &a);
        if (window) {
            ck_assert_msg(s == TF_OK, "%s", tf_last_error());
            for (int i = 0; i < T * D; i++)
                ck_assert(isfinite(out[i]));
        } else {
            ck_assert_int_eq(s, TF_ERR_UNSUPPORTED);
            ck_assert_msg(strstr(tf_last_error(), "layers.0.attn.scores") &&
                              strstr(tf_last_error(), "[0, 0, 0, 2]"),
                          "%s", tf_last_error());
        }
        tf_encoder_destroy(enc);
    }
}
END_TEST

/* MPNet's relative bias goes into the score after q . k / sqrt(d_k): a
 * score of -1.8e38 that q . k of tokens 0 and 1 gives, plus a bias of
 * -1.7e38 in every bucket, is -inf in float32, which would silently mask key
 * 1 for query 0 (the rest stays finite, so the call returned TF_OK before
 * the locator added the biases as attention does). */
START_TEST(test_relative_bias_overflow_is_named)
{
    enum { T = 2, D = 2, R = 4 };
    const float A = 1.6e19f; /* q0 . k1 = -A^2 = -2.56e38, / sqrt(2) = -1.81e38 */
    const float x[T * D] = {A, 0, 0, A};
    const float qk[2 * D * D] = {1, 0,  0, 0, /* W_Q: q0 = (A, 0), q1 = 0 */
                                 0, -1, 0, 0 /* W_K: k0 = 0, k1 = (-A, 0) */};
    const float v[D * D] = {1e-3f, 0, 0, 1e-3f};
    const float bias[R] = {-1.7e38f, -1.7e38f, -1.7e38f, -1.7e38f}; /* (R, H) */
    const int64_t dims[2] = {D, D}, bias_dims[2] = {R, 1};
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = D, cfg.n_heads = 1, cfg.d_ff = 2, cfg.position = TF_POSITION_NONE;
    cfg.bias = 0, cfg.relative_buckets = R;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.q.weight", qk, 2, dims), TF_OK);
    ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.k.weight", qk + 4, 2, dims), TF_OK);
    ck_assert_int_eq(tf_encoder_set_tensor(enc, "layers.0.attn.v.weight", v, 2, dims), TF_OK);
    ck_assert_msg(tf_encoder_set_tensor(enc, "relative_bias.weight", bias, 2, bias_dims) == TF_OK,
                  "%s", tf_last_error());
    float out[T * D] = {0};
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = T, a.input_embeds = x, a.output = out;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(tf_last_error(), "layers.0.attn.scores") &&
                      strstr(tf_last_error(), "(-inf) at [0, 0, 0, 1]"),
                  "%s", tf_last_error());
    for (int i = 0; i < T * D; i++)
        ck_assert(out[i] == 0.0f); /* not written */
    tf_encoder_destroy(enc);
}
END_TEST

/* ---- Past the trained length ---------------------------------------------------- */

#define TRAINED 64 /* each beyond_* folder's max_position_embeddings (gen_encoder_pieces.py) */

static char folder_names[8][64];
static int n_folders;

/* The names tests/encoder_pieces/folders.txt lists, into folder_names: their count,
 * or -1 when the list is missing. */
static int read_folders(void)
{
    char path[600];
    FILE *f = snprintf(path, sizeof path, "%s/folders.txt", pieces_dir) < (int)sizeof path
        ? fopen(path, "r")
        : NULL;
    if (!f) {
        fprintf(stderr,
                "%s/folders.txt: missing (run tests/encoder_pieces/gen_encoder_pieces.py)\n",
                pieces_dir);
        return -1;
    }
    int n = 0;
    while (n < 8 && fscanf(f, "%63s", folder_names[n]) == 1)
        n++;
    fclose(f);
    return n;
}

/* Each Hugging Face folder with rotary or ALiBi positions (ModernBERT, GTE,
 * JinaBERT, NomicBERT) on sequences longer than its max_position_embeddings
 * (64; up to 130 tokens), which upstream computes, against the float64
 * reference (gen_encoder_pieces.py's beyond_folders names how upstream gets there):
 * max_positions stays the trained length, and no bound. */
START_TEST(test_beyond_trained_length)
{
    const char *name = folder_names[_i];
    char dir[1024];
    ck_assert(snprintf(dir, sizeof dir, "%s/%s", pieces_dir, name) < (int)sizeof dir);
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_load(dir, NULL, &enc) == TF_OK, "%s: %s", name, tf_last_error());
    tf_config cfg;
    tf_config_init(&cfg);
    ck_assert_int_eq(tf_encoder_get_config(enc, &cfg), TF_OK);
    ck_assert_int_eq(cfg.max_positions, TRAINED);
    npy_array ids, lengths, want;
    load_npy(dir, "input_ids.npy", &ids);
    load_npy(dir, "lengths.npy", &lengths);
    load_npy(dir, "out.npy", &want);
    const int B = (int)ids.dims[0], T = (int)ids.dims[1], D = cfg.d_model;
    ck_assert_int_gt(T, TRAINED);
    float *out = malloc((size_t)B * T * D * sizeof *out);
    ck_assert(out != NULL);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids.data, a.lengths = lengths.data;
    a.output = out;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s: %s", name, tf_last_error());
    const double e = error_of(out, want.data, B, T, D, lengths.data);
    printf("%-22s T %d of %d trained: max abs error %.2e\n", name, T, TRAINED, e);
    ck_assert_msg(e <= TOL, "%s: error %g > %g", name, e, TOL);
    ck_assert(padding_is_zero(out, B, T, (size_t)D, lengths.data));
    free(out);
    npy_free(&ids), npy_free(&lengths), npy_free(&want);
    tf_encoder_destroy(enc);
}
END_TEST

/* beyond_nomic's config.json says vocab_size 60 with pad_vocab_size_multiple
 * 64, which NomicBertModel rounds up to the 64 rows its word_embeddings has:
 * the padded rows are the model's (their ids compute, as upstream's). */
START_TEST(test_nomic_vocab_rounded_up)
{
    char dir[1024];
    ck_assert(snprintf(dir, sizeof dir, "%s/beyond_nomic", pieces_dir) < (int)sizeof dir);
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_load(dir, NULL, &enc) == TF_OK, "%s", tf_last_error());
    tf_config cfg;
    tf_config_init(&cfg);
    ck_assert_int_eq(tf_encoder_get_config(enc, &cfg), TF_OK);
    ck_assert_int_eq(cfg.vocab_size, 64);
    const int32_t ids[3] = {0, 63, 64};
    float out[3 * 16];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = 2, a.input_ids = ids, a.output = out;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    a.seq_len = 3;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(tf_last_error(), "token id 64 at [0,2] is outside the vocabulary (64)");
    tf_encoder_destroy(enc);
}
END_TEST

/* Rotary and ALiBi positions are computed for any length: a model whose
 * max_positions (its trained length) is 8 computes 12 tokens bit for bit as
 * the same model without one; learned and sinusoidal positions stay bounded
 * by it. */
START_TEST(test_rotary_and_alibi_are_not_bounded)
{
    enum { T = 12, D = 8, P = 8 };
    const int32_t kinds[4] = {TF_POSITION_ROTARY, TF_POSITION_ALIBI, TF_POSITION_LEARNED,
                              TF_POSITION_SINUSOIDAL};
    float x[T * D], bounded[T * D], free_of_it[T * D];
    fill_uniform(x, T * D, 13, -1.0f, 1.0f);
    for (int k = 0; k < 4; k++) {
        tf_config cfg;
        tf_config_init(&cfg);
        cfg.d_model = D, cfg.n_heads = 2, cfg.d_ff = 16, cfg.n_layers = 2, cfg.seed = 3;
        cfg.position = kinds[k], cfg.max_positions = P;
        tf_encoder *enc;
        ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
        tf_forward_args a;
        tf_forward_args_init(&a);
        a.batch = 1, a.seq_len = T, a.input_embeds = x, a.output = bounded;
        const tf_status s = tf_encoder_forward(enc, &a);
        tf_encoder_destroy(enc);
        if (kinds[k] == TF_POSITION_LEARNED || kinds[k] == TF_POSITION_SINUSOIDAL) {
            ck_assert_int_eq(s, TF_ERR_INVALID_ARGUMENT);
            ck_assert_str_eq(tf_last_error(), "sequence length 12 exceeds max_positions 8");
            continue;
        }
        ck_assert_msg(s == TF_OK, "%s", tf_last_error());
        cfg.max_positions = 0;
        ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
        a.output = free_of_it;
        ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
        ck_assert_mem_eq(bounded, free_of_it, sizeof bounded);
        tf_encoder_destroy(enc);
    }
}
END_TEST

/* ---- Validation of the fields 0.4.0 added ------------------------------------- */

typedef struct bad_field {
    const char *message; /* a piece of the message */
    void (*set)(tf_config *c);
} bad_field;

static void gated_2(tf_config *c)
{
    c->ffn_gated = 2;
}
static void norm_bias_neg(tf_config *c)
{
    c->norm_bias = -1;
}
static void skip_2(tf_config *c)
{
    c->skip_first_norm1 = 2;
}
static void skip_post(tf_config *c)
{
    c->skip_first_norm1 = 1;
}
static void rotary_dim_odd(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_dim = 3;
}
static void rotary_dim_big(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_dim = 66;
}
static void rotary_dim_alone(tf_config *c)
{
    c->rotary_dim = 8;
}
static void odd_head_rotary(tf_config *c)
{
    c->d_model = 6, c->n_heads = 2, c->d_ff = 4, c->position = TF_POSITION_ROTARY;
}
static void interleaved_2(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_interleaved = 2;
}
static void interleaved_alone(tf_config *c)
{
    c->rotary_interleaved = 1;
}
static void base_one(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_base = 1.0f;
}
static void base_nan(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_base = NAN;
}
static void base_alone(tf_config *c)
{
    c->position = TF_POSITION_ALIBI, c->rotary_base = 500.0f;
}
static void local_base_neg(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_base_local = -3.0f;
}
static void local_base_alone(tf_config *c)
{
    c->rotary_base_local = 10000.0f;
}
static void ntk_half(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_ntk_factor = 0.5f;
}
static void ntk_inf(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_ntk_factor = INFINITY;
}
static void ntk_alone(tf_config *c)
{
    c->rotary_ntk_factor = 2.0f;
}
static void ntk_dim_2(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_dim = 2, c->rotary_ntk_factor = 2.0f;
}
static void ntk_positions_neg(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_ntk_factor = 2.0f, c->rotary_ntk_positions = -1;
}
static void ntk_positions_alone(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_ntk_positions = 2048;
}
static void linear_half(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_linear_factor = 0.5f;
}
static void linear_nan(tf_config *c)
{
    c->position = TF_POSITION_ROTARY, c->rotary_linear_factor = NAN;
}
static void linear_alone(tf_config *c)
{
    c->rotary_linear_factor = 1.5f;
}
static void window_odd(tf_config *c)
{
    c->attn_window = 127;
}
static void window_neg(tf_config *c)
{
    c->attn_window = -2;
}
static void every_neg(tf_config *c)
{
    c->attn_window = 8, c->global_every = -1;
}
static void every_alone(tf_config *c)
{
    c->global_every = 3;
}
static void relative_odd(tf_config *c)
{
    c->relative_buckets = 31;
}
static void relative_2(tf_config *c)
{
    c->relative_buckets = 2;
}
static void relative_big(tf_config *c)
{
    c->relative_buckets = 2048;
}
static void relative_neg(tf_config *c)
{
    c->relative_buckets = -32;
}
static void distance_alone(tf_config *c)
{
    c->relative_max_distance = 64;
}
static void distance_short(tf_config *c)
{
    c->relative_buckets = 32, c->relative_max_distance = 8;
}
static void distance_neg(tf_config *c)
{
    c->relative_buckets = 32, c->relative_max_distance = -1;
}
static void qk_norm_2(tf_config *c)
{
    c->qk_norm = 2;
}
static void norm1b_neg(tf_config *c)
{
    c->add_norm1b = -1;
}
static void norm1b_pre(tf_config *c)
{
    c->norm_placement = TF_NORM_PRE, c->add_norm1b = 1;
}
static void position_5(tf_config *c)
{
    c->position = 5;
}
static void activation_5(tf_config *c)
{
    c->activation = 5;
}

static const bad_field bad_fields[] = {
    {"config.ffn_gated: expected 0..1, got 2", gated_2},
    {"config.norm_bias: expected 0..1, got -1", norm_bias_neg},
    {"config.skip_first_norm1: expected 0..1, got 2", skip_2},
    {"config.skip_first_norm1: 1 needs norm_placement \"pre\" (it is \"post\")", skip_post},
    {"config.rotary_dim: expected an even number (dimensions rotate in pairs), got 3",
     rotary_dim_odd},
    {"config.rotary_dim: expected 0..64, got 66", rotary_dim_big},
    {"config.rotary_dim: 8 needs position \"rotary\" (it is \"sinusoidal\")", rotary_dim_alone},
    {"config.rotary_dim: 0 rotates all d_k = 3 dimensions, which is odd", odd_head_rotary},
    {"config.rotary_interleaved: expected 0..1, got 2", interleaved_2},
    {"config.rotary_interleaved: 1 needs position \"rotary\"", interleaved_alone},
    {"config.rotary_base: expected 0 or a finite value > 1, got 1", base_one},
    {"config.rotary_base: expected 0 or a finite value > 1, got nan", base_nan},
    {"config.rotary_base: 500 needs position \"rotary\" (it is \"alibi\")", base_alone},
    {"config.rotary_base_local: expected 0 or a finite value > 1, got -3", local_base_neg},
    {"config.rotary_base_local: 10000 needs position \"rotary\"", local_base_alone},
    {"config.rotary_ntk_factor: expected 0 or a finite value >= 1, got 0.5", ntk_half},
    {"config.rotary_ntk_factor: expected 0 or a finite value >= 1, got inf", ntk_inf},
    {"config.rotary_ntk_factor: 2 needs position \"rotary\"", ntk_alone},
    {"config.rotary_ntk_factor: 2 needs a rotary_dim > 2 (it is 2)", ntk_dim_2},
    {"config.rotary_ntk_positions: expected 0..16777216, got -1", ntk_positions_neg},
    {"config.rotary_ntk_positions: 2048 needs a rotary_ntk_factor", ntk_positions_alone},
    {"config.rotary_linear_factor: expected 0 or a finite value >= 1, got 0.5", linear_half},
    {"config.rotary_linear_factor: expected 0 or a finite value >= 1, got nan", linear_nan},
    {"config.rotary_linear_factor: 1.5 needs position \"rotary\" (it is \"sinusoidal\")",
     linear_alone},
    {"config.attn_window: expected an even number (W/2 keys each side), got 127", window_odd},
    {"config.attn_window: expected 0..16777216, got -2", window_neg},
    {"config.global_every: expected 0..1024, got -1", every_neg},
    {"config.global_every: 3 needs an attn_window", every_alone},
    {"config.relative_buckets: expected 0 or an even number in 4..1024 (half the buckets for "
     "each direction, exact and logarithmic ones in each), got 31",
     relative_odd},
    {"config.relative_buckets: expected 0 or an even number in 4..1024", relative_2},
    {"config.relative_buckets: expected 0..1024, got 2048", relative_big},
    {"config.relative_buckets: expected 0..1024, got -32", relative_neg},
    {"config.relative_max_distance: 64 needs relative_buckets", distance_alone},
    {"config.relative_max_distance: expected 0 or more than relative_buckets / 4 = 8 (the "
     "distances with a bucket each), got 8",
     distance_short},
    {"config.relative_max_distance: expected 0..16777216, got -1", distance_neg},
    {"config.qk_norm: expected 0..1, got 2", qk_norm_2},
    {"config.add_norm1b: expected 0..1, got -1", norm1b_neg},
    {"config.add_norm1b: 1 needs norm_placement \"post\" (it is \"pre\")", norm1b_pre},
    {"config.position: expected 0..4, got 5", position_5},
    {"config.activation: expected 0..4, got 5", activation_5},
};
enum { N_BAD = sizeof bad_fields / sizeof bad_fields[0] };

START_TEST(test_bad_field)
{
    const bad_field *bad = &bad_fields[_i];
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 128, cfg.n_heads = 2, cfg.d_ff = 16;
    bad->set(&cfg);
    tf_encoder *enc = (tf_encoder *)&cfg; /* set to NULL on failure */
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(enc);
    ck_assert_msg(strstr(tf_last_error(), bad->message) != NULL, "expected \"%s\" in \"%s\"",
                  bad->message, tf_last_error());
}
END_TEST

/* The 0.4.0 fields survive tf_encoder_save and tf_encoder_load; a file
 * without them (as 0.3.0 wrote) loads with each 0. */
START_TEST(test_fields_saved)
{
    char dir[1024];
    tf_encoder *enc = load_case("modernbert_like", dir);
    tf_config c;
    tf_config_init(&c);
    ck_assert_int_eq(tf_encoder_get_config(enc, &c), TF_OK);
    ck_assert_int_eq(c.position, TF_POSITION_ROTARY);
    ck_assert_int_eq(c.ffn_gated, 1);
    ck_assert_int_eq(c.skip_first_norm1, 1);
    ck_assert_int_eq(c.attn_window, 4);
    ck_assert_int_eq(c.global_every, 3);
    ck_assert_float_eq(c.rotary_base, 160000.0f);
    ck_assert_float_eq(c.rotary_base_local, 10000.0f);
    ck_assert_ptr_null(strstr(tf_encoder_tensor_name(enc, 1), "layers.0.norm1"));
    tf_encoder_destroy(enc);
}
END_TEST

/* Every 0.4.0 field goes through tf_encoder_save and back (position_offset
 * was left out of the file before: a saved RoBERTa loaded with offset 0). */
START_TEST(test_save_keeps_every_new_field)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 16, cfg.n_heads = 2, cfg.d_ff = 8, cfg.n_layers = 3, cfg.vocab_size = 10;
    cfg.position = TF_POSITION_LEARNED, cfg.max_positions = 12, cfg.position_offset = 2;
    cfg.norm_placement = TF_NORM_PRE, cfg.bias = 0, cfg.norm_bias = 1, cfg.ffn_gated = 1;
    cfg.skip_first_norm1 = 1, cfg.activation = TF_ACTIVATION_SILU, cfg.attn_window = 6;
    cfg.global_every = 2, cfg.relative_buckets = 12, cfg.relative_max_distance = 40;
    tf_config rotary = cfg;
    rotary.position = TF_POSITION_ROTARY, rotary.max_positions = 0, rotary.position_offset = 0;
    rotary.rotary_dim = 4, rotary.rotary_interleaved = 1, rotary.rotary_base = 500.0f;
    rotary.rotary_base_local = 20.5f, rotary.rotary_ntk_factor = 1.5f;
    rotary.rotary_ntk_positions = 64, rotary.rotary_linear_factor = 1.25f;
    rotary.qk_norm = 1;
    tf_config post = cfg;
    post.norm_placement = TF_NORM_POST, post.skip_first_norm1 = 0, post.add_norm1b = 1;
    const tf_config *cases[3] = {&cfg, &rotary, &post};
    make_tmp_dir();
    for (int i = 0; i < 3; i++) {
        tf_encoder *enc, *back;
        ck_assert_msg(tf_encoder_create(cases[i], &enc) == TF_OK, "%s", tf_last_error());
        const path_buf file = join(tmp_dir, "saved.safetensors");
        ck_assert_msg(tf_encoder_save(enc, file.s) == TF_OK, "%s", tf_last_error());
        ck_assert_msg(tf_encoder_load(file.s, NULL, &back) == TF_OK, "%s", tf_last_error());
        tf_config want, got;
        tf_config_init(&want);
        tf_config_init(&got);
        ck_assert_int_eq(tf_encoder_get_config(enc, &want), TF_OK);
        ck_assert_int_eq(tf_encoder_get_config(back, &got), TF_OK);
        ck_assert_mem_eq(&got, &want, sizeof got);
        tf_encoder_destroy(enc);
        tf_encoder_destroy(back);
    }
    remove_tmp_dir();
}
END_TEST

int main(void)
{
    n_cases = read_cases("TFENC_PIECES_DIR", "tests/encoder_pieces/gen_encoder_pieces.py",
                         pieces_dir, sizeof pieces_dir, case_names, 16);
    if (n_cases < 0)
        return 77; /* skip */

    Suite *s = suite_create("encoder_pieces");
    TCase *tc = tcase_create("against float64 references");
    tcase_add_loop_test(tc, test_encoder_pieces_case, 0, n_cases);
    tcase_add_test(tc, test_wide_window_is_global);
    tcase_add_test(tc, test_window_in_trace);
    tcase_add_test(tc, test_fields_saved);
    tcase_add_test(tc, test_save_keeps_every_new_field);
    tcase_add_test(tc, test_overflow_outside_the_window_is_not_computed);
    tcase_add_test(tc, test_relative_bias_overflow_is_named);
    tcase_add_test(tc, test_dynamic_ntk_is_per_call);
    tcase_add_test(tc, test_trace_of_the_new_steps);
    tcase_add_test(tc, test_relative_bias_in_trace);
    tcase_add_test(tc, test_qk_norm_in_trace);
    suite_add_tcase(s, tc);
    n_folders = read_folders();
    TCase *beyond = tcase_create("past the trained length");
    if (n_folders > 0)
        tcase_add_loop_test(beyond, test_beyond_trained_length, 0, n_folders);
    tcase_add_test(beyond, test_nomic_vocab_rounded_up);
    tcase_add_test(beyond, test_rotary_and_alibi_are_not_bounded);
    suite_add_tcase(s, beyond);
    TCase *bad = tcase_create("config validation");
    tcase_add_loop_test(bad, test_bad_field, 0, N_BAD);
    suite_add_tcase(s, bad);
    return n_cases == 0 || n_folders <= 0 ? EXIT_FAILURE : run_suite(s);
}
