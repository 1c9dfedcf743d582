/* fill_mask.c — `tfenc fill-mask --model DIR [--top-k N] TEXT...`: a
 * *ForMaskedLM folder's best tokens for each mask token of each text, as
 * transformers' fill-mask pipeline gives them. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "job_output.h"
#include "model_arg.h"
#include "options.h"
#include "pipeline_cli.h"
#include "text_lines.h"
#include "tfenc.h"

/* FillMaskPipeline's default top_k. */
#define FILL_MASK_TOP_K 5

/* --output's formats, named by output_names. */
typedef enum fill_output { FILL_TEXT, FILL_JSON, FILL_JSONL, FILL_OUTPUT_COUNT } fill_output;
static const char *const output_names[] = {"text", "json", "jsonl"};
_Static_assert(sizeof output_names / sizeof *output_names == FILL_OUTPUT_COUNT,
               "a name for every output format");

typedef struct fill_options {
    cli_model source;
    const char *model; /* the folder --model names (a Hub id's, resolved) */
    int32_t top_k;
    const char *output; /* --output's name, or NULL: text */
    fill_output format;
    const char *file;  /* --file, or NULL */
    const char **args; /* [n_args] the TEXTs, then the lines of --file (malloc'ed) */
    size_t n_args;
    text_lines lines;
} fill_options;

static void fill_mask_usage(FILE *out)
{
    fprintf(out,
            "usage: tfenc fill-mask --model DIR_OR_ID [--top-k N] [--output text|json|jsonl]\n"
            "                       [--file TEXTS.txt|-] [TEXT ...]\n"
            "The best tokens for each mask token of each TEXT (the tokenizer's mask_token:\n"
            "[MASK], <mask>) from the *ForMaskedLM folder in DIR, as transformers'\n"
            "fill-mask pipeline: the softmax of the masked-LM head's logits there, the\n"
            "top N (--top-k, default %d) best first.\n"
            "--output: text (default), one line a prediction: the text's number, the\n"
            "mask's number, the score, the token id, the token and the text with it in\n"
            "the mask's place, tab-separated; json, a list with each text's predictions\n"
            "as the pipeline returns them (one mask: a list of {\"score\", \"token\",\n"
            "\"token_str\", \"sequence\"}; several: a list of such lists); jsonl, a line\n"
            "{\"index\", \"text\", \"predictions\"} a text.\n"
            "--file: more TEXTs, one a line (-: standard input), after the TEXT arguments.\n"
            "A text without a mask token is refused; a folder of another kind too, naming\n"
            "the subcommand that runs it.\n",
            FILL_MASK_TOP_K);
    cli_model_usage(out, "");
}

static int take(cli_args *a, const char *arg, void *user)
{
    fill_options *o = user;
    if (!strcmp(arg, "--top-k"))
        return cli_int(a, arg, 1, INT32_MAX, &o->top_k);
    if (!strcmp(arg, "--output"))
        return cli_string(a, arg, "text, json or jsonl", &o->output);
    if (!strcmp(arg, "--file"))
        return cli_string(a, arg, "a text file or - (standard input)", &o->file);
    if (arg[0] == '-' && arg[1])
        return cli_model_option(a, arg, &o->source);
    o->args[o->n_args++] = arg;
    return 1;
}

/* --output's name into o->format: 0, or -1 after a message. */
static int choose_output(fill_options *o)
{
    o->format = FILL_TEXT;
    for (int f = 0; o->output && f < FILL_OUTPUT_COUNT; f++)
        if (!strcmp(o->output, output_names[f])) {
            o->format = (fill_output)f;
            return 0;
        }
    if (!o->output)
        return 0;
    return cli_refuse("fill-mask", "--output", "text, json or jsonl", o->output);
}

/* The lines of --file after the TEXTs: 0, or -1 after a message. */
static int add_file_lines(fill_options *o)
{
    if (!o->file)
        return 0;
    if (text_lines_read("fill-mask", "--file", o->file, &o->lines))
        return -1;
    const char **args = realloc(o->args, (o->n_args + o->lines.n + 1) * sizeof *args);
    if (!args) {
        cli_error("fill-mask", "--file %s: cannot hold %zu lines", o->file, o->lines.n);
        return -1;
    }
    memcpy(args + o->n_args, o->lines.lines, o->lines.n * sizeof *args);
    o->args = args, o->n_args += o->lines.n;
    return 0;
}

static void fill_options_free(fill_options *o)
{
    free(o->args);
    text_lines_free(&o->lines);
    cli_model_free(&o->source);
}

/* Parses argv into *o: 1 to run (fill_options_free after), else 0 with
 * *status the exit status. */
static int parse(fill_options *o, int argc, char **argv, int *status)
{
    *o = (fill_options){.source = CLI_MODEL_INIT, .top_k = FILL_MASK_TOP_K};
    cli_args a = cli_args_start("fill-mask", fill_mask_usage, argc, argv);
    if (!(o->args = malloc((size_t)argc * sizeof *o->args))) {
        cli_error("fill-mask", "out of memory");
        *status = CLI_FAILED;
        return 0;
    }
    int rc = cli_parse(&a, take, o);
    if (rc == 0 && (!o->source.model || (o->n_args == 0 && !o->file)))
        rc = cli_usage_error(&a);
    if (rc == 0)
        rc = choose_output(o);
    if (rc == 0 && add_file_lines(o) != 0) {
        fill_options_free(o);
        *status = CLI_FAILED;
        return 0;
    }
    if (rc == 0 && o->n_args == 0) {
        cli_error("fill-mask", "--file %s: no lines", o->file);
        rc = -1;
    }
    *status = cli_parse_status(rc);
    if (rc == 0 && (o->model = cli_model_path("fill-mask", &o->source, status)))
        return 1;
    fill_options_free(o);
    return 0;
}

/* One prediction as the pipeline's dict. */
static void print_prediction_json(const tf_fill_mask *m, size_t mask, int32_t k)
{
    char number[CLI_FLOAT_CHARS];
    printf("{\"score\": %s, \"token\": %d, \"token_str\": ",
           cli_float_text(number, tf_fill_mask_score(m, mask, k)),
           (int)tf_fill_mask_token(m, mask, k));
    pipeline_cli_json_string(stdout, tf_fill_mask_token_str(m, mask, k));
    printf(", \"sequence\": ");
    pipeline_cli_json_string(stdout, tf_fill_mask_sequence(m, mask, k));
    printf("}");
}

/* A text's predictions as FillMaskPipeline returns them: one mask's list,
 * or a list of each mask's. */
static void print_predictions_json(const tf_fill_mask *m)
{
    const size_t masks = tf_fill_mask_count(m);
    if (masks > 1)
        printf("[");
    for (size_t i = 0; i < masks; i++) {
        printf("%s[", i ? ", " : "");
        for (int32_t k = 0; k < tf_fill_mask_top_k(m); k++) {
            printf("%s", k ? ", " : "");
            print_prediction_json(m, i, k);
        }
        printf("]");
    }
    if (masks > 1)
        printf("]");
}

static void print_text(const fill_options *o, size_t t, const tf_fill_mask *m)
{
    if (o->format == FILL_JSON) {
        printf("%s", t ? ", " : "");
        print_predictions_json(m);
        return;
    }
    if (o->format == FILL_JSONL) {
        printf("{\"index\": %zu, \"text\": ", t);
        pipeline_cli_json_string(stdout, o->args[t]);
        printf(", \"predictions\": ");
        print_predictions_json(m);
        printf("}\n");
        return;
    }
    for (size_t i = 0; i < tf_fill_mask_count(m); i++)
        for (int32_t k = 0; k < tf_fill_mask_top_k(m); k++)
            printf("%zu\t%zu\t%.6f\t%d\t%s\t%s\n", t, i, (double)tf_fill_mask_score(m, i, k),
                   (int)tf_fill_mask_token(m, i, k), tf_fill_mask_token_str(m, i, k),
                   tf_fill_mask_sequence(m, i, k));
}

static int fill_mask(const fill_options *o)
{
    tf_pipeline *p = pipeline_cli_load("fill-mask", o->model, 0,
                                       PIPELINE_CLI_KIND(TF_PIPELINE_FILL_MASK));
    if (!p)
        return CLI_FAILED;
    int rc = 0;
    if (o->format == FILL_JSON)
        printf("[");
    for (size_t t = 0; rc == 0 && t < o->n_args; t++) {
        tf_fill_mask *m;
        const tf_status s = tf_pipeline_fill_mask(p, o->args[t], o->top_k, &m);
        if (s) {
            cli_error("fill-mask", "text %zu: %s", t, tf_last_error());
            rc = CLI_FAILED;
            break;
        }
        print_text(o, t, m);
        tf_fill_mask_destroy(m);
    }
    if (o->format == FILL_JSON)
        printf(rc ? "\n" : "]\n");
    tf_pipeline_destroy(p);
    return rc;
}

int tfenc_fill_mask(int argc, char **argv)
{
    fill_options o;
    int status;
    if (!parse(&o, argc, argv, &status))
        return status;
    status = fill_mask(&o);
    fill_options_free(&o);
    return status;
}
