/* model_arg.c — --model as a path or a Hugging Face Hub id (model_arg.h),
 * and the download's progress bar on stderr. */
#define _POSIX_C_SOURCE 200809L
#include "model_arg.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfenc.h"

/* A folder's path, as tf_hub_resolve writes it: Linux's PATH_MAX. */
enum { HUB_PATH_BYTES = 4096 };

/* The bytes of a megabyte, as the bar counts them. */
#define MEGABYTE 1e6

int cli_model_option(cli_args *a, const char *flag, cli_model *m)
{
    if (!strcmp(flag, "--model"))
        return cli_string(a, flag, "a model folder, file or Hub id", &m->model);
    if (!strcmp(flag, "--revision"))
        return cli_string(a, flag, "a branch, tag or commit", &m->revision);
    if (!strcmp(flag, "--offline")) {
        m->offline = 1;
        return 1;
    }
    if (!strcmp(flag, "--progress") || !strcmp(flag, "--no-progress")) {
        m->progress = flag[2] == 'p';
        return 1;
    }
    return 0;
}

void cli_model_usage(FILE *out, const char *indent)
{
    fprintf(out,
            "%s--model PATH_OR_ID: a folder (or file) on disk; if there is none of that\n"
            "%sname, a Hugging Face Hub id (org/name), found in the Hub's cache or\n"
            "%sdownloaded into it (HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE)\n"
            "%s[--revision REV] the id's branch, tag or commit (default: main);\n"
            "%s[--offline] the cache only; [--progress | --no-progress] progress on\n"
            "%sstderr, of a download and of the job (default: on a terminal, a job's\n"
            "%safter its first second)\n",
            indent, indent, indent, indent, indent, indent, indent);
}

/* ---- The progress bar ----------------------------------------------------------- */

typedef struct progress_bar {
    const char *command;
    int drawn;          /* a line is on stderr: end it with a newline */
    int32_t file_index; /* what the line shows */
    int percent, waiting;
    size_t width; /* its length, to blank a longer one's rest */
} progress_bar;

/* tf_hub_progress_fn: redraws the line when the file, the percentage or
 * the waiting changes. */
static int32_t draw_progress(const tf_hub_progress *p, void *user)
{
    progress_bar *bar = user;
    if (p->struct_size < sizeof *p)
        return 0;
    const int percent = p->total_bytes > 0 ? (int)(100 * p->bytes / p->total_bytes) : 100;
    if (bar->drawn && bar->file_index == p->file_index && bar->percent == percent &&
        bar->waiting == p->waiting)
        return 0;
    char text[512];
    int n = snprintf(text, sizeof text,
                     "tfenc %s: %s: %s (file %d of %d), %.1f of %.1f MB "
                     "(%d%%)%s",
                     bar->command, p->repo_id, p->file, (int)p->file_index + 1, (int)p->file_count,
                     (double)p->bytes / MEGABYTE, (double)p->total_bytes / MEGABYTE, percent,
                     p->waiting ? ", waiting for another download of it" : "");
    const size_t width = n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
    cli_progress("%s%*s", text, bar->width > width ? (int)(bar->width - width) : 0, "");
    *bar = (progress_bar){.command = bar->command,
                          .drawn = 1,
                          .file_index = p->file_index,
                          .percent = percent,
                          .waiting = p->waiting,
                          .width = width};
    return 0;
}

/* ---- Resolving ------------------------------------------------------------------ */

/* The path to load (tf_model_resolve: the library's one reading of a
 * model source for every surface), its messages after "--model ". */
const char *cli_model_path(const char *command, cli_model *m, int *status)
{
    char *folder = malloc(HUB_PATH_BYTES);
    if (!folder) {
        cli_error(command, "--model %s: out of memory", m->model);
        *status = CLI_FAILED;
        return NULL;
    }
    progress_bar bar = {.command = command};
    tf_hub_options o;
    tf_hub_options_init(&o);
    o.revision = m->revision;
    o.local_files_only = m->offline;
    if (m->progress == 1 || (m->progress == -1 && isatty(STDERR_FILENO))) {
        o.progress = draw_progress;
        o.progress_user_data = &bar;
    }
    const tf_status s = tf_model_resolve(m->model, &o, folder, HUB_PATH_BYTES, NULL);
    if (bar.drawn)
        cli_progress_end();
    if (s) {
        free(folder);
        const char *message = tf_last_error();
        if (!strncmp(message, "options.revision", 16)) /* a path has no revisions */
            cli_error(command,
                      "--revision %s: --model %s is on disk, which has no revisions "
                      "(a Hub id's)",
                      m->revision, m->model);
        else
            cli_error(command, "--model %s", message);
        /* usage: a name that is nothing, an id or revision the Hub does not have;
           failed: the Hub or the cache failed */
        const int hub = strstr(message, "; as a Hub id: ") != NULL;
        *status = !hub || s == TF_ERR_NOT_FOUND || s == TF_ERR_INVALID_ARGUMENT ? CLI_USAGE
                                                                                : CLI_FAILED;
        return NULL;
    }
    free(m->folder);
    m->folder = NULL;
    if (strcmp(folder, m->model) == 0) { /* on disk: --model itself */
        free(folder);
        return m->model;
    }
    m->folder = folder;
    return folder;
}

const char *cli_model_hub_id(const cli_model *m)
{
    return m->folder ? m->model : NULL;
}

void cli_model_free(cli_model *m)
{
    free(m->folder);
    m->folder = NULL;
}
