/* worked_example.c — the tutorial's section 3.3 example (3 tokens, d_k = 2)
 * run through the library: Q K^T, the scaled scores, e^x, the row sums and
 * the attention weights; `tfenc explain --worked-example` prints them, the
 * --html page tabulates them beside the tutorial's own. */
#include "worked_example.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "recording.h"
#include "tfenc.h"

static const float tutorial_q[WE_T][WE_DK] = {{0.1f, 0.2f}, {0.5f, 0.6f}, {0.9f, 1.0f}};

const worked_example worked_example_tutorial = {
    .q = {{0.1, 0.2}, {0.5, 0.6}, {0.9, 1.0}},
    .k = {{0.3, 0.4}, {0.7, 0.8}, {1.1, 1.2}},
    .qk = {{0.11, 0.23, 0.35}, {0.39, 0.83, 1.27}, {0.67, 1.43, 2.19}},
    .scaled = {{0.078, 0.163, 0.248}, {0.276, 0.587, 0.898}, {0.474, 1.011, 1.549}},
    .exp = {{1.081, 1.177, 1.281}, {1.318, 1.800, 2.455}, {1.606, 2.748, 4.707}},
    .sum = {3.539, 5.573, 9.061},
    .weights = {{0.305, 0.333, 0.362}, {0.237, 0.323, 0.440}, {0.177, 0.303, 0.520}},
};

static void on_event(const tf_trace_event *ev, void *user)
{
    recording_add(user, ev);
}

/* A one-head model of width 2 whose Q is its input and whose K is its input
 * + 0.2: fed the tutorial's Q, its K is the tutorial's K. */
static tf_status make_model(tf_encoder **enc)
{
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 2, cfg.n_heads = 1, cfg.d_ff = 4, cfg.position = TF_POSITION_NONE;
    tf_status s = tf_encoder_create(&cfg, enc);
    const int64_t mat[2] = {2, 2}, vec[1] = {2};
    const float eye[4] = {1, 0, 0, 1}, zero[2] = {0, 0}, shift[2] = {0.2f, 0.2f};
    if (!s)
        s = tf_encoder_set_tensor(*enc, "layers.0.attn.q.weight", eye, 2, mat);
    if (!s)
        s = tf_encoder_set_tensor(*enc, "layers.0.attn.q.bias", zero, 1, vec);
    if (!s)
        s = tf_encoder_set_tensor(*enc, "layers.0.attn.k.weight", eye, 2, mat);
    if (!s)
        s = tf_encoder_set_tensor(*enc, "layers.0.attn.k.bias", shift, 1, vec);
    return s;
}

/* Every step from the traced q, k [1, 1, T, d_k], scores and weights
 * [1, 1, T, T]. */
static void fill(worked_example *w, const recorded *q, const recorded *k, const recorded *scores,
                 const recorded *weights)
{
    for (int i = 0; i < WE_T; i++) {
        w->sum[i] = 0;
        for (int e = 0; e < WE_DK; e++) {
            w->q[i][e] = q->data[WE_DK * i + e];
            w->k[i][e] = k->data[WE_DK * i + e];
        }
        for (int j = 0; j < WE_T; j++) {
            w->qk[i][j] = (double)q->data[2 * i] * k->data[2 * j] +
                (double)q->data[2 * i + 1] * k->data[2 * j + 1];
            w->scaled[i][j] = scores->data[WE_T * i + j];
            w->sum[i] += w->exp[i][j] = exp(w->scaled[i][j]);
            w->weights[i][j] = weights->data[WE_T * i + j];
        }
    }
}

int worked_example_compute(worked_example *out, char *err, size_t err_size)
{
    tf_encoder *enc = NULL;
    recording rec = {0};
    float result[WE_T * WE_DK];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = WE_T, a.input_embeds = &tutorial_q[0][0], a.output = result;
    a.trace = on_event, a.trace_user_data = &rec;
    tf_status s = make_model(&enc);
    if (!s)
        s = tf_encoder_forward(enc, &a);
    const recorded *q = recording_find(&rec, "layers.0.attn.q");
    const recorded *k = recording_find(&rec, "layers.0.attn.k");
    const recorded *scores = recording_find(&rec, "layers.0.attn.scores");
    const recorded *weights = recording_find(&rec, "layers.0.attn.weights");
    const int ok = !s && q && k && scores && weights;
    if (ok)
        fill(out, q, k, scores, weights);
    else
        snprintf(err, err_size, "%s", s ? tf_last_error() : "the trace lacks layer 0's attention");
    recording_free(&rec);
    tf_encoder_destroy(enc);
    return ok ? 0 : -1;
}

static void print_row(const char *indent, const double *v, int n)
{
    printf("%s[", indent);
    for (int j = 0; j < n; j++)
        printf(" %6.3f", v[j]);
    printf(" ]");
}

int tfenc_worked_example(void)
{
    worked_example w;
    char err[600];
    if (worked_example_compute(&w, err, sizeof err) != 0) {
        cli_error("explain", "%s", err);
        return CLI_FAILED;
    }
    printf("The tutorial's worked example (section 3.3): 3 tokens, one head, d_k = 2.\n"
           "Computed by libtfenc: d_model 2, 1 head, W_Q = W_K = I, b_Q = 0, b_K = 0.2, so with\n"
           "the tutorial's Q as input, the layer's Q and K are the tutorial's.\n\n");
    printf("  Q (3, 2)                  K (3, 2)\n");
    for (int i = 0; i < WE_T; i++) {
        print_row("  ", w.q[i], WE_DK);
        print_row("          ", w.k[i], WE_DK);
        printf("\n");
    }
    printf("\nQ K^T: (3, 2) . (2, 3) -> (3, 3), row i = how query i matches each key\n");
    for (int i = 0; i < WE_T; i++) {
        print_row("  ", w.qk[i], WE_T);
        printf("\n");
    }
    printf("\ndivided by sqrt(d_k) = sqrt(2) = %.3f: the scaled scores (layers.0.attn.scores)\n",
           sqrt(2.0));
    for (int i = 0; i < WE_T; i++) {
        print_row("  ", w.scaled[i], WE_T);
        printf("\n");
    }
    printf("\nsoftmax of each row: e^x, the row's sum, e^x / sum = the attention weights\n"
           "(layers.0.attn.weights; the library subtracts each row's maximum before e^x,\n"
           "which changes no ratio)\n");
    for (int i = 0; i < WE_T; i++) {
        printf("  row %d: e^x", i);
        print_row(" ", w.exp[i], WE_T);
        printf("  sum %.3f  ->  weights", w.sum[i]);
        print_row(" ", w.weights[i], WE_T);
        printf("\n");
    }
    printf("\nEvery row sums to 1; the last query puts %.3f of its attention on the last key.\n"
           "(The tutorial rounds each step to 3 decimals, so its last digit can differ by 1.)\n",
           w.weights[2][2]);
    return 0;
}
