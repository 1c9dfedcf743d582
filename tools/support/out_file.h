/* out_file.h — where a tool's output goes: standard output, or a file
 * (--out, a dump's files) replaced whole as base/file_replace.h replaces
 * one — written to a temporary file beside it and renamed over it when
 * closed, so that a failed run leaves the target as it was, never half
 * written, and never writes through a link. */
#ifndef TFENC_OUT_FILE_H
#define TFENC_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "file_replace.h"

typedef struct out_file {
    FILE *f;                /* write here */
    const char *path;       /* the target, or NULL for standard output */
    tf__file_writer writer; /* path's temporary file */
    char err[512];          /* a failure's message: "<path>: cannot create: ..." */
} out_file;

/* Opens path for writing (NULL: standard output): 0, or -1 with the
 * message in o->err and nothing created. */
int out_file_open(out_file *o, const char *path);

/* Flushes what was written and, for a path, renames it over the target: 0,
 * or -1 with the message in o->err and the target as it was. o is
 * finished either way. */
int out_file_close(out_file *o);

/* Drops what was written to a path (the target as it was); standard
 * output is flushed. */
void out_file_discard(out_file *o);

#endif
