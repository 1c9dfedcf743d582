/* pipeline_cli.c — loading a model folder for the CLI, and its output. */
#define _POSIX_C_SOURCE 200809L
#include "pipeline_cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "options.h"

int pipeline_cli_is_folder(const char *path)
{
    struct stat st;
    const size_t n = strlen(path) + sizeof "/modules.json";
    char *modules = malloc(n);
    int found = 0;
    if (modules) {
        snprintf(modules, n, "%s/modules.json", path);
        found = stat(modules, &st) == 0;
    }
    free(modules);
    return found;
}

tf_pipeline *pipeline_cli_load(const char *command, const char *dir, int32_t max_seq_length)
{
    tf_pipeline_options o;
    tf_pipeline_options_init(&o);
    o.max_seq_length = max_seq_length;
    tf_pipeline *p = NULL;
    const tf_status s = tf_pipeline_load(dir, &o, &p);
    if (s)
        pipeline_cli_fail(command, s);
    return p;
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
    if (!strcmp(arg, "--model"))
        return cli_string(a, arg, "a model folder", &l->model);
    if (l->token_flags && !strcmp(arg, "--tokens")) {
        l->tokens = 1;
        return 1;
    }
    if (l->token_flags && !strcmp(arg, "--aggregation"))
        return cli_string(a, arg, "none, simple or first", &l->aggregation);
    if (arg[0] == '-' && arg[1])
        return 0;
    l->args[l->n_args++] = arg;
    return 1;
}

int pipeline_cli_parse(pipeline_cli_line *l, const char *command, void (*usage)(FILE *out),
                       int argc, char **argv, size_t min_args, int token_flags, int *status)
{
    *l = (pipeline_cli_line){.token_flags = token_flags};
    cli_args a = cli_args_start(command, usage, argc, argv);
    if (!(l->args = malloc((size_t)argc * sizeof *l->args))) {
        cli_error(command, "out of memory");
        *status = CLI_FAILED;
        return 0;
    }
    int rc = cli_parse(&a, take_line, l);
    if (rc == 0 && (!l->model || l->n_args < min_args))
        rc = cli_usage_error(&a);
    if (rc == 0)
        return 1;
    free(l->args);
    *status = cli_parse_status(rc);
    return 0;
}
