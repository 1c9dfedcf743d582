/* options.c — reading a subcommand's arguments and checking each value. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

cli_args cli_args_start(const char *command, void (*usage)(FILE *out), int argc, char **argv)
{
    return (cli_args){.command = command, .usage = usage, .argc = argc, .argv = argv, .next = 1};
}

const char *cli_next(cli_args *a)
{
    return a->next < a->argc ? a->argv[a->next++] : NULL;
}

int cli_is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int cli_refuse(const char *command, const char *flag, const char *expected, const char *text)
{
    if (text)
        cli_error(command, "%s: expected %s, got '%s'", flag, expected, text);
    else
        cli_error(command, "%s: expected %s, got nothing", flag, expected);
    return -1;
}

/* The most edits a suggestion is away from what was typed. */
enum { NEAREST_EDITS = 2, NEAREST_CHARS = 64 };

/* Levenshtein's distance of a and b, when both are shorter than
 * NEAREST_CHARS; else NEAREST_EDITS + 1. */
static size_t edit_distance(const char *a, const char *b)
{
    const size_t m = strlen(a), n = strlen(b);
    if (m >= NEAREST_CHARS || n >= NEAREST_CHARS)
        return NEAREST_EDITS + 1;
    size_t row[NEAREST_CHARS]; /* [n + 1]: distances of a's first i chars to b's first j */
    for (size_t j = 0; j <= n; j++)
        row[j] = j;
    for (size_t i = 1; i <= m; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            const size_t up = row[j];
            const size_t replace = diagonal + (a[i - 1] != b[j - 1]);
            const size_t insert = row[j - 1] + 1, remove = up + 1;
            row[j] = replace < insert ? (replace < remove ? replace : remove)
                                      : (insert < remove ? insert : remove);
            diagonal = up;
        }
    }
    return row[n];
}

const char *cli_nearest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_distance = NEAREST_EDITS + 1;
    for (size_t i = 0; i < n; i++) {
        const size_t d = edit_distance(word, names[i]);
        if (d < best_distance)
            best = names[i], best_distance = d;
    }
    return best;
}

/* The "--name" options a usage text names, as "--a\0--b\0" in *names
 * (malloc'ed) and their starts in starts [n]; the count, 0 when none. */
enum { MAX_USAGE_OPTIONS = 64 };
static size_t usage_options(void (*usage)(FILE *out), char **text,
                            const char *starts[MAX_USAGE_OPTIONS])
{
    size_t size = 0, n = 0;
    *text = NULL;
    FILE *f = open_memstream(text, &size);
    if (!f)
        return 0;
    usage(f);
    fclose(f);
    for (char *p = *text; p && (p = strstr(p, "--")) && n < MAX_USAGE_OPTIONS;) {
        char *end = p + 2;
        while (isalnum((unsigned char)*end) || *end == '-')
            end++;
        const int named = end > p + 2 && isalpha((unsigned char)p[2]);
        const char stop = *end;
        *end = '\0';
        if (named)
            starts[n++] = p;
        p = stop ? end + 1 : end;
    }
    return n;
}

/* "unknown option 'ARG'", with the usage's nearest option if one is. */
static void unknown_option(const cli_args *a, const char *arg)
{
    char *text;
    const char *options[MAX_USAGE_OPTIONS];
    const size_t n = usage_options(a->usage, &text, options);
    const char *near = cli_nearest(arg, options, n);
    if (near)
        cli_error(a->command, "unknown option '%s'; did you mean '%s'?", arg, near);
    else
        cli_error(a->command, "unknown option '%s'", arg);
    free(text);
}

int cli_parse(cli_args *a, cli_take_fn *take, void *user)
{
    for (const char *arg; (arg = cli_next(a));) {
        if (cli_is_help(arg)) {
            a->usage(stdout);
            return 1;
        }
        const int taken = take(a, arg, user);
        if (taken == 0)
            unknown_option(a, arg);
        if (taken <= 0)
            return -1;
    }
    return 0;
}

int cli_parse_status(int parsed)
{
    return parsed > 0 ? 0 : CLI_USAGE;
}

int cli_usage_error(const cli_args *a)
{
    a->usage(stderr);
    return -1;
}

int cli_positional(const cli_args *a, const char *what, const char *arg, const char **out)
{
    if (*out) {
        cli_error(a->command, "one %s, got '%s' and '%s'", what, *out, arg);
        return -1;
    }
    *out = arg;
    return 1;
}

int cli_string(cli_args *a, const char *flag, const char *expected, const char **out)
{
    const char *text = cli_next(a);
    if (!text)
        return cli_refuse(a->command, flag, expected, NULL);
    *out = text;
    return 1;
}

int cli_string_table(cli_args *a, const char *flag, const cli_string_flag *table, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(flag, table[i].flag))
            return cli_string(a, flag, table[i].expected, table[i].value);
    return 0;
}

int cli_int_table(cli_args *a, const char *flag, const cli_int_flag *table, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(flag, table[i].flag))
            return cli_int(a, flag, table[i].min, table[i].max, table[i].value);
    return 0;
}

/* text as a decimal integer of digits only in min..max: 0, or -1. */
static int parse_decimal(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return -1; /* no sign, space or empty text */
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10);
    if (errno == ERANGE || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int cli_int(cli_args *a, const char *flag, int32_t min, int32_t max, int32_t *out)
{
    const char *text = cli_next(a);
    uint64_t v;
    if (parse_decimal(text, (uint64_t)min, (uint64_t)max, &v) != 0) {
        char expected[64];
        snprintf(expected, sizeof expected, "an integer %" PRId32 "..%" PRId32, min, max);
        return cli_refuse(a->command, flag, expected, text);
    }
    *out = (int32_t)v;
    return 1;
}

int cli_u64(cli_args *a, const char *flag, uint64_t *out)
{
    const char *text = cli_next(a);
    if (parse_decimal(text, 0, UINT64_MAX, out) != 0) {
        char expected[64];
        snprintf(expected, sizeof expected, "an integer 0..%" PRIu64, UINT64_MAX);
        return cli_refuse(a->command, flag, expected, text);
    }
    return 1;
}

int cli_number(cli_args *a, const char *flag, double min, double max, double *out)
{
    const char *text = cli_next(a);
    char *end = NULL;
    const double v = text && text[0] && !isspace((unsigned char)text[0]) ? strtod(text, &end) : NAN;
    if (!end || *end || !isfinite(v) || v < min || v > max) {
        char expected[64];
        snprintf(expected, sizeof expected, "a number %g..%g", min, max);
        return cli_refuse(a->command, flag, expected, text);
    }
    *out = v;
    return 1;
}

int cli_bool(cli_args *a, const char *flag, int32_t *out)
{
    const char *text = cli_next(a);
    if (!text || (strcmp(text, "true") != 0 && strcmp(text, "false") != 0))
        return cli_refuse(a->command, flag, "true or false", text);
    *out = strcmp(text, "true") == 0;
    return 1;
}

const char *cli_names(const char *(*name)(int32_t), const char *sep, const char *last, char *buf,
                      size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int32_t i = 0; name(i) && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                 i == 0            ? ""
                                     : name(i + 1) ? sep
                                                   : last,
                                 name(i));
    return buf;
}

int cli_enum(cli_args *a, const char *flag, const char *(*name)(int32_t),
             int32_t (*from_name)(const char *), int32_t *out)
{
    const char *text = cli_next(a);
    const int32_t v = text ? from_name(text) : -1;
    if (v < 0) {
        char names[256];
        return cli_refuse(a->command, flag, cli_names(name, ", ", " or ", names, sizeof names),
                          text);
    }
    *out = v;
    return 1;
}

int cli_load_option(cli_args *a, const char *flag, tf_load_options *o)
{
    int32_t first;
    double eps;
    int rc = 0;
    if (!strcmp(flag, "--n-heads"))
        rc = cli_int(a, flag, 1, TF_MAX_D_MODEL, &o->n_heads);
    else if (!strcmp(flag, "--activation"))
        rc = cli_enum(a, flag, tf_activation_name, tf_activation_from_name, &o->activation);
    else if (!strcmp(flag, "--norm-first") && (rc = cli_bool(a, flag, &first)) > 0)
        o->norm_placement = first ? TF_NORM_PRE : TF_NORM_POST;
    else if (!strcmp(flag, "--eps") && (rc = cli_number(a, flag, CLI_MIN_POSITIVE, 1, &eps)) > 0)
        o->layer_norm_eps = (float)eps;
    return rc;
}

void cli_load_options_usage(FILE *out, const char *indent)
{
    char names[256];
    fprintf(out, "%s[--n-heads N] [--activation %s]\n%s[--norm-first true|false] [--eps X]\n",
            indent, cli_names(tf_activation_name, "|", "|", names, sizeof names), indent);
}
