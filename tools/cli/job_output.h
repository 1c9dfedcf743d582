/* job_output.h — what a long job of tfenc embed, rerank or classify shows:
 * numbers written to round-trip (JSON, JSON Lines and text output) and a
 * progress line on stderr. */
#ifndef TFENC_JOB_OUTPUT_H
#define TFENC_JOB_OUTPUT_H

#include <stddef.h>
#include <time.h>

/* A float32's text: the shortest that reads back as the same float
 * (tf__float_text), so that output parsed back gives the same bits. */
enum { CLI_FLOAT_CHARS = 32 };
const char *cli_float_text(char buf[CLI_FLOAT_CHARS], float v);

/* A job's progress line on stderr:
 *   tfenc embed: 3200 of 10000 texts (32%)
 * drawn on every step with --progress (mode 1), never with --no-progress
 * (0), and by default (-1) when stderr is a terminal, once the job has run
 * a second. */
typedef struct cli_job {
    const char *command, *what; /* "embed", "texts" */
    size_t total;
    int mode;  /* model_arg.h's cli_model.progress */
    int drawn; /* a line is on stderr: end it with a newline */
    struct timespec started;
} cli_job;

void cli_job_start(cli_job *j, const char *command, const char *what, size_t total, int mode);
/* done of total are done. */
void cli_job_step(cli_job *j, size_t done);
void cli_job_end(cli_job *j);

#endif
