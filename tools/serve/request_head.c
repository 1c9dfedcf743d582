/* request_head.c — a request's head checked before its body is read.
 *
 * NUL bytes. libmicrohttpd hands the server its path, method and header
 * values as C strings:
 *   - it decodes %XX in a path and a query itself, %00 to a NUL byte that
 *     would end the path early ("/health%00xyz" read as "/health"): the
 *     server's own decoder (serve_head_unescape) keeps %00 as written;
 *   - libmicrohttpd 0.9 keeps a raw NUL byte of the request line or a
 *     header line, which then ends that string early ("GET /health\0xyz",
 *     "Authorization: Bearer KEY\0..."); 1.0 answers such a request 400
 *     itself. For 0.9 the server looks where 0.9 parses the head: in place,
 *     in one buffer, each line end (CR LF, or LF) and each separator it
 *     cuts at set to NUL (its connection.c, parse_initial_message_line and
 *     process_header_line). There, in a head without a NUL byte of its own,
 *     the method ends at the NUL that was the space before the target, the
 *     target (as MHD_OPTION_URI_LOG_CALLBACK sees it, before it is split or
 *     decoded) at the NUL just before the version, and each header's value
 *     at the first NUL of its line's end, the next line starting one or two
 *     NULs later. A string that ends anywhere else ended at the client's NUL.
 *
 * Framing (RFC 9112, section 6). libmicrohttpd reads a body by the first
 * Content-Length, or as chunked when the first Transfer-Encoding is exactly
 * "chunked"; any other Transfer-Encoding it reads until the connection
 * closes, and never answers. So every other way of saying a body's length
 * is refused from the headers, and the connection closed: another reader of
 * the same bytes (a proxy in front) may take another length. */
#define _POSIX_C_SOURCE 200809L
#include "request_head.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "utf8.h"

/* ---- %XX -------------------------------------------------------------------------- */

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
        : c >= 'a' && c <= 'f'  ? c - 'a' + 10
        : c >= 'A' && c <= 'F'  ? c - 'A' + 10
                                : -1;
}

size_t serve_head_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls, (void)c;
    char *out = s;
    for (const char *in = s; *in;) {
        const int high = in[0] == '%' ? hex_digit(in[1]) : -1;
        const int low = high >= 0 ? hex_digit(in[2]) : -1;
        if (low >= 0 && (high || low)) {
            *out++ = (char)(high * 16 + low);
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

void serve_head_request_line(serve_request_line *l, const char *uri)
{
    *l = (serve_request_line){.target_end = uri ? uri + strlen(uri) : NULL};
    if (uri)
        snprintf(l->target, sizeof l->target, "%.*s", tf__utf8_prefix(uri, SERVE_QUOTE_BYTES), uri);
}

/* ---- The head's headers, walked once ----------------------------------------------- */

/* The codings of a request's Transfer-Encoding headers, one list across
 * them all (RFC 9110, section 5.3). */
typedef struct codings {
    int headers;              /* Transfer-Encoding headers */
    const char *first;        /* the first one's value: libmicrohttpd's reading */
    int count, chunked;       /* codings, and how many of them are chunked */
    const char *last, *other; /* the final coding; the first that is not chunked */
    size_t last_len, other_len;
} codings;

/* Whether the coding name [n] is chunked (names are case-insensitive). */
static int is_chunked(const char *name, size_t n)
{
    return n == 7 && strncasecmp(name, "chunked", 7) == 0;
}

/* How many bytes of a coding's name [n] a message quotes. */
static int quoted(const char *name, size_t n)
{
    return tf__utf8_prefix(name, n < SERVE_QUOTE_BYTES ? n : SERVE_QUOTE_BYTES);
}

/* Each element of value (a coding and its parameters) into t; empty ones
 * are skipped (RFC 9110, section 5.6.1). */
static void add_codings(codings *t, const char *value)
{
    if (t->headers++ == 0)
        t->first = value;
    for (const char *p = value + strspn(value, " \t,"); *p; p += strspn(p, " \t,")) {
        const size_t name = strcspn(p, " \t,;"); /* before any parameters */
        const int chunked = is_chunked(p, name);
        t->count++, t->chunked += chunked;
        t->last = p, t->last_len = name;
        if (!chunked && !t->other)
            t->other = p, t->other_len = name;
        p += strcspn(p, ",");
    }
}

/* What the headers say, walked in order. */
typedef struct head_walk {
    int lengths;           /* Content-Length headers */
    const char *length[2]; /* the first two values */
    codings te;
    /* libmicrohttpd 0.9's buffer: the head [head, head_end), where each
     * line's text ended */
    const char *head, *head_end;
    const char *text_end;              /* the last header's value's first NUL */
    const char *last_key, *last_value; /* the last header seen */
    const char *cut_key, *cut_value;   /* the first one whose line holds a NUL byte */
    int folded;                        /* a header line folded onto the next */
} head_walk;

#if MHD_VERSION < 0x01000000
/* The bytes [from, to) of the head: 1..max of them, each NUL (a line's end
 * as libmicrohttpd leaves it). Compared as addresses: a string that
 * libmicrohttpd moved out of the buffer (a folded header line's) is no line
 * end either. */
static int line_end(const char *from, const char *to, size_t max)
{
    const uintptr_t a = (uintptr_t)from, b = (uintptr_t)to;
    if (b <= a || b - a > max)
        return 0;
    for (size_t i = 0; i < b - a; i++)
        if (from[i])
            return 0;
    return 1;
}

static int in_head(const head_walk *w, const char *p)
{
    return (uintptr_t)p >= (uintptr_t)w->head && (uintptr_t)p < (uintptr_t)w->head_end;
}

/* One header, in order: a folded one (obs-fold) libmicrohttpd joined
 * outside the buffer; else the header before it, if that one's line did
 * not end where its value did. */
static void walk_line(head_walk *w, const char *key, const char *value)
{
    if (!in_head(w, key) || !in_head(w, value))
        w->folded = 1;
    else if (!w->cut_key && w->last_key && !line_end(w->text_end, key, 2))
        w->cut_key = w->last_key, w->cut_value = w->last_value;
    w->text_end = value + strlen(value), w->last_key = key, w->last_value = value;
}
#endif

static enum MHD_Result walk_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    head_walk *w = cls;
    (void)kind;
#if MHD_VERSION < 0x01000000
    if (w->head)
        walk_line(w, key, value);
#endif
    if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (w->lengths < 2)
            w->length[w->lengths] = value;
        w->lengths++;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        add_codings(&w->te, value);
    }
    return MHD_YES;
}

/* ---- The checks ---------------------------------------------------------------------- */

#if MHD_VERSION < 0x01000000
/* 400 when the method, the target or a header line held a NUL byte that
 * ended its string early, or a header line was folded (after the walk). */
static int check_nul(const char *method, const char *url, const char *version,
                     const serve_request_line *line, head_walk *w, serve_error *e)
{
    if (!w->head)
        return 0; /* the head's size unknown: nothing to look at */
    const size_t n = strlen(method);
    const uintptr_t gap = (uintptr_t)url - (uintptr_t)(method + n); /* a NUL, then spaces */
    int spaces = gap >= 1 && in_head(w, url);
    for (size_t i = 1; spaces && i < gap; i++)
        spaces = method[n + i] == ' ';
    if (!spaces)
        return serve_error_malformed(e,
                                     "the request line holds a NUL byte (in its method, "
                                     "after \"%.*s\")",
                                     tf__utf8_prefix(method, SERVE_QUOTE_BYTES), method);
    if (line->target_end && (uintptr_t)line->target_end + 1 != (uintptr_t)version)
        return serve_error_malformed(e,
                                     "the request line holds a NUL byte (in its target, "
                                     "after \"%s\")",
                                     line->target);
    if (w->folded)
        return serve_error_malformed(e,
                                     "a header line continues on the next (obs-fold), "
                                     "which the server does not take (RFC 9112, section 5.2)");
    /* the last header's line, then the empty line, end the head */
    if (!w->cut_key && w->last_key && !line_end(w->text_end, w->head_end, 4))
        w->cut_key = w->last_key, w->cut_value = w->last_value;
    if (w->cut_key)
        return serve_error_malformed(e, "the header %.*s holds a NUL byte (after \"%.*s\")",
                                     tf__utf8_prefix(w->cut_key, SERVE_QUOTE_BYTES), w->cut_key,
                                     tf__utf8_prefix(w->cut_value, SERVE_QUOTE_BYTES),
                                     w->cut_value);
    return 0;
}
#endif

/* 400 when the body's length is said twice (RFC 9112, sections 6.1 and
 * 6.3): libmicrohttpd would read it by the first length alone. */
static int check_lengths(const head_walk *w, serve_error *e)
{
    if (w->lengths > 1)
        return serve_error_malformed(
            e,
            "Content-Length: given %d times (%.*s, then %.*s); "
            "a request says its body's length once (RFC 9112, section 6.3)",
            w->lengths, tf__utf8_prefix(w->length[0], SERVE_QUOTE_BYTES), w->length[0],
            tf__utf8_prefix(w->length[1], SERVE_QUOTE_BYTES), w->length[1]);
    if (w->lengths && w->te.headers)
        return serve_error_malformed(e,
                                     "both Content-Length and Transfer-Encoding: a "
                                     "request says its body's length one way (RFC 9112, section "
                                     "6.1)");
    return 0;
}

/* 0 for no Transfer-Encoding, or "chunked" alone as libmicrohttpd reads
 * it; else 400 or 501 (RFC 9112, sections 6.1, 6.3 and 7). */
static int check_codings(const codings *t, const char *version, serve_error *e)
{
    if (!t->headers)
        return 0;
    if (strcmp(version, MHD_HTTP_VERSION_1_0) == 0)
        return serve_error_malformed(e,
                                     "an HTTP/1.0 request with Transfer-Encoding: its "
                                     "framing is faulty (RFC 9112, section 6.1)");
    if (!t->count)
        return serve_error_malformed(e, "Transfer-Encoding: no coding");
    if (t->chunked > 1)
        return serve_error_malformed(e,
                                     "Transfer-Encoding: chunked given %d times; a body "
                                     "is chunked once (RFC 9112, section 7)",
                                     t->chunked);
    if (!is_chunked(t->last, t->last_len))
        return serve_error_malformed(
            e,
            "Transfer-Encoding: the final coding is %.*s, not "
            "chunked: the body's length cannot be known (RFC 9112, section "
            "6.3)",
            quoted(t->last, t->last_len), t->last);
    if (t->other)
        return serve_error_set(e, 501, "",
                               "Transfer-Encoding: %.*s: the server decodes no "
                               "transfer coding but chunked (RFC 9112, section 6.1)",
                               quoted(t->other, t->other_len), t->other);
    if (t->headers > 1 || strcasecmp(t->first, "chunked") != 0)
        return serve_error_malformed(e,
                                     "Transfer-Encoding: \"%.*s\": the server reads a "
                                     "chunked body as \"Transfer-Encoding: chunked\" alone",
                                     tf__utf8_prefix(t->first, SERVE_QUOTE_BYTES), t->first);
    return 0;
}

int serve_head_check(struct MHD_Connection *c, const char *method, const char *url,
                     const char *version, const serve_request_line *line, serve_error *e)
{
    head_walk w = {0};
#if MHD_VERSION < 0x01000000
    const union MHD_ConnectionInfo *size = MHD_get_connection_info(
        c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (size) /* the head starts with its method */
        w.head = method, w.head_end = method + size->header_size;
#endif
    MHD_get_connection_values(c, MHD_HEADER_KIND, walk_header, &w);
#if MHD_VERSION < 0x01000000
    if (check_nul(method, url, version, line, &w, e))
        return e->status;
#else
    (void)method, (void)url, (void)line;
#endif
    return check_lengths(&w, e) || check_codings(&w.te, version, e) ? e->status : 0;
}
