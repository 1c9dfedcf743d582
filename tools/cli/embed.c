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
#include <unistd.h>

#include "cli.h"
#include "embed_sparse.h"
#include "embed_tokens.h"
#include "image_cli.h"
#include "job_output.h"
#include "model_arg.h"
#include "npy.h"
#include "options.h"
#include "out_file.h"
#include "pipeline_cli.h"
#include "quantize_cli.h"
#include "text_lines.h"
#include "tfenc.h"

/* Texts per forward call by default, and at most; the token limit of a
 * model without max_positions (BERT's); the smallest, [CLS] one token [SEP];
 * the most threads --threads takes. */
enum {
    EMBED_BATCH = PIPELINE_CLI_BATCH,
    MAX_BATCH = 65536,
    DEFAULT_MAX_LENGTH = 512,
    MIN_MAX_LENGTH = 3,
    MAX_THREADS = 1024
};

/* --output's formats, named by output_names. */
typedef enum output_format { OUTPUT_TEXT, OUTPUT_JSON, OUTPUT_JSONL, OUTPUT_NPY } output_format;
static const char *const output_names[] = {"text", "json", "jsonl", "npy"};
_Static_assert(sizeof output_names / sizeof output_names[0] == OUTPUT_NPY + 1,
               "a name for every output format");

typedef struct embed_options {
    cli_model source;  /* --model and where it comes from */
    const char *model; /* the file or folder it names (a Hub id's folder, resolved) */
    const char *vocab, *file, *prompt_name;
    int cased, normalize, pool_given;
    output_format output;        /* --output, or --json or --npy (text by default) */
    const char *output_by;       /* the flag that chose it ("--json"), NULL: none did */
    const char *out;             /* --out FILE or --npy FILE, NULL: stdout */
    const char *out_flag;        /* "--out" or "--npy", for messages */
    int32_t batch_size;          /* texts per forward call */
    int32_t threads;             /* 0: one per core */
    int32_t pooling, max_length; /* max_length 0: the default */
    int32_t dimensions;          /* 0: all */
    int dimensions_layer_norm;   /* --dimensions-layer-norm: nomic's Matryoshka recipe */
    int32_t precision;           /* --precision: a tf_precision (float32 by default) */
    const char *calibration;     /* --calibration FILE.npy: int8 / uint8 ranges, NULL: none */
    tf_load_options load;
    embed_sparse_options sparse_opts; /* --sparse, --query, --max-active-dims, --decode-tokens */
    int32_t sparse;
    /* --multi-vector: every token's vector (embed_tokens.c) */
    int32_t multi_vector;
    const char **texts; /* [n_texts]: the TEXT arguments, then the lines of --file */
    size_t n_texts, n_args;
    text_lines lines;
    size_t truncated; /* texts cut to the limit */
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
    char pools[64], precisions[64];
    fprintf(out,
            "usage: tfenc embed --model FILE_OR_DIR [--vocab vocab.txt] [--cased]\n"
            "                   [--pool %s] [--normalize] [--max-length N]\n"
            "                   [--file TEXTS.txt|-] [--output text|json|jsonl|npy]\n"
            "                   [--out FILE] [--batch-size N] [--threads N] [TEXT ...]\n"
            "       tfenc embed --model DIR_OR_ID [--prompt-name NAME] [--dimensions N]\n"
            "                   [--dimensions-layer-norm] [--normalize] [--max-length N] ...\n"
            "       tfenc embed --model DIR_OR_ID --sparse [--query] [--max-active-dims K]\n"
            "                   [--decode-tokens] [--prompt-name NAME] ...\n"
            "       tfenc embed --model DIR_OR_ID --multi-vector [--query] [--normalize] ...\n"
            "       tfenc embed ... [--precision %s]\n"
            "                   [--calibration EMBEDDINGS.npy]\n",
            cli_names(tf_pooling_name, "|", "|", pools, sizeof pools),
            cli_names(tf_precision_name, "|", "|", precisions, sizeof precisions));
    cli_load_options_usage(out, "                   ");
    fprintf(out,
            "One vector per text (each TEXT, then each line of --file): WordPiece tokens\n"
            "(--vocab, or the model directory's vocab.txt), the encoder, then the [CLS]\n"
            "vector or the mean over the real tokens (default), optionally L2-normalised.\n"
            "A text of more than N tokens ([CLS] and [SEP] included; default: the model's\n"
            "max_positions, else %d) is cut to N, with a note on stderr. --file - reads\n"
            "standard input; a line must not hold a NUL byte.\n"
            "--output: text (default), a line of numbers per text; json, one object\n"
            "{\"dim\", \"truncated\", \"embeddings\"}; jsonl, one line {\"index\",\n"
            "\"embedding\"} per text; npy, an [N, D] float32 array. Numbers are written to\n"
            "read back as the same float32. On stdout, or in --out FILE (then a note on\n"
            "stderr); --json is --output json, --npy FILE is --output npy --out FILE.\n"
            "--batch-size N texts per forward call (default %d; a vector differs between\n"
            "values of N in its last bits at most), --threads N at most (default: one per\n"
            "core; the same vectors for any N).\n"
            "A sentence-transformers folder DIR (modules.json) runs its own pipeline: its\n"
            "tokenizer settings, max_seq_length, pooling, Dense and Normalize modules,\n"
            "prompts (--prompt-name; default: its default_prompt_name) and --dimensions\n"
            "(the first N, renormalised when normalised); --dimensions-layer-norm takes\n"
            "nomic-embed-text-v1.5's recipe instead (its model card): a layer norm over\n"
            "all the values, the first N (default: all), unit length.\n"
            "A folder of another kind (a classifier, a cross-encoder, a token classifier)\n"
            "is refused, naming the subcommand that runs it.\n"
            "--precision quantizes the vectors as sentence-transformers' quantize_embeddings\n"
            "(tf_quantize): int8 and uint8 map each dimension's range onto 256 buckets (the\n"
            "range of --calibration's rows, a float32 [rows, D] .npy, else of the texts'\n"
            "vectors), binary and ubinary pack the signs 8 a byte. The output holds\n"
            "integers: npy int8 (int8, binary) or uint8 (uint8, ubinary) [N, D] ([N, D/8]\n"
            "rounded up for the bits); json adds \"precision\".\n"
            "--sparse runs a SPLADE folder (a SparseEncoder's, or a bare *ForMaskedLM):\n"
            "one JSON line {\"indices\", \"values\"} per text, indices ascending; --query\n"
            "takes a Router's query route, --max-active-dims K keeps the K largest values,\n"
            "--decode-tokens adds \"tokens\", each index's vocabulary entry.\n"
            "--multi-vector gives every token's vector: one JSON line {\"rows\", \"dim\",\n"
            "\"vectors\"} per text; a PyLate (ColBERT) folder's as PyLate's encode gives\n"
            "them (documents; --query: queries), an embedding folder's last hidden state\n"
            "(--normalize: at unit length). With --precision every text's rows are\n"
            "quantized together (int8 / uint8: ranges of --calibration's rows, else of\n"
            "all the texts' rows) and the line adds \"precision\".\n",
            DEFAULT_MAX_LENGTH, EMBED_BATCH);
    cli_model_usage(out, "");
}

/* Chooses the output format f by the flag `by` ("--json", "--output"): 1,
 * or -1 after a message when another flag chose another one:
 *   tfenc embed: --output jsonl and --json: choose one output */
static int choose_output(const char *command, embed_options *o, output_format f, const char *by)
{
    if (o->output_by && o->output != f) {
        const int first_named = !strcmp(o->output_by, "--output"), named = !strcmp(by, "--output");
        cli_error(command, "%s%s%s and %s%s%s: choose one output", o->output_by,
                  first_named ? " " : "", first_named ? output_names[o->output] : "", by,
                  named ? " " : "", named ? output_names[f] : "");
        return -1;
    }
    o->output = f, o->output_by = by;
    return 1;
}

/* --output FORMAT, --out FILE, --npy FILE: 1, or -1 after a message. */
static int set_output(cli_args *a, const char *flag, embed_options *o)
{
    const int formats = (int)(sizeof output_names / sizeof output_names[0]);
    if (!strcmp(flag, "--output")) {
        const char *name = NULL;
        int rc = cli_string(a, flag, "text, json, jsonl or npy", &name);
        for (int f = 0; rc > 0 && f < formats; f++)
            if (!strcmp(name, output_names[f]))
                return choose_output(a->command, o, (output_format)f, flag);
        return rc > 0 ? cli_refuse(a->command, flag, "text, json, jsonl or npy", name) : rc;
    }
    if (o->out) {
        cli_error(a->command, "%s and %s: choose one output file", o->out_flag, flag);
        return -1;
    }
    o->out_flag = flag[2] == 'n' ? "--npy" : "--out";
    const int rc = cli_string(a, flag, "an output file", &o->out);
    return rc > 0 && flag[2] == 'n' ? choose_output(a->command, o, OUTPUT_NPY, "--npy") : rc;
}

/* A flag with a value: 1 if flag is one (and set), -1 on a bad value, 0
 * for another flag. */
static int set_value(cli_args *a, const char *flag, embed_options *o)
{
    const cli_string_flag paths[] = {
        {"--vocab", "a vocab.txt", &o->vocab},
        {"--file", "a text file or - (standard input)", &o->file},
        {"--prompt-name", "a prompt of the folder", &o->prompt_name},
        {"--calibration", "a float32 .npy of embeddings", &o->calibration},
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
    if (!strcmp(flag, "--max-active-dims"))
        return cli_int(a, flag, 1, INT32_MAX, &o->sparse_opts.max_active_dims);
    if (!strcmp(flag, "--precision"))
        return cli_enum(a, flag, tf_precision_name, tf_precision_from_name, &o->precision);
    if (!strcmp(flag, "--batch-size"))
        return cli_int(a, flag, 1, MAX_BATCH, &o->batch_size);
    if (!strcmp(flag, "--threads"))
        return cli_int(a, flag, 1, MAX_THREADS, &o->threads);
    if (!strcmp(flag, "--output") || !strcmp(flag, "--npy") || !strcmp(flag, "--out"))
        return set_output(a, flag, o);
    if (!strcmp(flag, "--max-length"))
        return cli_int(a, flag, MIN_MAX_LENGTH, TF_MAX_POSITIONS, &o->max_length);
    const int model_rc = cli_model_option(a, flag, &o->source);
    return model_rc ? model_rc : cli_load_option(a, flag, &o->load);
}

static int take_embed(cli_args *a, const char *arg, void *user)
{
    embed_options *o = user;
    if (!strcmp(arg, "--json"))
        return choose_output(a->command, o, OUTPUT_JSON, arg);
    int32_t *sparse_flag = !strcmp(arg, "--sparse") ? &o->sparse
        : !strcmp(arg, "--multi-vector")            ? &o->multi_vector
        : !strcmp(arg, "--query")                   ? &o->sparse_opts.job.is_query
        : !strcmp(arg, "--decode-tokens")           ? &o->sparse_opts.decode_tokens
                                                    : NULL;
    if (sparse_flag) {
        *sparse_flag = 1;
        return 1;
    }
    if (!strcmp(arg, "--dimensions-layer-norm")) {
        o->dimensions_layer_norm = 1;
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
    *o = (embed_options){
        .source = CLI_MODEL_INIT, .pooling = TF_POOLING_MEAN, .batch_size = EMBED_BATCH};
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
    cli_error("embed", "%s", tf_last_error());
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

/* Says on stderr which texts of a batch (texts first..first+n) were cut,
 * and counts them in *cut: a row of exactly `limit` tokens was when the
 * probe gives it one more. */
static tf_status report_cut(const embedder *e, const tf_encoding *enc, size_t first, size_t *cut)
{
    for (int32_t b = 0; b < tf_encoding_batch(enc); b++) {
        if (tf_encoding_lengths(enc)[b] < e->limit)
            continue;
        const char *text = e->o->texts[first + (size_t)b];
        tf_encoding *longer;
        const tf_status s = tf_tokenizer_encode(e->probe, text, strlen(text), NULL, 0, &longer);
        if (s)
            return s;
        if (tf_encoding_lengths(longer)[0] > e->limit && ++*cut)
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
static int blame_text(const embedder *e, size_t first, size_t n)
{
    char batch_message[512];
    snprintf(batch_message, sizeof batch_message, "%s", tf_last_error());
    for (size_t i = first; i < first + n; i++) {
        tf_encoding *enc = NULL;
        const char *text = e->o->texts[i];
        const tf_status s = tf_tokenizer_encode(e->tok, text, strlen(text), NULL, 0, &enc);
        tf_encoding_destroy(enc);
        if (s) {
            text_error(e->o, i, ": %s", tf_last_error());
            return CLI_FAILED;
        }
    }
    cli_error("embed", "texts %zu..%zu: %s", first + 1, first + n, batch_message);
    return CLI_FAILED;
}

/* vectors [n, D] of texts first..first+n: tokens, the encoder, pooling
 * (the texts cut counted in *cut). 0, or an exit status after a message. */
static int embed_batch(const embedder *e, size_t first, size_t n, float *vectors, size_t *cut)
{
    tf_encoding *enc = NULL;
    tf_status s = tf_tokenizer_encode_batch(e->tok, n, e->o->texts + first, NULL, NULL, NULL, &enc);
    if (s == TF_ERR_INVALID_ARGUMENT)
        return blame_text(e, first, n);
    if (s || (s = report_cut(e, enc, first, cut))) {
        tf_encoding_destroy(enc);
        return fail(s);
    }
    const int32_t B = tf_encoding_batch(enc), T = tf_encoding_seq_len(enc), D = e->cfg.d_model;
    float *hidden = malloc(sizeof(float) * (size_t)B * (size_t)T * (size_t)D); /* [B, T, D] */
    tf_forward_args a;
    tf_forward_args_init(&a);
    a.batch = B, a.seq_len = T, a.input_ids = tf_encoding_ids(enc), a.output = hidden;
    a.attention_mask = tf_encoding_attention_mask(enc);
    a.n_threads = e->o->threads;
    a.token_type_ids = e->cfg.n_token_types > 0 ? tf_encoding_type_ids(enc) : NULL;
    s = hidden ? tf_encoder_forward(e->enc, &a) : TF_ERR_OUT_OF_MEMORY;
    if (s == TF_OK)
        s = tf_pool(hidden, tf_encoding_lengths(enc), B, T, D, e->o->pooling, e->o->normalize,
                    vectors);
    free(hidden);
    tf_encoding_destroy(enc);
    if (s)
        cli_error("embed", "texts %zu..%zu: %s", first + 1, first + n, tf_last_error());
    return s ? CLI_FAILED : 0;
}

/* rows (of vectors [n, D]) as --output says, on out. */
static void print_vectors(FILE *out, const embed_options *o, const cli_rows *rows, int D)
{
    const int json = o->output == OUTPUT_JSON, jsonl = o->output == OUTPUT_JSONL;
    const char *between = json || jsonl ? ", " : " ";
    char number[CLI_FLOAT_CHARS];
    if (json && o->precision != TF_PRECISION_FLOAT32)
        fprintf(out, "{\"dim\": %d, \"precision\": \"%s\", \"truncated\": %zu, \"embeddings\": [",
                D, tf_precision_name(o->precision), o->truncated);
    else if (json)
        fprintf(out, "{\"dim\": %d, \"truncated\": %zu, \"embeddings\": [", D, o->truncated);
    for (size_t i = 0; i < rows->n && !ferror(out); i++) {
        if (jsonl)
            fprintf(out, "{\"index\": %zu, \"embedding\": [", i);
        else if (json)
            fprintf(out, "%s[", i ? ", " : "");
        for (size_t k = 0; k < rows->width; k++)
            fprintf(out, "%s%s", k ? between : "", cli_row_value_text(number, rows, i, k));
        fputs(jsonl ? "]}\n" : json ? "]" : "\n", out);
    }
    if (json)
        fputs("]}\n", out);
}

/* rows (of vectors [n, D]) as --output says, on f: 0, or -1 with errno
 * saying why. */
static int put_rows(FILE *f, const embed_options *o, const cli_rows *rows, int D)
{
    const int64_t dims[2] = {(int64_t)rows->n, (int64_t)rows->width};
    size_t item_bytes;
    const char *descr = cli_rows_npy_descr(rows, &item_bytes);
    const void *data = rows->floats ? (const void *)rows->floats : rows->bytes;
    if (o->output == OUTPUT_NPY)
        return npy_fwrite(f, descr, item_bytes, data, 2, dims);
    print_vectors(f, o, rows, D);
    return 0;
}

/* rows on stdout or in --out; 0, or CLI_FAILED after a message. */
static int write_rows(const embed_options *o, const cli_rows *rows, int D)
{
    if (!o->out) {
        put_rows(stdout, o, rows, D); /* a failure: tfenc.c's check */
        return 0;
    }
    out_file out;
    int ok = out_file_open(&out, o->out) == 0;
    if (ok && put_rows(out.f, o, rows, D) != 0) {
        snprintf(out.err, sizeof out.err, "%s: cannot write: %s", o->out,
                 strerror(errno ? errno : EIO));
        out_file_discard(&out);
        ok = 0;
    } else if (ok) {
        ok = out_file_close(&out) == 0;
    }
    if (!ok) {
        cli_error("embed", "%s %s", o->out_flag, out.err);
        return CLI_FAILED;
    }
    if (o->precision == TF_PRECISION_FLOAT32)
        cli_error("embed", "wrote %zu vectors of %d floats to %s", rows->n, D, o->out);
    else
        cli_error("embed", "wrote %zu vectors of %zu %s values to %s", rows->n, rows->width,
                  tf_precision_name(o->precision), o->out);
    return 0;
}

/* vectors [n, D] in --precision on stdout or in --out; 0, or CLI_FAILED
 * after a message. */
static int write_vectors(const embed_options *o, const float *vectors, size_t n, int D)
{
    cli_rows rows;
    if (cli_quantize("embed", o->precision, o->calibration, vectors, n, D, &rows))
        return CLI_FAILED;
    const int rc = write_rows(o, &rows, D);
    cli_rows_free(&rows);
    return rc;
}

static int embed_all(embed_options *o)
{
    embedder e;
    int rc = embedder_open(&e, o);
    const size_t D = (size_t)e.cfg.d_model;
    float *vectors = NULL; /* [n_texts, D] */
    if (rc == 0 && o->n_texts > SIZE_MAX / sizeof(float) / D)
        rc = fail(TF_ERR_OUT_OF_MEMORY);
    if (rc == 0 && !(vectors = malloc(sizeof(float) * o->n_texts * D)))
        rc = fail(TF_ERR_OUT_OF_MEMORY);
    const size_t batch = (size_t)o->batch_size;
    cli_job job;
    cli_job_start(&job, "embed", "texts", o->n_texts, o->source.progress);
    for (size_t i = 0; rc == 0 && i < o->n_texts; i += batch) {
        const size_t n = o->n_texts - i < batch ? o->n_texts - i : batch;
        rc = embed_batch(&e, i, n, vectors + i * D, &o->truncated);
        cli_job_step(&job, i + n);
    }
    cli_job_end(&job);
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
    if (flag)
        cli_error("embed", "%s: the folder %s decides it (its modules.json and tokenizer files)",
                  flag, o->model);
    return flag ? CLI_USAGE : 0;
}

/* vectors [n_texts, D] from the folder's pipeline p: 0, or an exit status
 * after a message. */
static int embed_batches(embed_options *o, tf_pipeline *p, int D, float *vectors)
{
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = o->n_texts, a.texts = o->texts, a.truncated = &o->truncated;
    a.out = vectors, a.out_len = o->n_texts * (size_t)D;
    a.prompt_name = o->prompt_name, a.dimensions = o->dimensions;
    a.dimensions_layer_norm = o->dimensions_layer_norm;
    a.normalize = o->normalize ? 1 : -1;
    a.batch_size = o->batch_size, a.n_threads = o->threads;
    return pipeline_cli_run("embed", p, tf_pipeline_embed, &a, (size_t)D, o->source.progress,
                            "texts");
}

static int embed_folder(embed_options *o)
{
    int rc = refuse_folder_flags(o);
    const unsigned embedding = PIPELINE_CLI_KIND(TF_PIPELINE_EMBEDDING);
    tf_pipeline *p = rc ? NULL : pipeline_cli_load("embed", o->model, o->max_length, embedding);
    if (rc || !p)
        return rc ? rc : CLI_FAILED;
    const int D = o->dimensions ? o->dimensions : tf_pipeline_dim(p);
    float *vectors = malloc(sizeof(float) * o->n_texts * (size_t)D); /* [n_texts, D] */
    if (!vectors)
        cli_error("embed", "out of memory");
    rc = vectors ? embed_batches(o, p, D, vectors) : CLI_FAILED;
    if (rc == 0) {
        pipeline_cli_truncated("embed", o->truncated, p);
        rc = write_vectors(o, vectors, o->n_texts, D);
    }
    free(vectors);
    tf_pipeline_destroy(p);
    return rc;
}

/* The texts and the run's settings, as --sparse and --multi-vector take them. */
static embed_job job_of(const embed_options *o)
{
    return (embed_job){.model = o->model,
                       .texts = o->texts,
                       .n = o->n_texts,
                       .prompt_name = o->prompt_name,
                       .batch_size = o->batch_size,
                       .threads = o->threads,
                       .max_length = o->max_length,
                       .is_query = o->sparse_opts.job.is_query,
                       .out = o->out};
}

/* --sparse (embed_sparse.c): its flags with it, the dense vectors' refused. */
static int embed_sparse(embed_options *o)
{
    const char *flag = o->output_by && o->output != OUTPUT_JSONL ? o->output_by
        : o->dimensions || o->dimensions_layer_norm              ? "--dimensions"
        : o->precision != TF_PRECISION_FLOAT32                   ? "--precision"
        : o->normalize                                           ? "--normalize"
        : o->pool_given                                          ? "--pool"
        : o->vocab                                               ? "--vocab"
                                                                 : NULL;
    if (flag) {
        cli_error("embed", "%s: not with --sparse (one JSON line of indices and values a text)",
                  flag);
        return CLI_USAGE;
    }
    o->sparse_opts.job = job_of(o);
    return embed_sparse_run(&o->sparse_opts);
}

/* --multi-vector (embed_tokens.c): its flags with it, the pooled vectors' refused. */
static int embed_tokens(embed_options *o)
{
    const char *flag = o->output_by && o->output != OUTPUT_JSONL ? o->output_by
        : o->dimensions || o->dimensions_layer_norm              ? "--dimensions"
        : o->pool_given                                          ? "--pool"
        : o->vocab                                               ? "--vocab"
        : o->sparse                                              ? "--sparse"
                                                                 : NULL;
    if (flag) {
        cli_error("embed", "%s: not with --multi-vector (one JSON line of vectors a text)", flag);
        return CLI_USAGE;
    }
    const embed_tokens_options t = {.job = job_of(o),
                                    .normalize = o->normalize,
                                    .precision = o->precision,
                                    .calibration = o->calibration};
    return embed_tokens_run(&t);
}

/* Whether model is an image folder: its texts, if it has a text tower (a whole
 * CLIP or SigLIP folder), are its pipeline's. */
static int is_image_folder(const char *model)
{
    int32_t image = 0;
    return tf_model_is_image(model, &image) == TF_OK && image;
}

int tfenc_embed(int argc, char **argv)
{
    if (image_cli_wanted(argc, argv))
        return image_cli_embed(argc, argv);
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
    } else if (o.calibration && o.precision != TF_PRECISION_INT8 &&
               o.precision != TF_PRECISION_UINT8) {
        cli_error("embed",
                  "--calibration: only --precision int8 and uint8 use ranges, got "
                  "--precision %s",
                  tf_precision_name(o.precision));
        rc = CLI_USAGE;
    } else if (!o.out && o.output == OUTPUT_NPY && isatty(STDOUT_FILENO)) {
        cli_error("embed", "--output npy: standard output is a terminal; pass --out FILE");
        rc = CLI_USAGE;
    } else if (o.multi_vector) {
        rc = embed_tokens(&o);
    } else if (o.sparse) {
        rc = embed_sparse(&o);
    } else if (pipeline_cli_is_folder(o.model) || is_image_folder(o.model) || o.prompt_name ||
               o.dimensions || o.dimensions_layer_norm) {
        rc = embed_folder(&o);
    } else {
        rc = embed_all(&o);
    }
    free(o.texts);
    text_lines_free(&o.lines);
    cli_model_free(&o.source);
    return rc;
}
