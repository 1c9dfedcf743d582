/* options.h — the command line of every tfenc subcommand, read one way:
 * arguments in order, each flag's value checked as it is taken (integers
 * and numbers in a range, the library's enum names, true/false) and the
 * load options every model-reading subcommand shares. A bad value is one
 * line on stderr naming the flag, what it takes and what it got:
 *   tfenc create: --d-model: expected an integer 1..65536, got '64x'
 * and the subcommand exits with CLI_USAGE. */
#ifndef TFENC_OPTIONS_H
#define TFENC_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli_message.h" /* cli_error: every message */
#include "tfenc.h"

/* The smallest value of a flag that takes a positive number (--eps, --tol):
 * far from 0, and a normal float. */
#define CLI_MIN_POSITIVE 1e-30

/* Exit statuses: the command failed (a file, the model, the output); the
 * command line is wrong. */
enum { CLI_FAILED = 1, CLI_USAGE = 2 };

typedef struct cli_args {
    const char *command;      /* "create": every message starts "tfenc create: " */
    void (*usage)(FILE *out); /* the subcommand's --help text */
    int argc;
    char **argv; /* argv[0] is the subcommand */
    int next;    /* index of the next argument */
} cli_args;

cli_args cli_args_start(const char *command, void (*usage)(FILE *out), int argc, char **argv);

/* The next argument, or NULL after the last. */
const char *cli_next(cli_args *a);

/* 1 for --help and -h. */
int cli_is_help(const char *arg);

/* Takes one argument of a subcommand (and its value, with cli_int etc.):
 * 1 when taken, 0 for an option it does not know, -1 after a message. */
typedef int cli_take_fn(cli_args *a, const char *arg, void *user);

/* Reads every argument with take; --help or -h prints the usage on stdout
 * and stops. 0 when all were taken, 1 after --help, -1 after a message (an
 * unknown option is "tfenc COMMAND: unknown option 'ARG'", and "; did you
 * mean '--OPTION'?" when an option of the usage text is near it). */
int cli_parse(cli_args *a, cli_take_fn *take, void *user);

/* The exit status of a subcommand whose cli_parse (and own checks)
 * returned parsed: 0 after --help, CLI_USAGE after a message. */
int cli_parse_status(int parsed);

/* The name of names[0..n) nearest to word: at most 2 edits (insert, delete,
 * replace) away, the first of the nearest; NULL when none is. */
const char *cli_nearest(const char *word, const char *const *names, size_t n);

/* The usage on stderr, for a command line that lacks what it needs; -1. */
int cli_usage_error(const cli_args *a);

/* The one positional argument a subcommand takes, `what` naming it: sets
 * *out and returns 1, or -1 after "one WHAT, got 'A' and 'B'". */
int cli_positional(const cli_args *a, const char *what, const char *arg, const char **out);

/* "tfenc COMMAND: FLAG: expected EXPECTED, got 'TEXT'" ("got nothing" for
 * NULL); returns -1. */
int cli_refuse(const char *command, const char *flag, const char *expected, const char *text);

/* Each takes the argument after the flag, checks it and stores it in *out:
 * 1 (taken, as a cli_take_fn returns), or -1 after cli_refuse. Integers
 * are decimal digits only (no sign, space, exponent or trailing
 * character) within min..max (min >= 0); cli_u64 takes 0..2^64-1; numbers
 * are finite decimal floats within min..max. */
int cli_string(cli_args *a, const char *flag, const char *expected, const char **out);
int cli_int(cli_args *a, const char *flag, int32_t min, int32_t max, int32_t *out);
int cli_u64(cli_args *a, const char *flag, uint64_t *out);
int cli_number(cli_args *a, const char *flag, double min, double max, double *out);
/* true or false, stored as 1 or 0. */
int cli_bool(cli_args *a, const char *flag, int32_t *out);
/* One of the names the library gives an enum, e.g. tf_position_name and
 * tf_position_from_name. */
int cli_enum(cli_args *a, const char *flag, const char *(*name)(int32_t),
             int32_t (*from_name)(const char *), int32_t *out);

/* Tables of flags of one kind, for set_value functions: if flag is one of
 * table[0..n), cli_string or cli_int takes its value and they return 1 (or
 * -1 on a bad value); else 0. CLI_TABLE(t) passes table and n. */
typedef struct cli_string_flag {
    const char *flag, *expected;
    const char **value;
} cli_string_flag;
typedef struct cli_int_flag {
    const char *flag;
    int32_t min, max, *value;
} cli_int_flag;
int cli_string_table(cli_args *a, const char *flag, const cli_string_flag *table, size_t n);
int cli_int_table(cli_args *a, const char *flag, const cli_int_flag *table, size_t n);
#define CLI_TABLE(t) (t), sizeof(t) / sizeof(t)[0]

/* The names of an enum's values, "none|sinusoidal|learned" with sep and
 * last "|", "none, sinusoidal or learned" with ", " and " or ", in buf. */
const char *cli_names(const char *(*name)(int32_t), const char *sep, const char *last, char *buf,
                      size_t size);

/* If flag is one of the load options --n-heads N, --activation A,
 * --norm-first true|false, --eps X: takes its value into *o and returns 1,
 * or -1 on a bad value; 0 for another flag. */
int cli_load_option(cli_args *a, const char *flag, tf_load_options *o);

/* The load options as two usage lines, each starting with indent. */
void cli_load_options_usage(FILE *out, const char *indent);

#endif
