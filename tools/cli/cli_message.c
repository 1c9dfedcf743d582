/* cli_message.c — the tool's lines on stderr, each one line of valid UTF-8
 * (cli_message.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli_message.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* A line formatted on the stack when it fits (a longer one is allocated),
 * and the escaped bytes written at once. */
enum { LINE_BYTES = 1024, CHUNK_BYTES = 512 };
/* The end of a line that could not be formatted whole (out of memory). */
static const char CUT_MARK[] = " [...]";

/* Escaped bytes on their way to stderr (its lock held). */
typedef struct line_writer {
    char chunk[CHUNK_BYTES];
    size_t used;
} line_writer;

static void flush(line_writer *w)
{
    fwrite(w->chunk, 1, w->used, stderr);
    w->used = 0;
}

/* Whether the valid character c [n bytes] is a control character: C0,
 * DEL or C1 (U+0080..U+009F: 0xC2 0x80..0x9F). */
static int is_control(const unsigned char *c, size_t n)
{
    return (n == 1 && (c[0] < 0x20 || c[0] == 0x7F)) || (n == 2 && c[0] == 0xC2 && c[1] < 0xA0);
}

/* text [len] into w: a valid character that is not a control character as
 * it is, any other byte as the text \xNN. */
static void put_escaped(line_writer *w, const char *text, size_t len)
{
    for (size_t i = 0, n; i < len; i += n) {
        const unsigned char *c = (const unsigned char *)text + i;
        n = tf__utf8_valid_char(c, len - i);
        const int escape = n == 0 || is_control(c, n);
        n = n ? n : 1;
        if (w->used + 4 * n > sizeof w->chunk)
            flush(w);
        if (!escape) {
            memcpy(w->chunk + w->used, c, n);
            w->used += n;
            continue;
        }
        for (size_t k = 0; k < n; k++, w->used += 4)
            snprintf(w->chunk + w->used, 5, "\\x%02X", c[k]);
    }
}

/* start (unescaped: "" or "\r"), prefix and format's text escaped, then
 * end (unescaped: "\n" or ""), in one write. */
__attribute__((format(printf, 4, 0))) static void write_text(const char *start, const char *prefix,
                                                             const char *end, const char *format,
                                                             va_list ap)
{
    char small[LINE_BYTES];
    va_list again;
    va_copy(again, ap);
    const int n = vsnprintf(small, sizeof small, format, ap);
    char *text = n >= (int)sizeof small ? malloc((size_t)n + 1) : small;
    if (text && text != small)
        vsnprintf(text, (size_t)n + 1, format, again);
    va_end(again);
    const size_t len = n < 0 ? 0 : text ? (size_t)n : sizeof small - 1;
    line_writer w = {.used = 0};
    flockfile(stderr);
    memcpy(w.chunk, start, strlen(start));
    w.used = strlen(start);
    put_escaped(&w, prefix, strlen(prefix));
    put_escaped(&w, text ? text : small, len);
    if (!text)
        put_escaped(&w, CUT_MARK, sizeof CUT_MARK - 1);
    if (w.used + strlen(end) > sizeof w.chunk)
        flush(&w);
    memcpy(w.chunk + w.used, end, strlen(end));
    w.used += strlen(end);
    flush(&w);
    funlockfile(stderr);
    if (text != small)
        free(text);
}

void cli_vline(const char *prefix, const char *format, va_list ap)
{
    write_text("", prefix, "\n", format, ap);
}

void cli_progress(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    write_text("\r", "", "", format, ap);
    va_end(ap);
}

void cli_progress_end(void)
{
    fputc('\n', stderr);
}

void cli_line(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    cli_vline("", format, ap);
    va_end(ap);
}

void cli_error(const char *command, const char *format, ...)
{
    char prefix[64]; /* "tfenc COMMAND: " (the tool's own names) */
    snprintf(prefix, sizeof prefix, "tfenc %s: ", command);
    va_list ap;
    va_start(ap, format);
    cli_vline(prefix, format, ap);
    va_end(ap);
}
