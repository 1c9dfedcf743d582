/* embed.c — `tfenc embed`: texts to sentence vectors (WordPiece, the
 * encoder, CLS or mean pooling, optional L2 normalisation), batched with
 * padding. A text longer than the limit (--max-length: the model's
 * max_positions, else 512 tokens) is cut to it, and stderr says so. A
 * sentence-transformers folder (modules.json), or --prompt-name,
 * --dimensions or --dimensions-layer-norm, runs the folder's pipeline
 * (tf_pipeline_embed) instead. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "npy.h"
#include "options.h"
#include "model_arg.h"
#include "pipeline_cli.h"
#include "text_lines.h"
#include "tfenc.h"

/* Texts per forward call; the token limit of a model without
 * max_positions (BERT's); the smallest, [CLS] one token [SEP]. */
enum { EMBED_BATCH = 32, DEFAULT_MAX_LENGTH = 512, MIN_MAX_LENGTH = 3 };

typedef struct embed_options {
    cli_model source;  /* --model and where it comes from */
    const char *model; /* the file or folder it names (a Hub id's folder, resolved) */
    const char *vocab, *npy, *file, *prompt_name;
    int cased, normalize, json, pool_given;
    int32_t pooling, max_length; /* max_length 0: the default */
    int32_t dimensions;          /* 0: all */
    int dimensions_layer_norm;   /* --dimensions-layer-norm: nomic's Matryoshka recipe */
    tf_load_options load;
    const char **texts; /* [n_texts]: the TEXT arguments, then the lines of --file */
    size_t n_texts, n_args;
    text_lines lines;
} embed_options;

/* What embedding needs: the model, two tokenizers and the limit. */
typedef struct embedder {
    const embed_options *o;
    char *vocab; /* the vocab.txt's path */
    tf_encoder *enc;
    tf_config cfg;
    tf_tokenizer *tok;   /* cuts each text to `limit` tokens */
    tf_tokenizer *probe; /* to limit + 1: a text that reaches it was cut */
    int32_t limit;
} embedder;

static void embed_usage(FILE *out)
{
    char pools[64];
    fprintf(out,
            "usage: tfenc embed --model FILE_OR_DIR [--vocab vocab.txt] [--cased]\n"
            "                   [--pool %s] [--normalize] [--npy OUT.npy]\n"
            "                   [--max-length N] [--file TEXTS.txt] [TEXT ...]\n"
            "       tfenc embed --model DIR_OR_ID [--prompt-name NAME] [--dimensions N]\n"
            "                   [--dimensions-layer-norm] [--normalize] [--max-length N]\n"
            "                   [--json | --npy OUT.npy] ...\n",
            cli_names(tf_pooling_name, "|", "|", pools, sizeof pools));
    cli_load_options_usage(out, "                   ");
    fprintf(out,
            "One vector per text (each TEXT, then each line of --file): WordPiece tokens\n"
            "(--vocab, or the model directory's vocab.txt), the encoder, then the [CLS]\n"
            "vector or the mean over the real tokens (default), optionally L2-normalised.\n"
            "A text of more than N tokens ([CLS] and [SEP] included; default: the model's\n"
            "max_positions, else %d) is cut to N, with a note on stderr. A line of --file\n"
            "must not hold a NUL byte. Prints one line of numbers per text, or writes an\n"
            "[N, D] float32 .npy.\n"
            "A sentence-transformers folder DIR (modules.json) runs its own pipeline: its\n"
            "tokenizer settings, max_seq_length, pooling, Dense and Normalize modules,\n"
            "prompts (--prompt-name; default: its default_prompt_name) and --dimensions\n"
            "(the first N, renormalised when normalised); --dimensions-layer-norm takes\n"
            "nomic-embed-text-v1.5's recipe instead (its model card): a layer norm over\n"
            "all the values, the first N (default: all), unit length. --json prints\n"
            "{\"dim\", \"truncated\", \"embeddings\"}.\n"
            "A folder of another kind (a classifier, a cross-encoder, a token classifier)\n"
            "is refused, naming the subcommand that runs it.\n",
            DEFAULT_MAX_LENGTH);
    cli_model_usage(out, "");
}

/* A flag with a value: 1 if flag is one (and set), -1 on a bad value, 0
 * for another flag. */
static int set_value(cli_args *a, const char *flag, embed_options *o)
{
    const cli_string_flag paths[] = {
        {"--vocab", "a vocab.txt", &o->vocab},
        {"--npy", "an output .npy file", &o->npy},
        {"--file", "a text file", &o->file},
        {"--prompt-name", "a prompt of the folder", &o->prompt_name},
    };
    const int rc = cli_string_table(a, flag, CLI_TABLE(paths));
    if (rc)
        return rc;
    if (!strcmp(flag, "--pool")) {
        o->pool_given = 1;
        return cli_enum(a, flag, tf_pooling_name, tf_pooling_from_name, &o->pooling);
    }
    if (!strcmp(flag, "--dimensions"))
        return cli_int(a, flag, 1, 1048576, &o->dimensions);
    if (!strcmp(flag, "--max-length"))
        return cli_int(a, flag, MIN_MAX_LENGTH, TF_MAX_POSITIONS, &o->max_length);
    const int model_rc = cli_model_option(a, flag, &o->source);
    return model_rc ? model_rc : cli_load_option(a, flag, &o->load);
}

static int take_embed(cli_args *a, const char *arg, void *user)
{
    embed_options *o = user;
    if (!strcmp(arg, "--json") || !strcmp(arg, "--dimensions-layer-norm")) {
        *(arg[2] == 'j' ? &o->json : &o->dimensions_layer_norm) = 1;
        return 1;
    }
    if (!strcmp(arg, "--cased") || !strcmp(arg, "--normalize")) {
        *(arg[2] == 'c' ? &o->cased : &o->normalize) = 1;
        return 1;
    }
    if (arg[0] != '-' || !arg[1]) {
        o->texts[o->n_texts++] = arg;
        return 1;
    }
    return set_value(a, arg, o);
}

/* 0 with *o filled; 1 after --help; -1 after a message. */
static int parse_embed(int argc, char **argv, embed_options *o)
{
    cli_args a = cli_args_start("embed", embed_usage, argc, argv);
    *o = (embed_options){.source = CLI_MODEL_INIT, .pooling = TF_POOLING_MEAN};
    tf_load_options_init(&o->load);
    if (!(o->texts = malloc((size_t)argc * sizeof *o->texts))) {
        cli_error(a.command, "out of memory");
        return -1;
    }
    const int rc = cli_parse(&a, take_embed, o);
    o->n_args = o->n_texts;
    return rc == 0 && !o->source.model ? cli_usage_error(&a) : rc;
}

/* The lines of --file after the TEXT arguments: 0, or -1 after a message. */
static int add_file_lines(embed_options *o)
{
    if (!o->file)
        return 0;
    if (text_lines_read("embed", "--file", o->file, &o->lines))
        return -1;
    const char **texts = realloc(o->texts, (o->n_args + o->lines.n + 1) * sizeof *texts);
    if (!texts) {
        cli_error("embed", "--file %s: cannot hold %zu lines", o->file, o->lines.n);
        return -1;
    }
    o->texts = texts;
    memcpy(texts + o->n_args, o->lines.lines, o->lines.n * sizeof *texts);
    o->n_texts = o->n_args + o->lines.n;
    return 0;
}

/* "tfenc embed: text 3" or "tfenc embed: --file F line 2" (where text i
 * came from), then the rest of the message, on stderr. */
static void text_error(const embed_options *o, size_t i, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void text_error(const embed_options *o, size_t i, const char *format, ...)
{
    const size_t size = (o->file ? strlen(o->file) : 0) + 64;
    char *where = malloc(size); /* "tfenc embed: ...", the message's start */
    if (where && i < o->n_args)
        snprintf(where, size, "tfenc embed: text %zu", i + 1);
    else if (where)
        snprintf(where, size, "tfenc embed: --file %s line %zu", o->file, i - o->n_args + 1);
    va_list ap;
    va_start(ap, format);
    cli_vline(where ? where : "tfenc embed: a text", format, ap);
    va_end(ap);
    free(where);
}

/* --model as this path reads it (the encoder alone): 0 for a file, or a
 * folder of an embedding model; else CLI_FAILED after a message: a path
 * that cannot be opened, or a folder of another kind (what it is and which
 * subcommand runs it). */
static int check_model(const embed_options *o)
{
    struct stat st;
    if (stat(o->model, &st) != 0) {
        cli_error("embed", "--model %s: cannot open: %s", o->model, strerror(errno));
        return CLI_FAILED;
    }
    const unsigned embedding = PIPELINE_CLI_KIND(TF_PIPELINE_EMBEDDING);
    return S_ISDIR(st.st_mode) && pipeline_cli_other_kind("embed", o->model, embedding) ? CLI_FAILED
                                                                                        : 0;
}

/* The vocabulary: --vocab, or vocab.txt in the model's folder; NULL after
 * a message. */
static char *vocab_path(const embed_options *o)
{
    struct stat st;
    if (o->vocab) {
        char *path = strdup(o->vocab);
        if (!path)
            cli_error("embed", "--vocab %s: out of memory", o->vocab);
        return path;
    }
    if (stat(o->model, &st) != 0 || !S_ISDIR(st.st_mode)) {
        cli_error("embed",
                  "no vocabulary: pass --vocab (--model %s is a file, not a folder "
                  "with a vocab.txt)",
                  o->model);
        return NULL;
    }
    const size_t size = strlen(o->model) + sizeof "/vocab.txt";
    char *path = malloc(size);
    if (path && (snprintf(path, size, "%s/vocab.txt", o->model), stat(path, &st) == 0))
        return path;
    free(path);
    cli_error("embed", "no vocabulary: pass --vocab (%s has no vocab.txt)", o->model);
    return NULL;
}

/* The limit on tokens per text: --max-length within the longest sequence
 * the model's positions allow (tf_config_max_sequence), or that, or the
 * model's max_positions (the trained length of positions that bound none),
 * or DEFAULT_MAX_LENGTH; -1 after a message. */
static int32_t token_limit(const embed_options *o, const tf_config *cfg)
{
    const int32_t bound = tf_config_max_sequence(cfg); /* 0: none */
    if (o->max_length && bound && o->max_length > bound) {
        char expected[96], got[16];
        snprintf(expected, sizeof expected, "an integer %d..%d (the model's positions)",
                 MIN_MAX_LENGTH, (int)bound);
        snprintf(got, sizeof got, "%d", (int)o->max_length);
        return cli_refuse("embed", "--max-length", expected, got);
    }
    return o->max_length     ? o->max_length
        : bound              ? bound
        : cfg->max_positions ? cfg->max_positions
                             : DEFAULT_MAX_LENGTH;
}

static tf_status load_tokenizer(const embed_options *o, const char *vocab, int32_t max_length,
                                tf_tokenizer **tok)
{
    tf_tokenizer_options to;
    tf_tokenizer_options_init(&to);
    to.lowercase = !o->cased;
    to.max_length = max_length;
    return tf_tokenizer_load(vocab, &to, tok);
}

static int fail(tf_status s)
{
    cli_error("embed", "%s: %s", tf_status_name(s), tf_last_error());
    return CLI_FAILED;
}

/* The vocabulary, the model, the limit and the tokenizers: 0, or an exit
 * status after a message (embedder_close frees what was opened). */
static int embedder_open(embedder *e, const embed_options *o)
{
    *e = (embedder){.o = o};
    tf_config_init(&e->cfg);
    tf_status s;
    if (check_model(o) || !(e->vocab = vocab_path(o)))
        return CLI_FAILED;
    if ((s = tf_encoder_load(o->model, &o->load, &e->enc)) ||
        (s = tf_encoder_get_config(e->enc, &e->cfg)))
        return fail(s);
    if (e->cfg.vocab_size == 0) {
        cli_error("embed", "%s takes vectors, not token ids", o->model);
        return CLI_FAILED;
    }
    if ((e->limit = token_limit(o, &e->cfg)) < 0)
        return CLI_USAGE;
    if ((s = load_tokenizer(o, e->vocab, e->limit, &e->tok)) ||
        (s = load_tokenizer(o, e->vocab, e->limit + 1, &e->probe)))
        return fail(s);
    if (tf_tokenizer_vocab_size(e->tok) != e->cfg.vocab_size)
        cli_error("embed",
                  "warning: the vocabulary has %d tokens, the model's embedding table "
                  "%d rows",
                  (int)tf_tokenizer_vocab_size(e->tok), (int)e->cfg.vocab_size);
    return 0;
}

static void embedder_close(embedder *e)
{
    free(e->vocab);
    tf_encoder_destroy(e->enc);
    tf_tokenizer_destroy(e->tok);
    tf_tokenizer_destroy(e->probe);
}

/* Says on stderr which texts of a batch (texts first..first+n) were cut: a
 * row of exactly `limit` tokens was when the probe gives it one more. */
static tf_status report_cut(const embedder *e, const tf_encoding *enc, size_t first)
{
    for (int32_t b = 0; b < tf_encoding_batch(enc); b++) {
        if (tf_encoding_lengths(enc)[b] < e->limit)
            continue;
        const char *text = e->o->texts[first + (size_t)b];
        tf_encoding *longer;
        const tf_status s = tf_tokenizer_encode(e->probe, text, strlen(text), NULL, 0, &longer);
        if (s)
            return s;
        if (tf_encoding_lengths(longer)[0] > e->limit)
            text_error(e->o, first + (size_t)b,
                       " has more than %d tokens: truncated to %d "
                       "(--max-length)",
                       (int)e->limit, (int)e->limit);
        tf_encoding_destroy(longer);
    }
    return TF_OK;
}

/* The tokenizer refused texts first..first+n: names the first it refuses
 * alone (the batch's message counts from the batch's first text); else
 * the batch's message. */
static int blame_text(const embedder *e, size_t first, size_t n, tf_status batch_status)
{
    char batch_message[512];
    snprintf(batch_message, sizeof batch_message, "%s", tf_last_error());
    for (size_t i = first; i < first + n; i++) {
        tf_encoding *enc = NULL;
        const char *text = e->o->texts[i];
        const tf_status s = tf_tokenizer_encode(e->tok, text, strlen(text), NULL, 0, &enc);
        tf_encoding_destroy(enc);
        if (s) {
            text_error(e->o, i, ": %s: %s", tf_status_name(s), tf_last_error());
            return CLI_FAILED;
        }
    }
    cli_error("embed", "texts %zu..%zu: %s: %s", first + 1, first + n, tf_status_name(batch_status),
              batch_message);
    return CLI_FAILED;
}

/* vectors [n, D] of texts first..first+n: tokens, the encoder, pooling. 0,
 * or an exit status after a message. */
static int embed_batch(const embedder *e, size_t first, size_t n, float *vectors)
{
    tf_encoding *enc = NULL;
    tf_status s = tf_tokenizer_encode_batch(e->tok, n, e->o->texts + first, NULL, NULL, NULL, &enc);
    if (s == TF_ERR_INVALID_ARGUMENT)
        return blame_text(e, first, n, s);
    if (s || (s = report_cut(e, enc, first))) {
        tf_encoding_destroy(enc);
        return fail(s);
    }
    const int32_t B = tf_encoding_batch(enc), T = tf_encoding_seq_len(enc), D = e->cfg.d_model;
    float *hidden = malloc(sizeof(float) * (size_t)B * (size_t)T * (size_t)D); /* [B, T, D] */
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = tf_encoding_ids(enc), a.output = hidden;
    a.attention_mask = tf_encoding_attention_mask(enc);
    a.token_type_ids = e->cfg.n_token_types > 0 ? tf_encoding_type_ids(enc) : NULL;
    s = hidden ? tf_encoder_forward(e->enc, &a) : TF_ERR_OUT_OF_MEMORY;
    if (s == TF_OK)
        s = tf_pool(hidden, tf_encoding_lengths(enc), B, T, D, e->o->pooling, e->o->normalize,
                    vectors);
    free(hidden);
    tf_encoding_destroy(enc);
    if (s)
        cli_error("embed", "texts %zu..%zu: %s: %s", first + 1, first + n, tf_status_name(s),
                  tf_last_error());
    return s ? CLI_FAILED : 0;
}

/* vectors [n, D] to --npy or as text on stdout. */
static int write_vectors(const embed_options *o, const float *vectors, size_t n, int D)
{
    if (o->npy) {
        const int64_t dims[2] = {(int64_t)n, D};
        if (npy_write_f32(o->npy, vectors, 2, dims) != 0) {
            cli_error("embed", "--npy %s: cannot write: %s", o->npy, strerror(errno));
            return CLI_FAILED;
        }
        printf("wrote %zu vectors of %d floats to %s\n", n, D, o->npy);
        return 0;
    }
    for (size_t i = 0; i < n && !ferror(stdout); i++)
        for (int k = 0; k < D; k++)
            printf("%.7g%c", (double)vectors[i * (size_t)D + (size_t)k], k + 1 < D ? ' ' : '\n');
    return 0;
}

static int embed_all(const embed_options *o)
{
    embedder e;
    int rc = embedder_open(&e, o);
    const size_t D = (size_t)e.cfg.d_model;
    float *vectors = NULL; /* [n_texts, D] */
    if (rc == 0 && o->n_texts > SIZE_MAX / sizeof(float) / D)
        rc = fail(TF_ERR_OUT_OF_MEMORY);
    if (rc == 0 && !(vectors = malloc(sizeof(float) * o->n_texts * D)))
        rc = fail(TF_ERR_OUT_OF_MEMORY);
    for (size_t i = 0; rc == 0 && i < o->n_texts; i += EMBED_BATCH) {
        const size_t n = o->n_texts - i < EMBED_BATCH ? o->n_texts - i : EMBED_BATCH;
        rc = embed_batch(&e, i, n, vectors + i * D);
    }
    if (rc == 0)
        rc = write_vectors(o, vectors, o->n_texts, (int)D);
    free(vectors);
    embedder_close(&e);
    return rc;
}

/* ---- A model folder's pipeline -------------------------------------------------- */

/* The flags a folder's pipeline decides: refused by name. */
static int refuse_folder_flags(const embed_options *o)
{
    const char *flag = o->vocab ? "--vocab"
        : o->cased              ? "--cased"
        : o->pool_given         ? "--pool"
                                : NULL;
    if (!flag && !o->json)
        return 0;
    if (flag)
        cli_error("embed", "%s: the folder %s decides it (its modules.json and tokenizer files)",
                  flag, o->model);
    else if (o->npy)
        cli_error("embed", "--json and --npy: choose one output");
    return flag || o->npy ? CLI_USAGE : 0;
}

static void write_json(const float *vectors, size_t n, int D, size_t truncated)
{
    printf("{\"dim\": %d, \"truncated\": %zu, \"embeddings\": [", D, truncated);
    for (size_t i = 0; i < n; i++) {
        printf("%s[", i ? ", " : "");
        for (int k = 0; k < D; k++)
            printf("%s%.7g", k ? ", " : "", (double)vectors[i * (size_t)D + (size_t)k]);
        printf("]");
    }
    printf("]}\n");
}

static int embed_folder(const embed_options *o)
{
    int rc = refuse_folder_flags(o);
    const unsigned embedding = PIPELINE_CLI_KIND(TF_PIPELINE_EMBEDDING);
    tf_pipeline *p = rc ? NULL : pipeline_cli_load("embed", o->model, o->max_length, embedding);
    if (rc || !p)
        return rc ? rc : CLI_FAILED;
    const int D = o->dimensions ? o->dimensions : tf_pipeline_dim(p);
    float *vectors = malloc(sizeof(float) * o->n_texts * (size_t)D); /* [n_texts, D] */
    size_t truncated = 0;
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = o->n_texts, a.texts = o->texts, a.truncated = &truncated;
    a.out = vectors, a.out_len = o->n_texts * (size_t)D;
    a.prompt_name = o->prompt_name, a.dimensions = o->dimensions;
    a.dimensions_layer_norm = o->dimensions_layer_norm;
    a.normalize = o->normalize ? 1 : -1;
    const tf_status s = vectors ? tf_pipeline_embed(p, &a) : TF_ERR_OUT_OF_MEMORY;
    rc = s ? pipeline_cli_fail("embed", s) : 0;
    if (rc == 0) {
        pipeline_cli_truncated("embed", truncated, p);
        if (o->json)
            write_json(vectors, o->n_texts, D, truncated);
        else
            rc = write_vectors(o, vectors, o->n_texts, D);
    }
    free(vectors);
    tf_pipeline_destroy(p);
    return rc;
}

int tfenc_embed(int argc, char **argv)
{
    embed_options o;
    const int parsed = parse_embed(argc, argv, &o);
    int rc;
    if (parsed) {
        rc = cli_parse_status(parsed);
    } else if (add_file_lines(&o) != 0) {
        rc = CLI_FAILED;
    } else if (o.n_texts == 0) {
        cli_error("embed", "no text to embed: pass TEXT arguments or a --file with lines");
        rc = CLI_USAGE;
    } else if (!(o.model = cli_model_path("embed", &o.source, &rc))) {
        /* rc set after the message */
    } else if (pipeline_cli_is_folder(o.model) || o.prompt_name || o.dimensions ||
               o.dimensions_layer_norm || o.json) {
        rc = embed_folder(&o);
    } else {
        rc = embed_all(&o);
    }
    free(o.texts);
    text_lines_free(&o.lines);
    cli_model_free(&o.source);
    return rc;
}
