/* request_head.h — what the server checks of a request's head (its request
 * line and headers) before it reads a body, so that what it serves is what
 * the client sent (request_head.c tells how): a NUL byte never cuts a path,
 * a method or a header short, and a body is read only when libmicrohttpd's
 * reading of its length (RFC 9112, section 6) is the only one. */
#ifndef SERVE_REQUEST_HEAD_H
#define SERVE_REQUEST_HEAD_H

#include <microhttpd.h>
#include <stddef.h>

#include "response.h"

/* MHD_OPTION_UNESCAPE_CALLBACK: decodes each %XX of s (a path, a query's
 * field or value) in place as libmicrohttpd's own does (two hex digits;
 * '+' stays), except %00, kept as written: no route holds a '%', so a path
 * with an encoded NUL is no route's, and answered 404 whole. Returns the
 * bytes left. */
size_t serve_head_unescape(void *cls, struct MHD_Connection *c, char *s);

/* A request line's target as MHD_OPTION_URI_LOG_CALLBACK gives it, before
 * libmicrohttpd splits and decodes it in place. */
typedef struct serve_request_line {
    const char *target_end;             /* its first NUL byte */
    char target[SERVE_QUOTE_BYTES + 1]; /* its first bytes, for a message */
} serve_request_line;

/* Records uri (NULL: none) into *l. */
void serve_head_request_line(serve_request_line *l, const char *uri);

/* 0 when c's head may be read on; else 400 or 501 with the message in *e,
 * after which the connection is closed:
 *   - a NUL byte in the request line or a header line (400; libmicrohttpd
 *     1.0 answers 400 itself, before the request reaches the server);
 *   - a body's length said twice: two Content-Length headers, or one with
 *     Transfer-Encoding (400);
 *   - a Transfer-Encoding other than "chunked" alone: in an HTTP/1.0
 *     request, with no coding, chunked twice or not last (400), another
 *     coding before chunked (501: the server decodes no other).
 * method, url and version are the access handler's; line is the request's
 * serve_head_request_line. */
int serve_head_check(struct MHD_Connection *c, const char *method, const char *url,
                     const char *version, const serve_request_line *line, serve_error *e);

#endif
