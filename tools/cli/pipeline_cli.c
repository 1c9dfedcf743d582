/* pipeline_cli.c — loading a model folder for the CLI, and its output. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "job_output.h"
#include "kind_text.h"
#include "options.h"

int pipeline_cli_is_folder(const char *path)
{
    struct stat st;
    const size_t n = strlen(path) + sizeof "/modules.json";
    char *modules = malloc(n);
    int found = 0;
    if (modules) {
        snprintf(modules, n, "%s/modules.json", path);
        found = lstat(modules, &st) == 0; /* a link to nothing too: loading names it */
    }
    free(modules);
    return found;
}

/* The subcommand that runs each kind of folder. */
static const struct {
    tf_pipeline_kind kind;
    const char *command;
} kind_commands[] = {
    {TF_PIPELINE_EMBEDDING, "tfenc embed"},
    {TF_PIPELINE_CROSS_ENCODER, "tfenc rerank"},
    {TF_PIPELINE_CLASSIFIER, "tfenc classify"},
    {TF_PIPELINE_TOKEN_CLASSIFIER, "tfenc classify --tokens"},
    {TF_PIPELINE_FILL_MASK, "tfenc fill-mask"},
    {TF_PIPELINE_MULTI_VECTOR, "tfenc embed --multi-vector (and tfenc rerank)"},
    {TF_PIPELINE_IMAGE_EMBEDDING, "tfenc embed --image"},
    {TF_PIPELINE_IMAGE_CLASSIFIER, "tfenc classify --image"},
};

const char *pipeline_cli_runs(int32_t kind)
{
    for (size_t i = 0; i < sizeof kind_commands / sizeof kind_commands[0]; i++)
        if ((int32_t)kind_commands[i].kind == kind)
            return kind_commands[i].command;
    return NULL;
}

/* Whether p's kind is one of kinds; if not, says what the folder dir is
 * and which subcommand runs it. */
static int kind_taken(const char *command, const char *dir, const tf_pipeline *p, unsigned kinds)
{
    const int32_t kind = tf_pipeline_kind_of(p);
    if (kinds & PIPELINE_CLI_KIND(kind))
        return 1;
    /* a whole CLIP or SigLIP folder (images, and texts through its tokenizer) embeds texts */
    if (kind == TF_PIPELINE_IMAGE_EMBEDDING && tf_pipeline_tokenizer(p) &&
        (kinds & PIPELINE_CLI_KIND(TF_PIPELINE_EMBEDDING)))
        return 1;
    char what[64];
    kind_text(what, sizeof what, kind);
    const char *runs = pipeline_cli_runs(kind);
    if (runs)
        cli_error(command, "%s: %s folder; %s runs it", dir, what, runs);
    else
        cli_error(command, "%s: %s folder, which no tfenc subcommand runs", dir, what);
    return 0;
}

/* dir as a pipeline (max_seq_length 0: the folder's); NULL with the
 * library's status in *s. */
static tf_pipeline *load(const char *dir, int32_t max_seq_length, unsigned kinds, tf_status *s)
{
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.max_seq_length = max_seq_length;
    /* a bare *ForMaskedLM folder: its head for the subcommands that run one */
    if (kinds & PIPELINE_CLI_KIND(TF_PIPELINE_FILL_MASK))
        o.kind = TF_PIPELINE_FILL_MASK;
    tf_pipeline *p = NULL;
    *s = tf_pipeline_load(dir, &o, &p);
    return p;
}

tf_pipeline *pipeline_cli_load(const char *command, const char *dir, int32_t max_seq_length,
                               unsigned kinds)
{
    tf_status s;
    tf_pipeline *p = load(dir, max_seq_length, kinds, &s);
    if (s)
        pipeline_cli_fail(command, s);
    if (p && !kind_taken(command, dir, p, kinds)) {
        tf_pipeline_destroy(p);
        return NULL;
    }
    return p;
}

int pipeline_cli_other_kind(const char *command, const char *dir, unsigned kinds)
{
    tf_status s;
    tf_pipeline *p = load(dir, 0, kinds, &s);
    const int other = p && !kind_taken(command, dir, p, kinds);
    tf_pipeline_destroy(p);
    return other;
}

int pipeline_cli_fail(const char *command, tf_status s)
{
    cli_error(command, "%s", tf_last_error());
    return CLI_FAILED;
}

int pipeline_cli_run(const char *command, const tf_pipeline *p, pipeline_cli_call *call,
                     const tf_pipeline_args *all, size_t width, int progress, const char *what)
{
    size_t first = 0, n = 0, truncated = 0; /* the call's inputs: first..first+n */
    tf_status s = TF_OK;
    cli_job job;
    cli_job_start(&job, command, what, all->n, progress);
    /* one call when no progress is shown */
    const size_t batch = !job.mode ? all->n
        : all->batch_size          ? (size_t)all->batch_size
                                   : PIPELINE_CLI_BATCH;
    while (s == TF_OK && first + n < all->n) {
        first += n;
        n = all->n - first < batch ? all->n - first : batch;
        size_t cut = 0;
        tf_pipeline_args a = *all;
        a.n = n, a.texts = all->texts + first, a.pairs = all->pairs ? all->pairs + first : NULL;
        a.out = all->out + first * width, a.out_len = n * width, a.truncated = &cut;
        a.first_index = first; /* messages name the job's index */
        s = call(p, &a);
        truncated += cut;
        if (s == TF_OK)
            cli_job_step(&job, first + n);
    }
    cli_job_end(&job);
    if (all->truncated)
        *all->truncated = truncated;
    return s ? pipeline_cli_fail(command, s) : 0;
}

void pipeline_cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

void pipeline_cli_truncated(const char *command, size_t truncated, const tf_pipeline *p)
{
    if (truncated)
        cli_error(command, "%zu input%s longer than %d tokens (max_seq_length): truncated",
                  truncated, truncated == 1 ? "" : "s", (int)tf_pipeline_max_seq_length(p));
}

/* The most --batch-size and --threads take. */
enum { PIPELINE_CLI_MAX_BATCH = 65536, PIPELINE_CLI_MAX_THREADS = 1024 };

void pipeline_cli_job_args(const pipeline_cli_line *l, tf_pipeline_args *a)
{
    a->batch_size = l->batch_size, a->n_threads = l->threads;
}

/* The lines of --file after the ARGs: 0, or -1 after a message. */
static int add_file_lines(pipeline_cli_line *l, const char *command)
{
    if (!l->file)
        return 0;
    if (text_lines_read(command, "--file", l->file, &l->lines))
        return -1;
    const char **args = realloc(l->args, (l->n_args + l->lines.n + 1) * sizeof *args);
    if (!args) {
        cli_error(command, "--file %s: cannot hold %zu lines", l->file, l->lines.n);
        return -1;
    }
    memcpy(args + l->n_args, l->lines.lines, l->lines.n * sizeof *args);
    l->args = args, l->n_args += l->lines.n;
    return 0;
}

static int take_line(cli_args *a, const char *arg, void *user)
{
    pipeline_cli_line *l = user;
    if (!strcmp(arg, "--json")) {
        l->json = 1;
        return 1;
    }
    if (l->token_flags && !strcmp(arg, "--tokens")) {
        l->tokens = 1;
        return 1;
    }
    if (l->token_flags && !strcmp(arg, "--aggregation"))
        return cli_string(a, arg, "none, simple or first", &l->aggregation);
    if (!strcmp(arg, "--file"))
        return cli_string(a, arg, "a text file or - (standard input)", &l->file);
    if (!strcmp(arg, "--batch-size"))
        return cli_int(a, arg, 1, PIPELINE_CLI_MAX_BATCH, &l->batch_size);
    if (!strcmp(arg, "--threads"))
        return cli_int(a, arg, 1, PIPELINE_CLI_MAX_THREADS, &l->threads);
    if (arg[0] == '-' && arg[1])
        return cli_model_option(a, arg, &l->source);
    l->args[l->n_args++] = arg;
    return 1;
}

int pipeline_cli_parse(pipeline_cli_line *l, const char *command, void (*usage)(FILE *out),
                       int argc, char **argv, size_t min_args, int token_flags, int *status)
{
    *l = (pipeline_cli_line){.source = CLI_MODEL_INIT, .token_flags = token_flags};
    cli_args a = cli_args_start(command, usage, argc, argv);
    if (!(l->args = malloc((size_t)argc * sizeof *l->args))) {
        cli_error(command, "out of memory");
        *status = CLI_FAILED;
        return 0;
    }
    int rc = cli_parse(&a, take_line, l);
    /* --file gives the last ARGs (rerank's DOCs, classify's TEXTs) */
    const size_t min_before_file = l->file ? min_args - 1 : min_args;
    if (rc == 0 && (!l->source.model || l->n_args < min_before_file))
        rc = cli_usage_error(&a);
    if (rc == 0 && add_file_lines(l, command) != 0) {
        pipeline_cli_line_free(l);
        *status = CLI_FAILED;
        return 0;
    }
    if (rc == 0 && l->n_args < min_args) {
        cli_error(command, "--file %s: no lines", l->file);
        rc = -1;
    }
    if (rc == 0 && l->aggregation && !l->tokens) {
        cli_error(command, "--aggregation: only with --tokens");
        rc = -1;
    }
    *status = cli_parse_status(rc);
    if (rc == 0 && (l->model = cli_model_path(command, &l->source, status)))
        return 1;
    pipeline_cli_line_free(l);
    return 0;
}

void pipeline_cli_line_free(pipeline_cli_line *l)
{
    free(l->args);
    l->args = NULL;
    text_lines_free(&l->lines);
    cli_model_free(&l->source);
}
