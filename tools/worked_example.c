/* worked_example.c — `tfenc explain --worked-example`: the tutorial's
 * section 3.3 example (3 tokens, d_k = 2) run through the library, printing
 * the numbers the tutorial prints: Q K^T, the scaled scores, e^x, the row
 * sums and the attention weights. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "recording.h"
#include "tfenc.h"

static const float tutorial_q[3][2] = {{0.1f, 0.2f}, {0.5f, 0.6f}, {0.9f, 1.0f}};

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

static void print_row(const char *indent, const double *v, int n)
{
    printf("%s[", indent);
    for (int j = 0; j < n; j++)
        printf(" %6.3f", v[j]);
    printf(" ]");
}

int tfenc_worked_example(void)
{
    tf_encoder *enc = NULL;
    recording rec = {0};
    float out[6];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = 1, a.seq_len = 3, a.input_embeds = &tutorial_q[0][0], a.output = out;
    a.trace = on_event, a.trace_user_data = &rec;
    tf_status s = make_model(&enc);
    if (!s)
        s = tf_encoder_forward(enc, &a);
    const recorded *q = recording_find(&rec, "layers.0.attn.q");
    const recorded *k = recording_find(&rec, "layers.0.attn.k");
    const recorded *scores = recording_find(&rec, "layers.0.attn.scores");
    const recorded *weights = recording_find(&rec, "layers.0.attn.weights");
    if (s || !q || !k || !scores || !weights) {
        cli_error("explain", "%s: %s", tf_status_name(s),
                  s ? tf_last_error() : "the trace lacks layer 0's attention");
        recording_free(&rec);
        tf_encoder_destroy(enc);
        return CLI_FAILED;
    }
    printf("The tutorial's worked example (section 3.3): 3 tokens, one head, d_k = 2.\n"
           "Computed by libtfenc: d_model 2, 1 head, W_Q = W_K = I, b_Q = 0, b_K = 0.2, so with\n"
           "the tutorial's Q as input, the layer's Q and K are the tutorial's.\n\n");
    printf("  Q (3, 2)                  K (3, 2)\n");
    for (int i = 0; i < 3; i++) {
        const double qi[2] = {q->data[2 * i], q->data[2 * i + 1]};
        const double ki[2] = {k->data[2 * i], k->data[2 * i + 1]};
        print_row("  ", qi, 2);
        print_row("          ", ki, 2);
        printf("\n");
    }
    printf("\nQ K^T: (3, 2) . (2, 3) -> (3, 3), row i = how query i matches each key\n");
    for (int i = 0; i < 3; i++) {
        double row[3];
        for (int j = 0; j < 3; j++)
            row[j] = (double)q->data[2 * i] * k->data[2 * j] +
                     (double)q->data[2 * i + 1] * k->data[2 * j + 1];
        print_row("  ", row, 3);
        printf("\n");
    }
    printf("\ndivided by sqrt(d_k) = sqrt(2) = %.3f: the scaled scores (layers.0.attn.scores)\n",
           sqrt(2.0));
    for (int i = 0; i < 3; i++) {
        const double row[3] = {scores->data[3 * i], scores->data[3 * i + 1],
                               scores->data[3 * i + 2]};
        print_row("  ", row, 3);
        printf("\n");
    }
    printf("\nsoftmax of each row: e^x, the row's sum, e^x / sum = the attention weights\n"
           "(layers.0.attn.weights; the library subtracts each row's maximum before e^x,\n"
           "which changes no ratio)\n");
    for (int i = 0; i < 3; i++) {
        double e[3], w[3], sum = 0;
        for (int j = 0; j < 3; j++)
            sum += e[j] = exp(scores->data[3 * i + j]);
        for (int j = 0; j < 3; j++)
            w[j] = weights->data[3 * i + j];
        printf("  row %d: e^x", i);
        print_row(" ", e, 3);
        printf("  sum %.3f  ->  weights", sum);
        print_row(" ", w, 3);
        printf("\n");
    }
    printf("\nEvery row sums to 1; the last query puts %.3f of its attention on the last key.\n"
           "(The tutorial rounds each step to 3 decimals, so its last digit can differ by 1.)\n",
           (double)weights->data[8]);
    recording_free(&rec);
    tf_encoder_destroy(enc);
    return 0;
}
