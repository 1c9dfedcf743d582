/* pipeline_cli.c — loading a model folder for the CLI, and its output. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
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
static tf_pipeline *load(const char *dir, int32_t max_seq_length, tf_status *s)
{
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.max_seq_length = max_seq_length;
    tf_pipeline *p = NULL;
    *s = tf_pipeline_load(dir, &o, &p);
    return p;
}

tf_pipeline *pipeline_cli_load(const char *command, const char *dir, int32_t max_seq_length,
                               unsigned kinds)
{
    tf_status s;
    tf_pipeline *p = load(dir, max_seq_length, &s);
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
    tf_pipeline *p = load(dir, 0, &s);
    const int other = p && !kind_taken(command, dir, p, kinds);
    tf_pipeline_destroy(p);
    return other;
}

int pipeline_cli_fail(const char *command, tf_status s)
{
    cli_error(command, "%s: %s", tf_status_name(s), tf_last_error());
    return CLI_FAILED;
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
    if (rc == 0 && (!l->source.model || l->n_args < min_args))
        rc = cli_usage_error(&a);
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
    cli_model_free(&l->source);
}
