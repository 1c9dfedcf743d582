/* cli_message.h — every line the tfenc program writes on stderr (its
 * messages, tfenc serve's start-up and request lines) goes through one
 * writer, so that each is one line of valid UTF-8 whatever bytes a path,
 * an argument or a request held: each byte that starts no valid UTF-8
 * character, and each control character (C0, DEL, C1), is written as the
 * text \xNN, as the library's tf_last_error shows a byte that is not UTF-8:
 *   tfenc embed: --file /tmp/lat\xE9n.txt: cannot read: No such file or directory */
#ifndef TFENC_CLI_MESSAGE_H
#define TFENC_CLI_MESSAGE_H

#include <stdarg.h>

/* format's text and a newline on stderr, in one write (lines from several
 * threads do not mix). */
void cli_line(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* prefix, then format's text, as cli_line writes them. */
__attribute__((format(printf, 2, 0))) void cli_vline(const char *prefix, const char *format,
                                                     va_list ap);

/* "tfenc COMMAND: " + the message + a newline, as cli_line writes it. */
void cli_error(const char *command, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* A progress line: a carriage return, then format's text escaped as
 * cli_line's, no newline (the next one writes over it; pad a shorter one
 * with spaces). cli_progress_end ends the last with a newline. */
void cli_progress(const char *format, ...) __attribute__((format(printf, 1, 2)));
void cli_progress_end(void);

#endif
