/* connections.c — the server's open connections: the caps on them and the
 * deadlines of slow clients.
 *
 * libmicrohttpd gives each connection a thread, and its own timeout
 * (MHD_OPTION_CONNECTION_TIMEOUT) counts idle seconds only: a client that
 * sends half a request, or a byte a minute, would hold its thread and its
 * connection for ever, and a few hundred such clients every connection the
 * server has. So its timeout is off, and each connection here has a phase
 * with a deadline:
 *   WAITING    from its start, or from its last response: the next request
 *              line must come within --keep-alive-timeout, however many
 *              bytes trickle in before it;
 *   RECEIVING  from its request line (MHD_OPTION_URI_LOG_CALLBACK): the
 *              headers and the body must have come within --request-timeout;
 *   RUNNING    from the body's end (the route runs, then the response is
 *              sent): no deadline here; while the response is sent,
 *              libmicrohttpd's idle timeout is on for --keep-alive-timeout
 *              (set per connection, serve_connections_responding), so that
 *              a client that reads nothing of its answer is closed too;
 *   REFUSED    over a cap (below): answered already, closed after
 *              REFUSED_LINGER_SECONDS.
 * A watchdog thread looks every WATCHDOG_TICK_MS and shuts down
 * (shutdown(2), both ways) the socket of a connection past its deadline:
 * libmicrohttpd's thread for it reads the end of the stream and closes it
 * as a client that went away. The socket stays open as long as its entry
 * is here: libmicrohttpd closes it after MHD_CONNECTION_NOTIFY_CLOSED,
 * which takes the entry out under the same lock.
 *
 * The caps: a connection beyond --max-connections, or beyond
 * --max-client-connections from one address, is answered when it comes
 * (MHD_CONNECTION_NOTIFY_STARTED, on libmicrohttpd's listening thread,
 * before its request is read): 503 or 429 with "Connection: close",
 * written on the socket directly (a few hundred bytes: the socket's empty
 * send buffer takes them), then its sending side shut. Its request line
 * and headers are still read (then the access handler refuses it), so that
 * the close does not reset the connection before the client has read the
 * answer.
 * libmicrohttpd's own cap is SERVE_REFUSAL_SLOTS above --max-connections,
 * room for the refused while they linger; past it, it closes a new
 * connection at accept, unanswered (as its MHD_OPTION_PER_IP_CONNECTION_LIMIT
 * would close one over the cap of its address: that cap is counted here,
 * so that it is answered). */
#define _POSIX_C_SOURCE 200809L
#include "connections.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "clock.h"
#include "response.h"

/* How often the watchdog looks, and how long a refused connection may
 * stay for its client to send its request (then read and dropped). */
#define WATCHDOG_TICK_MS 100
#define REFUSED_LINGER_SECONDS 1.0

typedef enum phase { WAITING, RECEIVING, RUNNING, REFUSED } phase;

/* One connection (its MHD socket context). */
typedef struct connection {
    struct connection *prev, *next;
    serve_connections *owner;
    MHD_socket fd;
    struct sockaddr_storage client;
    phase phase;
    double since; /* serve_clock() when the phase began */
    int shut;     /* shut down by the watchdog */
} connection;

struct serve_connections {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* stopping */
    pthread_t watchdog;
    int stopping;
    connection *head; /* every connection libmicrohttpd has started */
    size_t admitted;  /* those not refused */
    serve_connection_limits limits;
    serve_metrics *metrics;
};

/* ---- The caps --------------------------------------------------------------- */

/* Whether a and b are the same client address (the port aside). */
static int same_client(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return 0;
    if (a->ss_family == AF_INET)
        return memcmp(&((const struct sockaddr_in *)a)->sin_addr,
                      &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr)) == 0;
    if (a->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return 1;
}

/* The address of a, as text ("127.0.0.1", "::1"). */
static void client_text(const struct sockaddr_storage *a, char *out, socklen_t size)
{
    const void *ip = a->ss_family == AF_INET6
        ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr
        : (const void *)&((const struct sockaddr_in *)a)->sin_addr;
    if (!inet_ntop(a->ss_family, ip, out, size))
        snprintf(out, size, "this client");
}

/* 0 when k may be admitted, else the status (503, 429) with its message in
 * *e (cs->lock held; k not in the list yet). */
static int over_cap(const serve_connections *cs, const connection *k, serve_error *e)
{
    if (cs->admitted >= cs->limits.max_connections) {
        serve_error_set(e, 503, "",
                        "the server holds %zu connections, its limit "
                        "(--max-connections); retry later",
                        cs->admitted);
        return 503;
    }
    size_t same = 0; /* the connections admitted from k's address */
    for (const connection *o = cs->head; o; o = o->next)
        same += o->phase != REFUSED && same_client(&o->client, &k->client);
    if (same < cs->limits.max_client_connections)
        return 0;
    char who[INET6_ADDRSTRLEN];
    client_text(&k->client, who, sizeof who);
    serve_error_set(e, 429, "",
                    "%s holds %zu connections, the server's limit for one client "
                    "(--max-client-connections); retry later",
                    who, same);
    return 429;
}

/* Writes e as a whole HTTP response (TEI's error body) on fd and shuts its
 * sending side: what the client reads before the connection closes. */
static void answer_refused(MHD_socket fd, const serve_error *e)
{
    serve_response r;
    serve_respond_error(SERVE_ERRORS_TEI, e, &r);
    char head[256];
    const int n = snprintf(head, sizeof head,
                           "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
                           "Content-Length: %zu\r\nConnection: close\r\nRetry-After: 1\r\n\r\n",
                           e->status,
                           e->status == 429 ? "Too Many Requests" : "Service Unavailable",
                           r.content_type, r.len);
    const struct iovec parts[2] = {{head, (size_t)n}, {r.body, r.len}};
    const struct msghdr msg = {.msg_iov = (struct iovec *)parts, .msg_iovlen = r.body ? 2 : 1};
    (void)sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL); /* a refusal not sent is a close */
    shutdown(fd, SHUT_WR);
    free(r.body);
}

/* ---- libmicrohttpd's callbacks ------------------------------------------------- */

static connection *of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(
        c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

static void started(serve_connections *cs, struct MHD_Connection *c, void **socket_context)
{
    const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c,
                                                                 MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *addr = MHD_get_connection_info(
        c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    connection *k = calloc(1, sizeof *k);
    if (!k || !fd || !addr) { /* not followed: not served */
        free(k);
        if (fd)
            shutdown(fd->connect_fd, SHUT_RDWR);
        return;
    }
    k->owner = cs, k->fd = fd->connect_fd, k->since = serve_clock();
    memcpy(&k->client, addr->client_addr,
           addr->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                    : sizeof(struct sockaddr_in));
    serve_error e;
    pthread_mutex_lock(&cs->lock);
    const int refused = over_cap(cs, k, &e);
    k->phase = refused ? REFUSED : WAITING;
    cs->admitted += !refused;
    k->next = cs->head;
    if (cs->head)
        cs->head->prev = k;
    cs->head = k;
    pthread_mutex_unlock(&cs->lock);
    *socket_context = k;
    if (refused) {
        serve_metrics_connection(cs->metrics,
                                 refused == 503 ? SERVE_CONNECTION_REFUSED_SERVER_FULL
                                                : SERVE_CONNECTION_REFUSED_CLIENT_FULL);
        answer_refused(k->fd, &e);
    }
}

static void closed(serve_connections *cs, connection *k)
{
    pthread_mutex_lock(&cs->lock);
    if (k->prev)
        k->prev->next = k->next;
    else
        cs->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    cs->admitted -= k->phase != REFUSED;
    pthread_mutex_unlock(&cs->lock);
    free(k);
}

void serve_connections_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        started(cls, c, socket_context);
    else if (*socket_context)
        closed(cls, *socket_context);
}

/* k enters phase p (a refused connection stays refused). */
static void enter(connection *k, phase p)
{
    if (!k)
        return;
    pthread_mutex_lock(&k->owner->lock);
    if (k->phase != REFUSED)
        k->phase = p, k->since = serve_clock();
    pthread_mutex_unlock(&k->owner->lock);
}

void serve_connections_request_line(struct MHD_Connection *c)
{
    enter(of(c), RECEIVING);
}

void serve_connections_request_read(struct MHD_Connection *c)
{
    enter(of(c), RUNNING);
}

void serve_connections_responding(struct MHD_Connection *c)
{
    connection *k = of(c);
    if (k) /* from 0 (off), a timeout restarts libmicrohttpd's idle clock */
        MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
                                  k->owner->limits.keep_alive_seconds);
}

void serve_connections_request_done(struct MHD_Connection *c)
{
    MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
    enter(of(c), WAITING);
}

int serve_connections_refused(struct MHD_Connection *c)
{
    connection *k = of(c);
    if (!k)
        return 1; /* not followed (out of memory when it came): not served */
    pthread_mutex_lock(&k->owner->lock);
    const int refused = k->phase == REFUSED;
    pthread_mutex_unlock(&k->owner->lock);
    return refused;
}

size_t serve_connections_open(serve_connections *cs)
{
    if (!cs)
        return 0;
    pthread_mutex_lock(&cs->lock);
    const size_t n = cs->admitted;
    pthread_mutex_unlock(&cs->lock);
    return n;
}

/* ---- The watchdog ---------------------------------------------------------------- */

/* When k's phase ends, in serve_clock() seconds. */
static double deadline(const serve_connections *cs, const connection *k)
{
    switch (k->phase) {
    case WAITING:
        return k->since + cs->limits.keep_alive_seconds;
    case RECEIVING:
        return k->since + cs->limits.request_seconds;
    case REFUSED:
        return k->since + REFUSED_LINGER_SECONDS;
    case RUNNING:
        break;
    }
    return INFINITY;
}

/* Shuts down the connections past their deadline (cs->lock held). */
static void close_late(serve_connections *cs, double now)
{
    for (connection *k = cs->head; k; k = k->next) {
        if (k->shut || now < deadline(cs, k))
            continue;
        shutdown(k->fd, SHUT_RDWR);
        k->shut = 1;
        if (k->phase != REFUSED)
            serve_metrics_connection(cs->metrics,
                                     k->phase == WAITING ? SERVE_CONNECTION_KEEP_ALIVE_TIMEOUT
                                                         : SERVE_CONNECTION_REQUEST_TIMEOUT);
    }
}

static void *watch(void *arg)
{
    serve_connections *cs = arg;
    pthread_mutex_lock(&cs->lock);
    while (!cs->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += WATCHDOG_TICK_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&cs->wake, &cs->lock, &until);
        close_late(cs, serve_clock());
    }
    pthread_mutex_unlock(&cs->lock);
    return NULL;
}

serve_connections *serve_connections_start(const serve_connection_limits *limits, serve_metrics *m)
{
    serve_connections *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    cs->limits = *limits, cs->metrics = m;
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_mutex_init(&cs->lock, NULL);
    pthread_cond_init(&cs->wake, &monotonic);
    pthread_condattr_destroy(&monotonic);
    const int rc = pthread_create(&cs->watchdog, NULL, watch, cs);
    if (rc) {
        pthread_cond_destroy(&cs->wake);
        pthread_mutex_destroy(&cs->lock);
        free(cs);
        errno = rc;
        return NULL;
    }
    return cs;
}

void serve_connections_stop(serve_connections *cs)
{
    if (!cs)
        return;
    pthread_mutex_lock(&cs->lock);
    cs->stopping = 1;
    pthread_cond_signal(&cs->wake);
    pthread_mutex_unlock(&cs->lock);
    pthread_join(cs->watchdog, NULL);
    pthread_cond_destroy(&cs->wake);
    pthread_mutex_destroy(&cs->lock);
    free(cs);
}
