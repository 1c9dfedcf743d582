/* http.c — libmicrohttpd's callbacks: each request from its headers to its
 * response. */
#define _POSIX_C_SOURCE 200809L
#include "http.h"

#include <errno.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_message.h"
#include "clock.h"
#include "request_head.h"
#include "route_table.h"
#include "utf8.h"

/* Each connection thread's stack. */
enum { THREAD_STACK = 1 << 20 };

/* One request's state between libmicrohttpd's calls, from its request
 * line (request_line) to its end (completed). */
typedef struct request_ctx {
    serve_request_line line;  /* its target as sent */
    int started;              /* the access handler has seen it: counted in s->active */
    const serve_route *route; /* NULL: no route has its path */
    char *body;               /* [len] bytes read so far (malloc'ed) */
    size_t len, cap;
    int too_large; /* the body passed --payload-limit while being read */
    int answered;  /* a response is queued */
    int close;     /* the connection closes after the response */
    double start;
} request_ctx;

/* One line on stderr: what the client sent (its method and path, at most
 * SERVE_QUOTE_BYTES of each cut between two characters; cli_line shows a
 * control byte or one that is not UTF-8 as \xNN, so that a request stays
 * one line), the status, tokens and times. */
static void log_request(const char *method, const char *url, const serve_response *r,
                        double seconds)
{
    const int m = tf__utf8_prefix(method, SERVE_QUOTE_BYTES);
    const int u = tf__utf8_prefix(url, SERVE_QUOTE_BYTES);
    if (r->queue_s >= 0)
        cli_line("%.*s %.*s %d tokens=%zu queue_ms=%.2f compute_ms=%.2f total_ms=%.2f", m, method,
                 u, url, r->status, r->tokens, 1e3 * r->queue_s, 1e3 * r->compute_s, 1e3 * seconds);
    else
        cli_line("%.*s %.*s %d tokens=%zu total_ms=%.2f", m, method, u, url, r->status, r->tokens,
                 1e3 * seconds);
}

static enum MHD_Result send_response(serve_server *s, struct MHD_Connection *c, request_ctx *ctx,
                                     const char *method, const char *url, serve_response *r)
{
    const double seconds = serve_clock() - ctx->start;
    log_request(method, url, r, seconds);
    serve_metrics_request(&s->metrics, ctx->route, r->status, seconds, r->queue_s, r->compute_s);
    struct MHD_Response *resp = MHD_create_response_from_buffer(r->len, r->body,
                                                                MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(r->body);
        return MHD_NO;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
    if (r->status == 405)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, routes_allow(ctx->route));
    if (r->status == 401)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    if (ctx->close || atomic_load(&s->stopping))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    const enum MHD_Result rc = MHD_queue_response(c, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    ctx->answered = 1;
    serve_connections_responding(c);
    return rc;
}

/* "Bearer KEY" with the server's key (compared in constant time). */
static int authorised(const serve_server *s, struct MHD_Connection *c)
{
    const char *key = s->limits.api_key;
    if (!key)
        return 1;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncmp(h, "Bearer ", 7) != 0)
        return 0;
    h += 7;
    const size_t n = strlen(key);
    if (strlen(h) != n)
        return 0;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(h[i] ^ key[i]);
    return diff == 0;
}

/* What is known from the headers alone: 0 to read on, else the status of
 * the error set in *e. */
static int check_headers(serve_server *s, struct MHD_Connection *c, request_ctx *ctx,
                         const char *method, const char *url, const char *version, serve_error *e)
{
    if (serve_head_check(c, method, url, version, &ctx->line, e)) {
        ctx->close = 1;
        return e->status;
    }
    if (routes_check_method(ctx->route, routes_run_as(ctx->route, method), url, e))
        return e->status;
    if (!ctx->route->no_key && !authorised(s, c))
        return serve_error_set(e, 401, "",
                               "a missing or wrong API key: send the header "
                               "\"Authorization: Bearer KEY\" with the server's --api-key");
    if (atomic_load(&s->stopping))
        return serve_error_set(e, 503, "", "the server is shutting down");
    const char *length = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
    char *end;
    const unsigned long long n = length ? strtoull(length, &end, 10) : 0;
    if (length && n > s->limits.payload_limit)
        return serve_error_set(e, 413, "",
                               "the body's %llu bytes (Content-Length) are more "
                               "than the server's limit of %zu (--payload-limit)",
                               n, s->limits.payload_limit);
    return 0;
}

/* Appends a piece of the body, or marks it too large. */
static void take_body(serve_server *s, request_ctx *ctx, const char *data, size_t n)
{
    if (ctx->too_large || n > s->limits.payload_limit - ctx->len) {
        ctx->too_large = 1;
        return;
    }
    if (ctx->cap - ctx->len < n) {
        size_t cap = ctx->cap ? ctx->cap : 4096;
        while (cap - ctx->len < n)
            cap *= 2;
        char *body = realloc(ctx->body, cap);
        if (!body) {
            ctx->too_large = 1; /* answered 413 as well: nothing held is lost */
            return;
        }
        ctx->body = body, ctx->cap = cap;
    }
    memcpy(ctx->body + ctx->len, data, n);
    ctx->len += n;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    serve_server *s = cls;
    request_ctx *ctx = *con_cls;
    serve_error e;
    serve_response r;
    if (serve_connections_refused(c)) /* answered when it came */
        return MHD_NO;
    if (!ctx) /* out of memory when its request line came: not served */
        return MHD_NO;
    if (!ctx->started) {
        ctx->started = 1, ctx->start = serve_clock();
        ctx->route = routes_find(url);
        atomic_fetch_add(&s->active, 1);
        if (check_headers(s, c, ctx, method, url, version, &e)) {
            serve_respond_error(routes_errors_of(ctx->route), &e, &r);
            return send_response(s, c, ctx, method, url, &r);
        }
        return MHD_YES;
    }
    if (ctx->answered) { /* answered from the headers: the rest is dropped */
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        take_body(s, ctx, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (ctx->too_large) {
        serve_error_set(&e, 413, "",
                        "the body is more than the server's limit of %zu bytes "
                        "(--payload-limit)",
                        s->limits.payload_limit);
        serve_respond_error(routes_errors_of(ctx->route), &e, &r);
    } else {
        serve_connections_request_read(c);
        routes_run(s, ctx->route, ctx->body, ctx->len, &r);
    }
    return send_response(s, c, ctx, method, url, &r);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode code)
{
    serve_server *s = cls;
    request_ctx *ctx = *con_cls;
    (void)code;
    serve_connections_request_done(c);
    if (!ctx)
        return;
    if (ctx->started)
        atomic_fetch_sub(&s->active, 1);
    free(ctx->body);
    free(ctx);
    *con_cls = NULL;
}

/* MHD_OPTION_URI_LOG_CALLBACK: a request line came. Its connection's
 * deadline (connections.c), and the request's context with its target as
 * sent (NULL when out of memory: the access handler refuses it). */
static void *request_line(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    serve_connections_request_line(c);
    request_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx)
        serve_head_request_line(&ctx->line, uri);
    return ctx;
}

struct MHD_Daemon *serve_http_start(serve_server *s, const struct sockaddr *addr, int ipv6)
{
    const serve_connection_limits *limits = &s->limits.connections;
    if (!(s->connections = serve_connections_start(limits, &s->metrics)))
        return NULL;
    /* libmicrohttpd's own idle timeout is off (the watchdog's deadlines,
     * connections.c, and its timeout while a response is sent stand in),
     * and its cap on connections leaves room to answer refusals. */
    const unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
        MHD_USE_POLL | MHD_USE_ITC | (ipv6 ? MHD_USE_IPv6 : 0);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, handle, s, MHD_OPTION_NOTIFY_COMPLETED, completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, serve_connections_notify, s->connections,
        MHD_OPTION_URI_LOG_CALLBACK, request_line, NULL, MHD_OPTION_UNESCAPE_CALLBACK,
        serve_head_unescape, NULL, MHD_OPTION_SOCK_ADDR, addr, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)(limits->max_connections + SERVE_REFUSAL_SLOTS), MHD_OPTION_CONNECTION_TIMEOUT,
        0u, MHD_OPTION_THREAD_STACK_SIZE, (size_t)THREAD_STACK, MHD_OPTION_END);
    if (!d) {
        const int error = errno; /* why it cannot listen */
        serve_connections_stop(s->connections);
        s->connections = NULL;
        errno = error;
    }
    return d;
}

uint16_t serve_http_port(struct MHD_Daemon *d)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

void serve_http_quiesce(struct MHD_Daemon *d)
{
    const MHD_socket fd = MHD_quiesce_daemon(d);
    if (fd != MHD_INVALID_SOCKET)
        close(fd);
}

void serve_http_stop(serve_server *s, struct MHD_Daemon *d)
{
    MHD_stop_daemon(d);
    serve_connections_stop(s->connections);
    s->connections = NULL;
}
