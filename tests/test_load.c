/* test_load.c — checkpoints: the Hugging Face BERT fixture reproduces
 * upstream's outputs; PyTorch checkpoints (F32, F16, BF16; options or
 * metadata) reproduce PyTorch's; F32/F16/BF16 and renamed variants load to
 * the same weights; save -> load is bitwise; every malformed file, every
 * truncation and every I/O fault gives its status and message. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/expect.h"
#include "npy.h"
#include "common/suite.h"
#include "common/tensor.h"
#include "common/tmp_dir.h"
#include "common/util.h"
#include "tfenc.h"

static const char *data_dir, *golden_dir;

static npy_array load_npy(const char *path)
{
    npy_array a;
    char err[256];
    ck_assert_msg(npy_read(path, &a, err, sizeof err) == 0, "%s", err);
    return a;
}

static tf_load_options options(int n_heads, int activation, int placement)
{
    tf_load_options o;
    tf_load_options_init(&o);
    o.n_heads = n_heads, o.activation = activation, o.norm_placement = placement;
    return o;
}

/* max |got - want| over rows of real tokens of [B, T, W] tensors. */
static double err_real(const float *got, const float *want, int B, int T, size_t W,
                       const int32_t *len)
{
    double worst = 0;
    for (int b = 0; b < B; b++)
        for (size_t i = 0; i < (size_t)len[b] * W; i++) {
            const double e = fabs((double)got[(size_t)b * T * W + i] - want[(size_t)b * T * W + i]);
            worst = e > worst || isnan(e) ? e : worst;
        }
    return worst;
}

/* ---- Hugging Face BERT ------------------------------------------------------ */

START_TEST(test_bert_tiny_matches_hugging_face)
{
    enum { B = 3, T = 37, D = 128, H = 4, L = 2 };
    char dir[1024];
    ck_assert(snprintf(dir, sizeof dir, "%s/bert_tiny", data_dir) < (int)sizeof dir);
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_load(dir, NULL, &enc) == TF_OK, "%s", tf_last_error());
    tf_config c;
    tf_config_init(&c);
    ck_assert_int_eq(tf_encoder_get_config(enc, &c), TF_OK);
    ck_assert_int_eq(c.d_model, D);
    ck_assert_int_eq(c.n_heads, H);
    ck_assert_int_eq(c.d_ff, 512);
    ck_assert_int_eq(c.n_layers, L);
    ck_assert_int_eq(c.vocab_size, 1000);
    ck_assert_int_eq(c.position, TF_POSITION_LEARNED);
    ck_assert_int_eq(c.max_positions, 128);
    ck_assert_int_eq(c.n_token_types, 2);
    ck_assert_int_eq(c.embedding_norm, 1);
    ck_assert_int_eq(c.pooler, 1);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU);
    ck_assert_float_eq(c.layer_norm_eps, 1e-12f);

    npy_array ids = load_npy(join(dir, "input_ids.npy").s);
    npy_array types = load_npy(join(dir, "token_type_ids.npy").s);
    npy_array mask = load_npy(join(dir, "attention_mask.npy").s);
    npy_array want_last = load_npy(join(dir, "last_hidden_state.npy").s);
    npy_array want_hidden = load_npy(join(dir, "hidden_states.npy").s);
    npy_array want_attn = load_npy(join(dir, "attentions.npy").s);
    npy_array want_pooled = load_npy(join(dir, "pooler_output.npy").s);
    const size_t BTD = (size_t)B * T * D, BHTT = (size_t)B * H * T * T;
    float *out = malloc(BTD * sizeof(float)), *hidden = malloc((L + 1) * BTD * sizeof(float));
    float *attn = malloc(L * BHTT * sizeof(float)), pooled[B * D];
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = ids.data, a.token_type_ids = types.data;
    a.attention_mask = mask.data, a.output = out, a.hidden_states = hidden, a.attentions = attn;
    a.pooled_output = pooled;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());

    const int32_t len[B] = {37, 20, 5};
    double e_last = err_real(out, want_last.data, B, T, D, len), e_hidden = 0, e_attn = 0,
           e_pool = 0;
    for (int l = 0; l <= L; l++)
        e_hidden = fmax(
            e_hidden,
            err_real(hidden + l * BTD, (float *)want_hidden.data + l * BTD, B, T, D, len));
    const float *wa = want_attn.data;
    for (int l = 0; l < L;
         l++) /* real query rows, over the real keys (upstream's padded keys are ~0) */
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                for (int i = 0; i < len[b]; i++)
                    for (int j = 0; j < T; j++) {
                        const size_t k = (size_t)l * BHTT + (((size_t)b * H + h) * T + i) * T + j;
                        e_attn = fmax(e_attn, fabs((double)attn[k] - wa[k]));
                    }
    for (int i = 0; i < B * D; i++)
        e_pool = fmax(e_pool, fabs((double)pooled[i] - ((float *)want_pooled.data)[i]));
    printf("bert_tiny max abs error: last_hidden_state %.2e hidden_states %.2e attentions %.2e "
           "pooler_output %.2e\n",
           e_last, e_hidden, e_attn, e_pool);
    ck_assert_double_le(e_last, 1e-4);
    ck_assert_double_le(e_hidden, 1e-4);
    ck_assert_double_le(e_attn, 1e-4);
    ck_assert_double_le(e_pool, 1e-4);

    npy_free(&ids), npy_free(&types), npy_free(&mask), npy_free(&want_last);
    npy_free(&want_hidden), npy_free(&want_attn), npy_free(&want_pooled);
    free(out), free(hidden), free(attn);
    tf_encoder_destroy(enc);
}
END_TEST

START_TEST(test_bert_tiny_inspect)
{
    char dir[1024];
    ck_assert(snprintf(dir, sizeof dir, "%s/bert_tiny", data_dir) < (int)sizeof dir);
    tf_model_info *info;
    ck_assert_msg(tf_model_inspect(dir, NULL, &info) == TF_OK, "%s", tf_last_error());
    ck_assert_str_eq(tf_model_info_format(info), "huggingface-bert");
    ck_assert_uint_eq(tf_model_info_tensor_count(info), 39);
    int found = 0;
    for (size_t i = 0; i < tf_model_info_tensor_count(info); i++) {
        tf_file_tensor t;
        ck_assert_int_eq(tf_model_info_tensor(info, i, &t), TF_OK);
        ck_assert_ptr_nonnull(t.maps_to);
        if (strcmp(t.name, "encoder.layer.1.intermediate.dense.weight") == 0) {
            ck_assert_str_eq(t.maps_to, "layers.1.ffn.up.weight");
            ck_assert_str_eq(t.dtype, "F32");
            ck_assert_int_eq(t.rank, 2);
            ck_assert_int_eq(t.dims[0], 512);
            found = 1;
        }
    }
    ck_assert(found);
    tf_file_tensor t;
    expect_failure(tf_model_info_tensor(info, 39, &t), TF_ERR_INVALID_ARGUMENT,
                   "tensor index 39: the file has 39 tensors");
    tf_model_info_destroy(info);
    tf_model_info_destroy(NULL);
}
END_TEST

/* ---- PyTorch checkpoints ------------------------------------------------------ */

static int read_key(const char *file, const char *key, int fallback)
{
    FILE *f = fopen(file, "r");
    ck_assert_msg(f != NULL, "cannot open %s", file);
    char k[64];
    int v, value = fallback;
    while (fscanf(f, "%63s %d", k, &v) == 2)
        if (strcmp(k, key) == 0)
            value = v;
    fclose(f);
    return value;
}

static char checkpoint_names[8][64];
static int n_checkpoints;

START_TEST(test_pytorch_checkpoint)
{
    const path_buf dir_path = join(golden_dir, checkpoint_names[_i]);
    const path_buf opts_path = join(dir_path.s, "options.txt");
    const char *dir = dir_path.s, *opts_file = opts_path.s;
    tf_load_options o = options(read_key(opts_file, "n_heads", 0),
                                read_key(opts_file, "activation", -1),
                                read_key(opts_file, "norm_placement", -1));
    tf_encoder *enc;
    ck_assert_msg(tf_encoder_load(join(dir, "model.safetensors").s, &o, &enc) == TF_OK, "%s",
                  tf_last_error());
    const int B = read_key(opts_file, "batch", 0), T = read_key(opts_file, "seq_len", 0);
    const int D = read_key(opts_file, "d_model", 0);
    npy_array x = load_npy(join(dir, "x.npy").s), len = load_npy(join(dir, "lengths.npy").s);
    npy_array want = load_npy(join(dir, "out.npy").s);
    float *out = malloc(sizeof(float) * B * T * D);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_embeds = x.data, a.lengths = len.data;
    a.causal = read_key(opts_file, "causal", 0), a.output = out;
    ck_assert_msg(tf_encoder_forward(enc, &a) == TF_OK, "%s", tf_last_error());
    const double e = err_real(out, want.data, B, T, D, len.data);
    printf("%-40s max abs error %.2e\n", checkpoint_names[_i], e);
    ck_assert_double_le(e, 1e-5);
    npy_free(&x), npy_free(&len), npy_free(&want);
    free(out);
    tf_encoder_destroy(enc);
}
END_TEST

START_TEST(test_pytorch_settings_are_required)
{
    const path_buf model = join(join(golden_dir, "pytorch_encoder_f32_options").s,
                                "model.safetensors");
    const char *file = model.s;
    tf_encoder *enc = (tf_encoder *)&enc;
    expect_failure(tf_encoder_load(file, NULL, &enc), TF_ERR_INVALID_ARGUMENT,
                   "n_heads is unknown (a PyTorch state_dict does not record it): pass it in "
                   "tf_load_options.n_heads or __metadata__ \"n_heads\"");
    ck_assert_ptr_null(enc);
    tf_load_options o = options(4, -1, -1);
    expect_failure(tf_encoder_load(file, &o, &enc), TF_ERR_INVALID_ARGUMENT,
                   "activation is unknown");
    o = options(4, TF_ACTIVATION_GELU, -1);
    expect_failure(tf_encoder_load(file, &o, &enc), TF_ERR_INVALID_ARGUMENT,
                   "norm_first is unknown");
    o.struct_size = 3;
    expect_failure(tf_encoder_load(file, &o, &enc), TF_ERR_INVALID_ARGUMENT,
                   "options.struct_size: expected");
    o = options(4, 7, 0);
    expect_failure(tf_encoder_load(file, &o, &enc), TF_ERR_INVALID_ARGUMENT,
                   "options.activation: expected -1 (from the file) or 0..4, got 7");
}
END_TEST

/* ---- Dtypes and names: the same weights however they are stored ------------ */

START_TEST(test_variants_load_to_the_same_weights)
{
    const path_buf variants = join(data_dir, "variants");
    const char *dir = variants.s;
    tf_load_options o = options(2, -1, -1);
    tf_encoder *ref, *other;
    ck_assert_msg(tf_encoder_load(join(dir, "f32.safetensors").s, &o, &ref) == TF_OK, "%s",
                  tf_last_error());
    size_t n;
    float *special = tensor_copy(ref, "layers.1.ffn.down.bias", &n);
    ck_assert_float_eq(special[0], 0x1p-24f); /* F16's smallest subnormal, exactly */
    free(special);
    static const char *const others[] = {"f16.safetensors", "bf16.safetensors",
                                         "prefixed_old_names_extras.safetensors"};
    for (int v = 0; v < 3; v++) {
        ck_assert_msg(tf_encoder_load(join(dir, others[v]).s, &o, &other) == TF_OK, "%s: %s",
                      others[v], tf_last_error());
        ck_assert_uint_eq(tf_encoder_tensor_count(other), tf_encoder_tensor_count(ref));
        for (size_t i = 0; i < tf_encoder_tensor_count(ref); i++) {
            const char *name = tf_encoder_tensor_name(ref, i);
            size_t n1 = 0, n2 = 0;
            float *a = tensor_copy(ref, name, &n1), *b = tensor_copy(other, name, &n2);
            ck_assert_msg(b != NULL && n1 == n2, "%s: %s", others[v], name);
            ck_assert_msg(memcmp(a, b, n1 * sizeof(float)) == 0, "%s: %s differs", others[v], name);
            free(a), free(b);
        }
        tf_encoder_destroy(other);
    }
    tf_model_info *info;
    ck_assert_int_eq(tf_model_inspect(join(dir, others[2]).s, &o, &info), TF_OK);
    int ignored = 0;
    for (size_t i = 0; i < tf_model_info_tensor_count(info); i++) {
        tf_file_tensor t;
        tf_model_info_tensor(info, i, &t);
        if (!t.maps_to) {
            ignored++;
            ck_assert(strcmp(t.name, "bert.embeddings.position_ids") == 0 ||
                      strncmp(t.name, "cls.", 4) == 0);
        }
        if (strcmp(t.name, "bert.embeddings.LayerNorm.gamma") == 0)
            ck_assert_str_eq(t.maps_to, "embed.norm.weight");
    }
    ck_assert_int_eq(ignored, 3);
    tf_model_info_destroy(info);
    tf_encoder_destroy(ref);
}
END_TEST

/* ---- Save and load -------------------------------------------------------------- */

static void round_trip(tf_config cfg)
{
    tf_encoder *enc, *back;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    const path_buf model = join(tmp_dir, "model.safetensors");
    const char *file = model.s;
    ck_assert_msg(tf_encoder_save(enc, file) == TF_OK, "%s", tf_last_error());
    ck_assert_msg(tf_encoder_load(file, NULL, &back) == TF_OK, "%s", tf_last_error());
    tf_config c1, c2;
    tf_config_init(&c1), tf_config_init(&c2);
    tf_encoder_get_config(enc, &c1), tf_encoder_get_config(back, &c2);
    ck_assert_mem_eq(&c1, &c2, sizeof c1);
    ck_assert_uint_eq(tf_encoder_tensor_count(back), tf_encoder_tensor_count(enc));
    for (size_t i = 0; i < tf_encoder_tensor_count(enc); i++) {
        const char *name = tf_encoder_tensor_name(enc, i);
        ck_assert_str_eq(tf_encoder_tensor_name(back, i), name);
        size_t n1 = 0, n2 = 0;
        float *a = tensor_copy(enc, name, &n1), *b = tensor_copy(back, name, &n2);
        ck_assert_uint_eq(n1, n2);
        ck_assert_mem_eq(a, b, n1 * sizeof(float));
        free(a), free(b);
    }
    enum { B = 2, T = 6 };
    const int D = cfg.d_model;
    int32_t ids[B * T];
    float *x = malloc(sizeof(float) * B * T * D), *y1 = malloc(sizeof(float) * B * T * D);
    float *y2 = malloc(sizeof(float) * B * T * D);
    for (int i = 0; i < B * T; i++)
        ids[i] = i % (cfg.vocab_size ? cfg.vocab_size : 1);
    fill_uniform(x, (size_t)B * T * D, 3, -1, 1);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.output = y1;
    if (cfg.vocab_size)
        a.input_ids = ids;
    else
        a.input_embeds = x;
    ck_assert_int_eq(tf_encoder_forward(enc, &a), TF_OK);
    a.output = y2;
    ck_assert_int_eq(tf_encoder_forward(back, &a), TF_OK);
    ck_assert_mem_eq(y1, y2, sizeof(float) * B * T * D);
    free(x), free(y1), free(y2);
    tf_encoder_destroy(enc), tf_encoder_destroy(back);
}

START_TEST(test_save_load_round_trip_is_bitwise)
{
    make_tmp_dir();
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 24, cfg.n_heads = 3, cfg.d_ff = 40, cfg.n_layers = 2, cfg.vocab_size = 50;
    cfg.position = TF_POSITION_LEARNED, cfg.max_positions = 16, cfg.n_token_types = 2;
    cfg.embedding_norm = 1, cfg.norm_placement = TF_NORM_PRE, cfg.final_norm = 1;
    cfg.activation = TF_ACTIVATION_GELU_TANH, cfg.pooler = 1, cfg.layer_norm_eps = 1e-7f;
    cfg.seed = 0xfedcba9876543210ull;
    round_trip(cfg);
    tf_config_init(&cfg); /* vectors in, sinusoidal, no biases, ReLU, odd eps */
    cfg.d_model = 16, cfg.n_heads = 4, cfg.d_ff = 8, cfg.bias = 0;
    cfg.activation = TF_ACTIVATION_RELU, cfg.layer_norm_eps = 3.3e-6f, cfg.max_positions = 7;
    round_trip(cfg);
    remove_tmp_dir();
}
END_TEST

START_TEST(test_save_errors_leave_nothing_behind)
{
    make_tmp_dir();
    tf_config cfg;
    tf_config_init(&cfg);
    cfg.d_model = 8, cfg.n_heads = 2, cfg.d_ff = 8;
    tf_encoder *enc;
    ck_assert_int_eq(tf_encoder_create(&cfg, &enc), TF_OK);
    expect_failure(tf_encoder_save(enc, join(tmp_dir, "no/such/dir/model.safetensors").s),
                   TF_ERR_IO, "cannot create: No such file or directory");
    expect_failure(tf_encoder_save(NULL, "x"), TF_ERR_INVALID_ARGUMENT, "encoder is NULL");
    expect_failure(tf_encoder_save(enc, NULL), TF_ERR_INVALID_ARGUMENT, "path is NULL");
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", tmp_dir); /* no temporary left */
    ck_assert_int_eq(system(cmd), 0);
    tf_encoder_destroy(enc);
    remove_tmp_dir();
}
END_TEST

/* ---- Malformed files, truncation, I/O faults ----------------------------------- */

typedef struct malformed_case {
    char file[128], status[48], message[400];
} malformed_case;

static malformed_case malformed[128];
static int n_malformed;

static void read_manifest(void)
{
    FILE *f = fopen(join(join(data_dir, "malformed").s, "manifest.tsv").s, "r");
    char line[700];
    while (f && n_malformed < 128 && fgets(line, sizeof line, f)) {
        malformed_case *m = &malformed[n_malformed];
        if (sscanf(line, "%127[^\t]\t%47[^\t]\t%399[^\n]", m->file, m->status, m->message) == 3)
            n_malformed++;
    }
    if (f)
        fclose(f);
}

START_TEST(test_malformed_file)
{
    const malformed_case *m = &malformed[_i];
    const path_buf malformed_file = join(join(data_dir, "malformed").s, m->file);
    const char *file = malformed_file.s;
    tf_load_options o = options(2, TF_ACTIVATION_GELU, TF_NORM_POST);
    tf_encoder *enc = (tf_encoder *)&enc;
    const tf_status s = tf_encoder_load(file, &o, &enc);
    ck_assert_msg(strcmp(tf_status_name(s), m->status) == 0, "%s: expected %s, got %s (%s)",
                  m->file, m->status, tf_status_name(s), tf_last_error());
    ck_assert_msg(strstr(tf_last_error(), m->message) != NULL, "%s: message \"%s\" lacks \"%s\"",
                  m->file, tf_last_error(), m->message);
    ck_assert_ptr_null(enc);
    tf_model_info *info = (tf_model_info *)&info;
    ck_assert_int_eq(tf_model_inspect(file, &o, &info), s);
    ck_assert_ptr_null(info);
}
END_TEST

/* A valid file cut at every byte offset is a clean TF_ERR_FORMAT. */
START_TEST(test_truncated_at_every_offset)
{
    make_tmp_dir();
    FILE *f = fopen(join(join(data_dir, "variants").s, "bf16.safetensors").s, "rb");
    ck_assert_ptr_nonnull(f);
    static unsigned char bytes[1 << 16];
    const size_t size = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    ck_assert_uint_gt(size, 1000);
    ck_assert_uint_lt(size, sizeof bytes);
    tf_load_options o = options(2, -1, -1);
    const path_buf cut_path = join(tmp_dir, "cut.safetensors");
    const char *cut = cut_path.s;
    for (size_t n = 0; n < size; n++) {
        FILE *out = fopen(cut, "wb");
        ck_assert_uint_eq(fwrite(bytes, 1, n, out), n);
        fclose(out);
        tf_encoder *enc;
        const tf_status s = tf_encoder_load(cut, &o, &enc);
        ck_assert_msg(s == TF_ERR_FORMAT, "cut at %zu: %s (%s)", n, tf_status_name(s),
                      tf_last_error());
    }
    remove_tmp_dir();
}
END_TEST

START_TEST(test_io_errors)
{
    tf_encoder *enc;
    expect_failure(tf_encoder_load("/nonexistent/model.safetensors", NULL, &enc), TF_ERR_IO,
                   "/nonexistent/model.safetensors: cannot open: No such file or directory");
    expect_failure(tf_encoder_load(golden_dir, NULL, &enc), TF_ERR_IO,
                   "model.safetensors: cannot open: No such file or directory");
    expect_failure(tf_encoder_load(NULL, NULL, &enc), TF_ERR_INVALID_ARGUMENT, "path is NULL");
    expect_failure(tf_encoder_load("x", NULL, NULL), TF_ERR_INVALID_ARGUMENT, "out is NULL");
    expect_failure(tf_encoder_load("/dev/null", NULL, &enc), TF_ERR_IO, "not a regular file");
}
END_TEST

/* Loading `path`, which its mode makes unreadable, fails with TF_ERR_IO.
 * Root reads any file, so as root the load runs in a child that has become
 * the unprivileged user nobody (65534). */
static void expect_unreadable(const char *path, const tf_load_options *o)
{
    tf_encoder *enc = NULL;
    if (geteuid() != 0) {
        expect_failure(tf_encoder_load(path, o, &enc), TF_ERR_IO, "Permission denied");
        return;
    }
    ck_assert_int_eq(chmod(tmp_dir, 0711), 0); /* nobody may pass through, not read */
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        const int dropped = setgid(65534) == 0 && setuid(65534) == 0 && geteuid() == 65534;
        const int failed = dropped && tf_encoder_load(path, o, &enc) == TF_ERR_IO && !enc &&
            strstr(tf_last_error(), "Permission denied");
        _exit(!dropped ? 2 : failed ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "as nobody: %s",
                  WIFEXITED(status) && WEXITSTATUS(status) == 2
                      ? "cannot drop to uid 65534"
                      : "loading an unreadable file did not fail with "
                        "TF_ERR_IO \"Permission denied\"");
}

/* A file that disappears is a clean TF_ERR_IO; so is one that cannot be
 * read, and a path through a regular file. A file mapped by an inspection
 * stays usable after it is deleted (the mapping keeps its pages). */
START_TEST(test_vanishing_and_unreadable_files)
{
    make_tmp_dir();
    const path_buf copy = join(tmp_dir, "model.safetensors");
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "cp '%s/variants/f32.safetensors' '%s'", data_dir, copy.s);
    ck_assert_int_eq(system(cmd), 0);
    tf_load_options o = options(2, -1, -1);
    tf_model_info *info;
    ck_assert_int_eq(tf_model_inspect(copy.s, &o, &info), TF_OK);
    ck_assert_int_eq(unlink(copy.s), 0);
    tf_file_tensor t;
    ck_assert_int_eq(tf_model_info_tensor(info, 0, &t), TF_OK); /* still mapped */
    tf_model_info_destroy(info);
    tf_encoder *enc;
    expect_failure(tf_encoder_load(copy.s, &o, &enc), TF_ERR_IO,
                   "model.safetensors: cannot open: No such file or directory");
    const path_buf through = join(join(data_dir, "wordpiece").s, "vocab.txt/model.safetensors");
    expect_failure(tf_encoder_load(through.s, &o, &enc), TF_ERR_IO, "Not a directory");
    snprintf(cmd, sizeof cmd, "cp '%s/variants/f32.safetensors' '%s' && chmod 000 '%s'", data_dir,
             copy.s, copy.s);
    ck_assert_int_eq(system(cmd), 0);
    expect_unreadable(copy.s, &o);
    remove_tmp_dir();
}
END_TEST

/* A BERT directory whose config.json is written by the test. */
static tf_status load_with_config_json(const char *json, tf_encoder **enc)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cp '%s/bert_tiny/model.safetensors' '%s/'", data_dir, tmp_dir);
    ck_assert_int_eq(system(cmd), 0);
    FILE *f = fopen(join(tmp_dir, "config.json").s, "w");
    fputs(json, f);
    fclose(f);
    return tf_encoder_load(tmp_dir, NULL, enc);
}

START_TEST(test_config_json_is_checked)
{
    make_tmp_dir();
    tf_encoder *enc;
    expect_failure(
        load_with_config_json("{\"num_attention_heads\": 4, \"hidden_size\": 256}", &enc),
        TF_ERR_SHAPE,
        "config.json: hidden_size 256 disagrees with embeddings.word_embeddings.weight "
        "[1000, 128]");
    expect_failure(
        load_with_config_json("{\"num_attention_heads\": 4, \"num_hidden_layers\": 3}", &enc),
        TF_ERR_FORMAT, "config.json: num_hidden_layers 3, but the file has layers 0..1");
    expect_failure(
        load_with_config_json("{\"num_attention_heads\": 4, \"hidden_act\": \"silu\"}", &enc),
        TF_ERR_UNSUPPORTED, "hidden_act \"silu\" is not supported");
    expect_failure(load_with_config_json("{\"num_attention_heads\": \"four\"}", &enc),
                   TF_ERR_FORMAT,
                   "num_attention_heads must be an integer in 1..2147483647, got \"four\"");
    expect_failure(load_with_config_json("{\"num_attention_heads\": 3}", &enc),
                   TF_ERR_INVALID_ARGUMENT, "d_model 128 is not divisible by n_heads 3");
    expect_failure(load_with_config_json("{\"num_attention_heads\": 4,", &enc), TF_ERR_FORMAT,
                   "config.json: not valid JSON");
    expect_failure(load_with_config_json("{}", &enc), TF_ERR_INVALID_ARGUMENT,
                   "n_heads is unknown (no config.json gives num_attention_heads)");
    ck_assert_int_eq(load_with_config_json("{\"num_attention_heads\": 4, \"hidden_act\": "
                                           "\"gelu_new\", \"layer_norm_eps\": 1e-6}",
                                           &enc),
                     TF_OK);
    tf_config c;
    tf_config_init(&c);
    tf_encoder_get_config(enc, &c);
    ck_assert_int_eq(c.activation, TF_ACTIVATION_GELU_TANH);
    ck_assert_float_eq(c.layer_norm_eps, 1e-6f);
    tf_encoder_destroy(enc);
    remove_tmp_dir();
}
END_TEST

static int read_list(const char *file, char names[][64], int max)
{
    FILE *f = fopen(file, "r");
    int n = 0;
    while (f && n < max && fscanf(f, "%63s", names[n]) == 1)
        n++;
    if (f)
        fclose(f);
    return n;
}

int main(void)
{
    data_dir = test_dir("TFENC_DATA_DIR");
    golden_dir = test_dir("TFENC_GOLDEN_DIR");
    n_checkpoints = read_list(join(golden_dir, "checkpoints.txt").s, checkpoint_names, 8);
    read_manifest();
    if (n_checkpoints == 0 || n_malformed < 40) {
        fprintf(stderr, "test data missing: %d checkpoints, %d malformed files\n", n_checkpoints,
                n_malformed);
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("load");
    TCase *hf = tcase_create("checkpoints");
    tcase_set_timeout(hf, 120);
    tcase_add_test(hf, test_bert_tiny_matches_hugging_face);
    tcase_add_test(hf, test_bert_tiny_inspect);
    tcase_add_loop_test(hf, test_pytorch_checkpoint, 0, n_checkpoints);
    tcase_add_test(hf, test_pytorch_settings_are_required);
    tcase_add_test(hf, test_variants_load_to_the_same_weights);
    tcase_add_test(hf, test_save_load_round_trip_is_bitwise);
    tcase_add_test(hf, test_save_errors_leave_nothing_behind);
    suite_add_tcase(s, hf);
    TCase *bad = tcase_create("bad input");
    tcase_set_timeout(bad, 120);
    tcase_add_loop_test(bad, test_malformed_file, 0, n_malformed);
    tcase_add_test(bad, test_truncated_at_every_offset);
    tcase_add_test(bad, test_io_errors);
    tcase_add_test(bad, test_vanishing_and_unreadable_files);
    tcase_add_test(bad, test_config_json_is_checked);
    suite_add_tcase(s, bad);
    return run_suite(s);
}
