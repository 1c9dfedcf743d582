/* test_golden.c — the library against PyTorch's nn.TransformerEncoder
 * (fixtures in tests/golden/, written by gen_golden.py from float64 runs):
 * output, every layer's hidden state and layer 0's attention weights, max
 * abs error <= 1e-5 on real tokens; padded positions of our output are 0. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "common/util.h"
#include "common/suite.h"
#include "tfenc.h"

#define TOL 1e-5

static char golden_dir[512];
static char case_names[16][64];
static int n_cases;

static void load_npy(const char *case_dir, const char *file, npy_array *a)
{
    char path[1024], err[256];
    ck_assert(snprintf(path, sizeof path, "%s/%s", case_dir, file) < (int)sizeof path);
    ck_assert_msg(npy_read(path, a, err, sizeof err) == 0, "%s", err);
}

static int meta_int(const char *case_dir, const char *key, double *value)
{
    char path[1024], k[64];
    double v;
    ck_assert(snprintf(path, sizeof path, "%s/meta.txt", case_dir) < (int)sizeof path);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    int found = 0;
    while (!found && fscanf(f, "%63s %lf", k, &v) == 2)
        if (strcmp(k, key) == 0)
            *value = v, found = 1;
    fclose(f);
    ck_assert_msg(found, "%s: no %s", path, key);
    return (int)*value;
}

/* An encoder configured by meta.txt with every weights/<name>.npy set. */
static tf_encoder *load_encoder(const char *dir)
{
    double v;
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = meta_int(dir, "d_model", &v);
    cfg.n_heads = meta_int(dir, "n_heads", &v);
    cfg.d_ff = meta_int(dir, "d_ff", &v);
    cfg.n_layers = meta_int(dir, "n_layers", &v);
    cfg.norm_placement = meta_int(dir, "norm_placement", &v);
    cfg.activation = meta_int(dir, "activation", &v);
    cfg.final_norm = meta_int(dir, "final_norm", &v);
    meta_int(dir, "layer_norm_eps", &v);
    cfg.layer_norm_eps = (float)v;
    cfg.position = TF_POSITION_NONE;
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_create(&cfg, &enc) == TF_OK, "%s", tf_last_error());
    for (size_t i = 0; i < tf_encoder_tensor_count(enc); i++) {
        const char *name = tf_encoder_tensor_name(enc, i);
        char file[256];
        npy_array w;
        ck_assert(snprintf(file, sizeof file, "weights/%s.npy", name) < (int)sizeof file);
        load_npy(dir, file, &w);
        ck_assert_msg(tf_encoder_set_tensor(enc, name, w.data, w.rank, w.dims) == TF_OK, "%s",
                      tf_last_error());
        npy_free(&w);
    }
    return enc;
}

START_TEST(test_golden_case)
{
    char dir[1024];
    ck_assert(snprintf(dir, sizeof dir, "%s/%s", golden_dir, case_names[_i]) < (int)sizeof dir);
    tf_encoder *enc = load_encoder(dir);
    double v;
    const int B = meta_int(dir, "batch", &v), T = meta_int(dir, "seq_len", &v);
    const int L = meta_int(dir, "n_layers", &v), H = meta_int(dir, "n_heads", &v);
    const int D = meta_int(dir, "d_model", &v);
    npy_array x, lengths, want_out, want_hidden, want_attn;
    load_npy(dir, "x.npy", &x);
    load_npy(dir, "lengths.npy", &lengths);
    load_npy(dir, "out.npy", &want_out);
    load_npy(dir, "hidden.npy", &want_hidden);
    load_npy(dir, "attn0.npy", &want_attn);
    ck_assert_int_eq((int)x.count, B * T * D);

    const size_t BTD = (size_t)B * T * D, BHTT = (size_t)B * H * T * T;
    float *out = malloc(BTD * sizeof(float)), *hidden = malloc((L + 1) * BTD * sizeof(float));
    float *attn = malloc(L * BHTT * sizeof(float));
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x.data, a.lengths = lengths.data;
    a.causal = meta_int(dir, "causal", &v);
    a.output = out, a.hidden_states = hidden, a.attentions = attn;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());

    double *want = malloc((L + 1) * BTD * sizeof(double));
    const float *wo = want_out.data, *wh = want_hidden.data, *wa = want_attn.data;
    for (size_t i = 0; i < BTD; i++)
        want[i] = wo[i];
    const double e_out = max_abs_err_real(out, want, B, T, D, lengths.data);
    double e_hidden = 0;
    for (int l = 0; l <= L; l++) {
        for (size_t i = 0; i < BTD; i++)
            want[i] = wh[l * BTD + i];
        const double e = max_abs_err_real(hidden + l * BTD, want, B, T, D, lengths.data);
        e_hidden = e > e_hidden ? e : e_hidden;
    }
    /* Attention of layer 0: rows of real queries, over all T keys (PyTorch
     * gives padded keys weight 0, as we do). */
    double e_attn = 0;
    const int32_t *len = lengths.data;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < len[b]; i++)
                for (int j = 0; j < T; j++) {
                    const size_t k = (((size_t)b * H + h) * T + i) * T + j;
                    const double e = fabs((double)attn[k] - wa[k]);
                    e_attn = e > e_attn ? e : e_attn;
                }
    printf("%-36s max abs error: output %.2e hidden %.2e attention %.2e\n", case_names[_i], e_out,
           e_hidden, e_attn);
    ck_assert_msg(e_out <= TOL, "%s: output error %g > %g", case_names[_i], e_out, TOL);
    ck_assert_msg(e_hidden <= TOL, "%s: hidden error %g > %g", case_names[_i], e_hidden, TOL);
    ck_assert_msg(e_attn <= TOL, "%s: attention error %g > %g", case_names[_i], e_attn, TOL);
    ck_assert(padding_is_zero(out, B, T, D, len));

    free(out), free(hidden), free(attn), free(want);
    npy_free(&x), npy_free(&lengths), npy_free(&want_out), npy_free(&want_hidden);
    npy_free(&want_attn);
    tf_encoder_destroy(enc);
}
END_TEST

int main(void)
{
    n_cases = read_cases("TFENC_GOLDEN_DIR", "tests/golden/gen_golden.py", golden_dir,
                         sizeof golden_dir, case_names, 16);
    if (n_cases < 0)
        return 77; /* skip */

    Suite *s = suite_create("golden");
    TCase *tc = tcase_create("PyTorch nn.TransformerEncoder");
    tcase_add_loop_test(tc, test_golden_case, 0, n_cases);
    suite_add_tcase(s, tc);
    return n_cases == 0 ? EXIT_FAILURE : run_suite(s);
}
