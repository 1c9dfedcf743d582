/* job_output.c — round-trip numbers and a job's progress line. */
#define _POSIX_C_SOURCE 200809L
#include "job_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli_message.h"
#include "float_text.h"

_Static_assert((int)CLI_FLOAT_CHARS >= (int)TF_FLOAT_TEXT_MAX,
               "a float's text fits CLI_FLOAT_CHARS");

const char *cli_float_text(char buf[CLI_FLOAT_CHARS], float v)
{
    tf__float_text(buf, v);
    return buf;
}

static double seconds_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + 1e-9 * (double)(now.tv_nsec - t->tv_nsec);
}

void cli_job_start(cli_job *j, const char *command, const char *what, size_t total, int mode)
{
    *j = (cli_job){.command = command, .what = what, .total = total, .mode = mode};
    if (mode == -1 && !isatty(STDERR_FILENO))
        j->mode = 0;
    clock_gettime(CLOCK_MONOTONIC, &j->started);
}

void cli_job_step(cli_job *j, size_t done)
{
    if (j->mode == 0 || (j->mode == -1 && seconds_since(&j->started) < 1.0))
        return;
    cli_progress("tfenc %s: %zu of %zu %s (%d%%)", j->command, done, j->total, j->what,
                 j->total ? (int)(100 * done / j->total) : 100);
    j->drawn = 1;
}

void cli_job_end(cli_job *j)
{
    if (j->drawn)
        cli_progress_end();
    j->drawn = 0;
}
