/* tokenize.c — `tfenc tokenize --tokenizer FILE_OR_DIR [--pair TEXT]
 * [--max-length N [--stride S]] [--json] [--file TEXTS.txt] [--] TEXT...`:
 * each text's ids, one line a text (with --stride, one line a window);
 * with --json one object a line: ids, tokens, offsets (code points, as
 * Python counts them) and type ids (and with --stride the text's index). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "pipeline_cli.h"
#include "text_lines.h"
#include "tfenc.h"

typedef struct tokenize_options {
    const char *tokenizer, *pair, *file;
    int json;
    int32_t max_length, stride; /* 0: the tokenizer's truncation; -1: no --stride */
    const char **texts;         /* [n_texts]: the TEXTs, then the file's lines */
    size_t n_texts;
    text_lines lines;
} tokenize_options;

static void tokenize_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc tokenize --tokenizer FILE_OR_DIR [--pair TEXT] [--json]\n"
            "                      [--max-length N [--stride S]] [--file TEXTS.txt]\n"
            "                      [--] TEXT [TEXT ...]\n"
            "Tokenizes each TEXT (then each line of TEXTS.txt) with a tokenizer.json, a\n"
            "model folder (its tokenizer.json, else its vocab.txt) or a vocab.txt, with\n"
            "the special tokens it adds; --pair: each as a pair with TEXT. Prints one line\n"
            "of ids a text; --json: one object a line, {\"ids\", \"tokens\", \"offsets\",\n"
            "\"type_ids\"}, offsets in code points of the text (or the pair), [0, 0] for\n"
            "the special tokens. --max-length: at most N ids a text (longest_first);\n"
            "--stride: every window of the cut tokens a line of its own, each repeating\n"
            "S tokens of the one before (Hugging Face's return_overflowing_tokens), with\n"
            "--json \"text\": the index of the text it came from. `--` ends the options:\n"
            "a TEXT may start with '-'.\n");
}

static int take(cli_args *a, const char *arg, void *user)
{
    tokenize_options *o = user;
    if (!strcmp(arg, "--json")) {
        o->json = 1;
        return 1;
    }
    if (!strcmp(arg, "--tokenizer"))
        return cli_string(a, arg, "a tokenizer.json, folder or vocab.txt", &o->tokenizer);
    if (!strcmp(arg, "--pair"))
        return cli_string(a, arg, "a text", &o->pair);
    if (!strcmp(arg, "--file"))
        return cli_string(a, arg, "a file of texts, one a line", &o->file);
    if (!strcmp(arg, "--max-length"))
        return cli_int(a, arg, 1, INT32_MAX, &o->max_length);
    if (!strcmp(arg, "--stride"))
        return cli_int(a, arg, 0, INT32_MAX, &o->stride);
    if (arg[0] == '-' && arg[1])
        return 0;
    o->texts[o->n_texts++] = arg;
    return 1;
}

/* The options, then every argument after `--` as a TEXT: 0, 1 after
 * --help, -1 after a message. */
static int parse(cli_args *a, tokenize_options *o)
{
    for (const char *arg; (arg = cli_next(a));) {
        if (!strcmp(arg, "--")) {
            while ((arg = cli_next(a)))
                o->texts[o->n_texts++] = arg;
            return 0;
        }
        if (cli_is_help(arg)) {
            a->usage(stdout);
            return 1;
        }
        const int taken = take(a, arg, o);
        if (taken == 0)
            cli_error(a->command, "unknown option '%s'", arg);
        if (taken <= 0)
            return -1;
    }
    return 0;
}

/* The file's lines after the TEXTs: 0, or -1 after a message. */
static int add_file(tokenize_options *o)
{
    if (!o->file)
        return 0;
    if (text_lines_read("tokenize", "--file", o->file, &o->lines))
        return -1;
    const char **texts = realloc(o->texts, (o->n_texts + o->lines.n + 1) * sizeof *texts);
    if (!texts) {
        cli_error("tokenize", "--file %s: cannot hold %zu lines", o->file, o->lines.n);
        return -1;
    }
    o->texts = texts;
    memcpy(texts + o->n_texts, o->lines.lines, o->lines.n * sizeof *texts);
    o->n_texts += o->lines.n;
    return 0;
}

/* v[0..n) with sep between them. */
static void print_ints(const int32_t *v, int32_t n, const char *sep)
{
    for (int32_t t = 0; t < n; t++)
        printf("%s%d", t ? sep : "", (int)v[t]);
}

/* Row r of e as one JSON object (with the text it came from, `text`, when
 * text >= 0). */
static void print_json(const tf_tokenizer *tok, const tf_encoding *e, int32_t r, long text)
{
    const int32_t n = tf_encoding_lengths(e)[r], T = tf_encoding_seq_len(e);
    const int32_t *ids = tf_encoding_ids(e) + (size_t)r * T;
    printf("{");
    if (text >= 0)
        printf("\"text\": %ld, ", text);
    printf("\"ids\": [");
    print_ints(ids, n, ", ");
    printf("], \"tokens\": [");
    for (int32_t t = 0; t < n; t++) {
        printf("%s", t ? ", " : "");
        pipeline_cli_json_string(stdout, tf_tokenizer_id_to_token(tok, ids[t]));
    }
    printf("], \"offsets\": [");
    const int64_t *o = tf_encoding_char_offsets(e) + 2 * (size_t)r * T;
    for (int32_t t = 0; t < n; t++)
        printf("%s[%lld, %lld]", t ? ", " : "", (long long)o[2 * t], (long long)o[2 * t + 1]);
    printf("], \"type_ids\": [");
    print_ints(tf_encoding_type_ids(e) + (size_t)r * T, n, ", ");
    printf("]}\n");
}

/* The encode options of --max-length and --stride. */
static tf_encode_options encode_options(const tokenize_options *o)
{
    tf_encode_options e;
    tf_encode_options_init(&e);
    if (o->max_length)
        e.truncation = TF_TRUNCATION_LONGEST_FIRST, e.max_length = o->max_length;
    if (o->stride >= 0)
        e.stride = o->stride, e.return_overflowing = 1;
    return e;
}

static int tokenize(const tokenize_options *o)
{
    tf_tokenizer *tok;
    tf_status s = tf_tokenizer_load(o->tokenizer, NULL, &tok);
    if (s) {
        cli_error("tokenize", "%s", tf_last_error());
        return CLI_FAILED;
    }
    int rc = 0;
    const tf_encode_options opts = encode_options(o);
    for (size_t i = 0; rc == 0 && i < o->n_texts; i++) {
        tf_encoding *e;
        s = tf_tokenizer_encode_batch_with(tok, 1, &o->texts[i], NULL, o->pair ? &o->pair : NULL,
                                           NULL, &opts, &e);
        if (s) {
            cli_error("tokenize", "text %zu: %s", i, tf_last_error());
            rc = CLI_FAILED;
            break;
        }
        for (int32_t r = 0; r < tf_encoding_batch(e); r++) {
            if (o->json) {
                print_json(tok, e, r, o->stride >= 0 ? (long)i : -1);
                continue;
            }
            print_ints(tf_encoding_ids(e) + (size_t)r * tf_encoding_seq_len(e),
                       tf_encoding_lengths(e)[r], " ");
            printf("\n");
        }
        tf_encoding_destroy(e);
    }
    tf_tokenizer_destroy(tok);
    return rc;
}

int tfenc_tokenize(int argc, char **argv)
{
    tokenize_options o = {.stride = -1};
    cli_args a = cli_args_start("tokenize", tokenize_usage, argc, argv);
    if (!(o.texts = malloc(((size_t)argc + 1) * sizeof *o.texts))) {
        cli_error("tokenize", "out of memory");
        return CLI_FAILED;
    }
    int parsed = parse(&a, &o);
    if (parsed == 0 && !o.tokenizer)
        parsed = cli_usage_error(&a);
    if (parsed == 0 && o.stride >= 0 && !o.max_length) {
        cli_error("tokenize", "--stride %d: needs --max-length N (the length of a window)",
                  (int)o.stride);
        parsed = -1;
    }
    int rc = cli_parse_status(parsed);
    if (parsed == 0 && add_file(&o))
        rc = CLI_FAILED;
    else if (parsed == 0 && o.n_texts == 0)
        rc = cli_parse_status(cli_usage_error(&a));
    else if (parsed == 0)
        rc = tokenize(&o);
    free(o.texts);
    text_lines_free(&o.lines);
    return rc;
}
