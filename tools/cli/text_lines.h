/* text_lines.h — a text file (or standard input) as its lines, read by its length: a NUL byte
 * is refused, never taken for the end of a line. */
#ifndef TFENC_TEXT_LINES_H
#define TFENC_TEXT_LINES_H

#include <stddef.h>

typedef struct text_lines {
    char *buffer; /* the file's bytes, each '\n' replaced by '\0' */
    char **lines; /* [n], into buffer; a last line without '\n' counts */
    size_t n;
} text_lines;

/* The path that names standard input. */
#define TEXT_LINES_STDIN "-"

/* Reads path (TEXT_LINES_STDIN: standard input). 0, or -1 after one line on stderr naming the command, the
 * flag that gave the path and the problem: a directory, a read error, a
 * NUL byte (with its line and its byte in the line). */
int text_lines_read(const char *command, const char *flag, const char *path, text_lines *out);

void text_lines_free(text_lines *t);

#endif
