/* model_arg.h — --model and the flags that say where a model comes from,
 * one reading for every subcommand that loads one (embed, rerank, classify,
 * serve):
 *   --model PATH_OR_ID  a file or folder on disk, taken as it is when
 *                       something is there; otherwise a Hugging Face Hub id
 *                       ("org/name"), resolved to its folder in the Hub's
 *                       cache by tf_hub_resolve (which downloads what the
 *                       cache lacks; HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN and
 *                       HF_HUB_OFFLINE are read there)
 *   --revision REV      the id's branch, tag or commit (default: main)
 *   --offline           the cache only (tf_hub_options.local_files_only)
 *   --progress          progress on stderr, of the download and of the job
 *   --no-progress       (job_output.h); by default only on a terminal */
#ifndef TFENC_MODEL_ARG_H
#define TFENC_MODEL_ARG_H

#include <stdio.h>

#include "options.h"

typedef struct cli_model {
    const char *model;    /* --model, as given (NULL: not given) */
    const char *revision; /* --revision, or NULL: main */
    int offline;          /* --offline */
    int progress;         /* 1: --progress, 0: --no-progress, -1: when stderr is a terminal */
    char *folder;         /* the Hub id's folder once resolved (malloc'ed), else NULL */
} cli_model;

#define CLI_MODEL_INIT ((cli_model){.progress = -1})

/* If flag is one of --model, --revision, --offline, --progress and
 * --no-progress: takes it (and its value) into *m and returns 1, or -1
 * after a message; 0 for another flag. */
int cli_model_option(cli_args *a, const char *flag, cli_model *m);

/* Those flags' usage lines, each starting with indent. */
void cli_model_usage(FILE *out, const char *indent);

/* The path to load: --model itself when something is there (or it cannot
 * be looked at: the loader then says why); else the folder of the Hub id
 * it is. NULL after a message on stderr, *status the exit status:
 * CLI_USAGE when --model names nothing (neither a path nor a Hub id, a
 * --revision that is no name, an id or revision the Hub does not have),
 * CLI_FAILED when the Hub or the cache failed:
 *   tfenc embed: --model ./x: no such folder, and not a Hub id (expected ...)
 *   tfenc embed: --model org/x: no such folder; as a Hub id: TF_ERR_NOT_FOUND: ... */
const char *cli_model_path(const char *command, cli_model *m, int *status);

/* m->model when it is a Hub id that cli_model_path resolved, else NULL. */
const char *cli_model_hub_id(const cli_model *m);

void cli_model_free(cli_model *m);

#endif
