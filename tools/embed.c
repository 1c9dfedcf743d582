/* embed.c — `tfenc embed`: texts to sentence vectors (WordPiece, the
 * encoder, CLS or mean pooling, optional L2 normalisation), batched with
 * padding; and `tfenc create`: a randomly initialised model file. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "npy.h"
#include "tfenc.h"

enum { EMBED_BATCH = 32 };

typedef struct embed_options {
    const char *model, *vocab, *npy, *file;
    int cased, normalize, pooling;
    tf_load_options load;
    const char **texts;
    int n_texts;
} embed_options;

static void embed_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc embed --model FILE_OR_DIR [--vocab vocab.txt] [--cased]\n"
            "                   [--pool cls|mean] [--normalize] [--npy OUT.npy]\n"
            "                   [--file TEXTS.txt] [TEXT ...]\n"
            "One vector per text (each TEXT, or each line of --file): WordPiece tokens\n"
            "(--vocab, or the model directory's vocab.txt), the encoder, then the [CLS]\n"
            "vector or the mean over the real tokens (default), optionally L2-normalised.\n"
            "Prints one line of numbers per text, or writes an [N, D] float32 .npy.\n");
}

static int fail(tf_status s)
{
    fprintf(stderr, "tfenc embed: %s: %s\n", tf_status_name(s), tf_last_error());
    return 1;
}

/* Each line of path (without its newline) appended to o->texts. */
static int read_lines(embed_options *o, const char *path, char **buffer)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tfenc embed: %s: cannot open\n", path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap && !(buf = realloc(buf, (cap *= 2) + 1)))
            break;
    }
    fclose(f);
    if (!buf)
        return -1;
    buf[n] = '\0';
    *buffer = buf;
    size_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    const char **texts = realloc(o->texts, (o->n_texts + lines + 1) * sizeof *texts);
    if (!texts)
        return -1;
    o->texts = texts;
    for (char *line = buf; *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        o->texts[o->n_texts++] = line;
        line = end ? end + 1 : line + strlen(line);
    }
    return 0;
}

static int parse_embed(int argc, char **argv, embed_options *o)
{
    *o = (embed_options){.pooling = TF_POOLING_MEAN};
    tf_load_options_init(&o->load);
    o->texts = malloc((size_t)argc * sizeof *o->texts);
    for (int i = 1; o->texts && i < argc; i++) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const char **value = !strcmp(f, "--model") ? &o->model
                             : !strcmp(f, "--vocab") ? &o->vocab
                             : !strcmp(f, "--npy")   ? &o->npy
                             : !strcmp(f, "--file")  ? &o->file
                                                     : NULL;
        int known;
        if (!strcmp(f, "--help") || !strcmp(f, "-h")) {
            embed_usage(stdout);
            exit(0);
        } else if (!strcmp(f, "--cased") || !strcmp(f, "--normalize")) {
            *(f[2] == 'c' ? &o->cased : &o->normalize) = 1;
        } else if (!strcmp(f, "--pool") && v && (!strcmp(v, "cls") || !strcmp(v, "mean"))) {
            o->pooling = !strcmp(v, "cls") ? TF_POOLING_CLS : TF_POOLING_MEAN;
            i++;
        } else if (value && v) {
            *value = v;
            i++;
        } else if ((known = parse_load_option("embed", f, v, &o->load)) != 0) {
            if (known < 0)
                return -1;
            i++;
        } else if (f[0] != '-' || !f[1]) {
            o->texts[o->n_texts++] = f;
        } else {
            fprintf(stderr, "tfenc embed: bad option '%s'\n", f);
            embed_usage(stderr);
            return -1;
        }
    }
    if (!o->texts || !o->model) {
        embed_usage(stderr);
        return -1;
    }
    return 0;
}

/* The vocabulary: --vocab, or vocab.txt in the model's directory. */
static const char *vocab_path(const embed_options *o, char *buf, size_t size)
{
    struct stat st;
    if (o->vocab)
        return o->vocab;
    if (stat(o->model, &st) == 0 && S_ISDIR(st.st_mode) &&
        snprintf(buf, size, "%s/vocab.txt", o->model) < (int)size && stat(buf, &st) == 0)
        return buf;
    return NULL;
}

/* vectors [n, D] of texts[0..n) through the tokenizer, encoder and pooling. */
static tf_status embed_batch(const tf_tokenizer *tok, const tf_encoder *enc, const tf_config *cfg,
                             const embed_options *o, const char **texts, int n, float *vectors)
{
    tf_encoding *e;
    tf_status s = tf_tokenizer_encode_batch(tok, (size_t)n, texts, NULL, NULL, NULL, &e);
    if (s)
        return s;
    const int32_t B = tf_encoding_batch(e), T = tf_encoding_seq_len(e);
    float *hidden = malloc(sizeof(float) * (size_t)B * (size_t)T * (size_t)cfg->d_model);
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = tf_encoding_ids(e), a.output = hidden;
    a.attention_mask = tf_encoding_attention_mask(e);
    a.token_type_ids = cfg->n_token_types > 0 ? tf_encoding_type_ids(e) : NULL;
    s = hidden ? tf_encoder_forward(enc, &a) : TF_ERR_OUT_OF_MEMORY;
    if (s == TF_OK)
        s = tf_pool(hidden, tf_encoding_lengths(e), B, T, cfg->d_model, o->pooling, o->normalize,
                    vectors);
    free(hidden);
    tf_encoding_destroy(e);
    return s;
}

static int write_vectors(const embed_options *o, const float *vectors, int n, int D)
{
    if (o->npy) {
        const int64_t dims[2] = {n, D};
        if (npy_write_f32(o->npy, vectors, 2, dims) != 0) {
            fprintf(stderr, "tfenc embed: %s: cannot write\n", o->npy);
            return 1;
        }
        printf("wrote %d vectors of %d floats to %s\n", n, D, o->npy);
        return 0;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < D; k++)
            printf("%.7g%c", (double)vectors[(size_t)i * D + k], k + 1 < D ? ' ' : '\n');
    return 0;
}

int tfenc_embed(int argc, char **argv)
{
    embed_options o;
    char *file_text = NULL, vocab_buf[1100];
    if (parse_embed(argc, argv, &o) || (o.file && read_lines(&o, o.file, &file_text))) {
        free(o.texts), free(file_text);
        return 2;
    }
    const char *vocab = vocab_path(&o, vocab_buf, sizeof vocab_buf);
    tf_tokenizer *tok = NULL;
    tf_encoder *enc = NULL;
    tf_config cfg;
    tf_config_init(&cfg);
    float *vectors = NULL;
    int rc = 1;
    tf_tokenizer_options to;
    tf_tokenizer_options_init(&to);
    to.lowercase = !o.cased;
    tf_status s = TF_OK;
    if (!vocab)
        fprintf(stderr, "tfenc embed: no vocabulary: pass --vocab (the model has no vocab.txt)\n");
    else if (o.n_texts == 0)
        fprintf(stderr, "tfenc embed: no text to embed\n");
    else if ((s = tf_tokenizer_load(vocab, &to, &tok)) || (s = tf_encoder_load(o.model, &o.load, &enc)) ||
             (s = tf_encoder_get_config(enc, &cfg)))
        fail(s);
    else if (cfg.vocab_size == 0)
        fprintf(stderr, "tfenc embed: %s takes vectors, not token ids\n", o.model);
    else if ((vectors = malloc(sizeof(float) * (size_t)o.n_texts * (size_t)cfg.d_model)))
        rc = 0;
    if (rc == 0 && tf_tokenizer_vocab_size(tok) != cfg.vocab_size)
        fprintf(stderr, "tfenc embed: warning: the vocabulary has %d tokens, the model's "
                "embedding table %d rows\n", (int)tf_tokenizer_vocab_size(tok), (int)cfg.vocab_size);
    for (int i = 0; rc == 0 && i < o.n_texts; i += EMBED_BATCH) {
        const int n = o.n_texts - i < EMBED_BATCH ? o.n_texts - i : EMBED_BATCH;
        if ((s = embed_batch(tok, enc, &cfg, &o, o.texts + i, n,
                             vectors + (size_t)i * (size_t)cfg.d_model)))
            rc = fail(s);
    }
    if (rc == 0)
        rc = write_vectors(&o, vectors, o.n_texts, cfg.d_model);
    free(vectors), free(o.texts), free(file_text);
    tf_tokenizer_destroy(tok);
    tf_encoder_destroy(enc);
    return rc;
}

/* ---- tfenc create ------------------------------------------------------------ */

static void create_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc create OUT.safetensors [--d-model 512] [--heads 8] [--d-ff 2048]\n"
            "                    [--layers 1] [--vocab-size N | --vocab vocab.txt]\n"
            "                    [--positions none|sinusoidal|learned] [--max-positions N]\n"
            "                    [--token-types N] [--embedding-norm] [--norm-first]\n"
            "                    [--final-norm] [--pooler] [--activation gelu|gelu_tanh|relu]\n"
            "                    [--seed S]\n"
            "Writes a model with deterministic random weights (PyTorch's initialisation),\n"
            "e.g. one whose vocabulary is a vocab.txt, to try tfenc embed or explain on.\n");
}

static int set_flag(tf_config *c, const char *f)
{
    int32_t *flag = !strcmp(f, "--embedding-norm") ? &c->embedding_norm
                    : !strcmp(f, "--norm-first")   ? &c->norm_placement
                    : !strcmp(f, "--final-norm")   ? &c->final_norm
                    : !strcmp(f, "--pooler")       ? &c->pooler
                                                   : NULL;
    if (flag)
        *flag = 1;
    return flag != NULL;
}

static int set_value(tf_config *c, const char *f, const char *v)
{
    int32_t *field = !strcmp(f, "--d-model")         ? &c->d_model
                     : !strcmp(f, "--heads")         ? &c->n_heads
                     : !strcmp(f, "--d-ff")          ? &c->d_ff
                     : !strcmp(f, "--layers")        ? &c->n_layers
                     : !strcmp(f, "--vocab-size")    ? &c->vocab_size
                     : !strcmp(f, "--max-positions") ? &c->max_positions
                     : !strcmp(f, "--token-types")   ? &c->n_token_types
                                                     : NULL;
    if (field) {
        *field = atoi(v);
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        if (!strcmp(f, "--positions") && !strcmp(v, tfenc_position_names[i]))
            return c->position = i, 1;
        if (!strcmp(f, "--activation") && !strcmp(v, tfenc_activation_names[i]))
            return c->activation = i, 1;
    }
    if (!strcmp(f, "--seed"))
        return c->seed = strtoull(v, NULL, 10), 1;
    return 0;
}

int tfenc_create(int argc, char **argv)
{
    tf_config cfg;
    tf_config_init(&cfg);
    const char *out = NULL, *vocab = NULL;
    for (int i = 1; i < argc; i++) {
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(f, "--help") || !strcmp(f, "-h")) {
            create_usage(stdout);
            return 0;
        } else if (set_flag(&cfg, f)) {
            continue;
        } else if (!strcmp(f, "--vocab") && v) {
            vocab = v;
        } else if (f[0] != '-' && !out) {
            out = f;
            continue;
        } else if (!v || !set_value(&cfg, f, v)) {
            fprintf(stderr, "tfenc create: bad option '%s'\n", f);
            create_usage(stderr);
            return 2;
        }
        i++;
    }
    if (!out) {
        create_usage(stderr);
        return 2;
    }
    tf_tokenizer *tok = NULL;
    tf_encoder *enc = NULL;
    tf_status s = vocab ? tf_tokenizer_load(vocab, NULL, &tok) : TF_OK;
    if (s == TF_OK && tok)
        cfg.vocab_size = tf_tokenizer_vocab_size(tok);
    if (s == TF_OK)
        s = tf_encoder_create(&cfg, &enc);
    if (s == TF_OK)
        s = tf_encoder_save(enc, out);
    if (s == TF_OK)
        printf("wrote %s: d_model %d, %d heads, d_ff %d, %d layers, vocab_size %d\n", out,
               (int)cfg.d_model, (int)cfg.n_heads, (int)cfg.d_ff, (int)cfg.n_layers,
               (int)cfg.vocab_size);
    else
        fprintf(stderr, "tfenc create: %s: %s\n", tf_status_name(s), tf_last_error());
    tf_tokenizer_destroy(tok);
    tf_encoder_destroy(enc);
    return s ? 1 : 0;
}
