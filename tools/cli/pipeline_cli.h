/* pipeline_cli.h — what tfenc embed (on a model folder), rerank and
 * classify share: loading a tf_pipeline of the kinds a subcommand runs
 * (another kind named with the subcommand that runs it) with a message,
 * JSON strings, and rerank's and classify's command line. */
#ifndef TFENC_PIPELINE_CLI_H
#define TFENC_PIPELINE_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "model_arg.h"
#include "text_lines.h"
#include "tfenc.h"

/* 1 if path is a folder with modules.json: tfenc embed reads it as a
 * sentence-transformers pipeline. */
int pipeline_cli_is_folder(const char *path);

/* A set of folder kinds: PIPELINE_CLI_KIND(TF_PIPELINE_EMBEDDING) | ... */
#define PIPELINE_CLI_KIND(kind) (1u << (unsigned)(kind))
#define PIPELINE_CLI_ANY_KIND (~0u)

/* Loads dir (max_seq_length 0: the folder's) as a pipeline of one of kinds;
 * NULL after a message: the library's, or for a folder of another kind
 * what it is and which subcommand runs it:
 *   tfenc rerank: DIR: an embedding folder; tfenc embed runs it */
tf_pipeline *pipeline_cli_load(const char *command, const char *dir, int32_t max_seq_length,
                               unsigned kinds);

/* 1 after that message when dir loads as a pipeline of a kind not in
 * kinds; else 0 (one of them, or not a folder the pipeline reads: the
 * caller's own loading says why). For tfenc embed's vocab.txt path, which
 * loads the folder's encoder alone (tf_pipeline_load is the library's
 * word on a folder's kind). */
int pipeline_cli_other_kind(const char *command, const char *dir, unsigned kinds);

/* The subcommand that runs a folder of kind ("tfenc classify"), or NULL. */
const char *pipeline_cli_runs(int32_t kind);

/* Inputs per forward call by default (tf_pipeline_args.batch_size 0). */
enum { PIPELINE_CLI_BATCH = 32 };

/* tf_pipeline_embed, tf_pipeline_score or tf_pipeline_classify. */
typedef tf_status pipeline_cli_call(const tf_pipeline *p, const tf_pipeline_args *a);

/* Runs call on all's n inputs: in one call, or, when progress may be shown,
 * one batch (all->batch_size, 0: PIPELINE_CLI_BATCH) a call: the batches one
 * call of all n forms, so the same numbers. out
 * holds `width` floats an input; *all->truncated is the sum. The job's
 * progress on stderr as `progress` says (cli_model.progress), counting
 * `what` ("texts"). 0, or CLI_FAILED after a message (naming the batch's
 * inputs when there are several batches). */
int pipeline_cli_run(const char *command, const tf_pipeline *p, pipeline_cli_call *call,
                     const tf_pipeline_args *all, size_t width, int progress, const char *what);

/* "tfenc COMMAND: STATUS: message" for a failed call; returns CLI_FAILED. */
int pipeline_cli_fail(const char *command, tf_status s);

/* s as a JSON string (quotes, escapes) on out. */
void pipeline_cli_json_string(FILE *out, const char *s);

/* The note on stderr when inputs were cut to max_seq_length. */
void pipeline_cli_truncated(const char *command, size_t truncated, const tf_pipeline *p);

/* `tfenc COMMAND --model DIR_OR_ID [--json] [--file F|-] [--batch-size N]
 * [--threads N] ARG [ARG ...]`: rerank's and classify's command line
 * (classify's also [--tokens [--aggregation NAME]]; both model_arg.h's
 * flags). The lines of --file come after the ARGs. */
typedef struct pipeline_cli_line {
    cli_model source;  /* --model and where it comes from */
    const char *model; /* the folder it names (a Hub id's, resolved) */
    int json;
    int token_flags;         /* classify: --tokens and --aggregation are taken */
    int tokens;              /* --tokens */
    const char *aggregation; /* --aggregation NAME, or NULL */
    const char *file;        /* --file, or NULL */
    int32_t batch_size;      /* --batch-size: inputs per forward call (0: the library's) */
    int32_t threads;         /* --threads (0: one per core) */
    const char **args;       /* [n_args] the ARGs, then the lines of --file (malloc'ed) */
    size_t n_args;
    text_lines lines;
} pipeline_cli_line;

/* The options above, for a usage text. */
#define PIPELINE_CLI_JOB_OPTIONS "[--batch-size N] [--threads N]"

/* --batch-size and --threads into *a, for tf_pipeline_args. */
void pipeline_cli_job_args(const pipeline_cli_line *l, tf_pipeline_args *a);

/* Parses argv into *l (at least min_args ARGs, of which --file may give
 * the last kind: else the usage, or "--file F: no lines"; token_flags:
 * --tokens and --aggregation too) and resolves --model (cli_model_path).
 * Returns 1 when the command should run (then pipeline_cli_line_free(l)
 * after it), else 0 with *status the exit status (0 after --help). */
int pipeline_cli_parse(pipeline_cli_line *l, const char *command, void (*usage)(FILE *out),
                       int argc, char **argv, size_t min_args, int token_flags, int *status);
void pipeline_cli_line_free(pipeline_cli_line *l);

#endif
