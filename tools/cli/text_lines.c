/* text_lines.c — reading a text file's lines. */
#define _POSIX_C_SOURCE 200809L
#include "text_lines.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "options.h"

/* The whole of f in *buf (*size bytes, plus a '\0'): 0, or an errno. */
static int read_all(FILE *f, char **buf, size_t *size)
{
    size_t cap = 1 << 16, n = 0;
    char *data = malloc(cap + 1);
    for (size_t got = 1; data && got > 0;) {
        if (n == cap) {
            char *bigger = cap < SIZE_MAX / 4 ? realloc(data, 2 * cap + 1) : NULL;
            if (!bigger)
                break;
            data = bigger, cap *= 2;
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    }
    const int err = !data || n == cap ? ENOMEM : ferror(f) ? (errno ? errno : EIO) : 0;
    if (err) {
        free(data);
        return err;
    }
    data[n] = '\0';
    *buf = data, *size = n;
    return 0;
}

/* Splits buf (size bytes) at each '\n' into t->lines; -1 at a NUL byte
 * (its line and column in *line, *column, 1-based). */
static int split_lines(text_lines *t, size_t size, size_t *line, size_t *column)
{
    size_t n = 0;
    for (size_t i = 0; i < size; i++)
        n += t->buffer[i] == '\n';
    n += size > 0 && t->buffer[size - 1] != '\n';
    t->lines = malloc((n ? n : 1) * sizeof *t->lines);
    if (!t->lines)
        return -2;
    char *p = t->buffer, *end = t->buffer + size;
    for (t->n = 0; t->n < n; t->n++) {
        char *newline = memchr(p, '\n', (size_t)(end - p));
        char *stop = newline ? newline : end;
        const char *nul = memchr(p, '\0', (size_t)(stop - p));
        if (nul) {
            *line = t->n + 1, *column = (size_t)(nul - p) + 1;
            return -1;
        }
        *stop = '\0';
        t->lines[t->n] = p;
        p = stop + 1;
    }
    return 0;
}

int text_lines_read(const char *command, const char *flag, const char *path, text_lines *out)
{
    *out = (text_lines){0};
    struct stat st;
    const int from_stdin = !strcmp(path, TEXT_LINES_STDIN);
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (!from_stdin)
            fclose(f);
        cli_error(command, "%s %s: is a directory, not a text file", flag, path);
        return -1;
    }
    size_t size = 0, line = 0, column = 0;
    const int err = f ? read_all(f, &out->buffer, &size) : errno;
    if (f && !from_stdin)
        fclose(f);
    if (err) {
        cli_error(command, "%s %s: cannot read: %s", flag, path, strerror(err));
        return -1;
    }
    const int split = split_lines(out, size, &line, &column);
    if (split == -1)
        cli_error(command, "%s %s: line %zu holds a NUL byte (byte %zu of the line)", flag, path,
                  line, column);
    else if (split)
        cli_error(command, "%s %s: cannot read: %s", flag, path, strerror(ENOMEM));
    if (split)
        text_lines_free(out);
    return split ? -1 : 0;
}

void text_lines_free(text_lines *t)
{
    free(t->buffer);
    free(t->lines);
    *t = (text_lines){0};
}
