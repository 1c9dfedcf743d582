/* connections.h — every open connection of `tfenc serve`, the caps on how
 * many (in all, and from one client address), and the deadlines by which a
 * slow client's connection is closed (connections.c tells how). The
 * functions are libmicrohttpd's callbacks, or called from http.c's. */
#ifndef SERVE_CONNECTIONS_H
#define SERVE_CONNECTIONS_H

#include <microhttpd.h>
#include <stddef.h>

#include "metrics.h"

typedef struct serve_connection_limits {
    size_t max_connections;        /* --max-connections */
    size_t max_client_connections; /* --max-client-connections: from one address */
    unsigned request_seconds;      /* --request-timeout: request line to body's end */
    unsigned keep_alive_seconds;   /* --keep-alive-timeout: to the next request line */
} serve_connection_limits;

/* The most --max-connections may be: a thread each, and each new one
 * counted against the others from its address. */
#define SERVE_MAX_CONNECTIONS 16384

/* Connections beyond the caps that are still answered (503 or 429)
 * rather than closed unanswered at accept (libmicrohttpd's cap is this
 * many above --max-connections). */
#define SERVE_REFUSAL_SLOTS 64

typedef struct serve_connections serve_connections;

/* Starts the watchdog thread; NULL (with errno) on failure. Events go to m. */
serve_connections *serve_connections_start(const serve_connection_limits *limits, serve_metrics *m);
/* Stops the watchdog and frees cs, once libmicrohttpd has closed every
 * connection (MHD_stop_daemon). NULL is a no-op. */
void serve_connections_stop(serve_connections *cs);

/* MHD_OPTION_NOTIFY_CONNECTION's callback (cls: the serve_connections). */
void serve_connections_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code);
/* A request line came on c (from MHD_OPTION_URI_LOG_CALLBACK, http.c's):
 * its headers and body must come within --request-timeout. */
void serve_connections_request_line(struct MHD_Connection *c);
/* The request on c has been read whole: what follows is the server's time. */
void serve_connections_request_read(struct MHD_Connection *c);
/* The response to c's request is queued: libmicrohttpd's idle timeout is
 * on while it is sent (--keep-alive-timeout). */
void serve_connections_responding(struct MHD_Connection *c);
/* The request on c is over (MHD_OPTION_NOTIFY_COMPLETED): c waits for the next. */
void serve_connections_request_done(struct MHD_Connection *c);
/* Whether c was refused when it came (answered already: close it). */
int serve_connections_refused(struct MHD_Connection *c);
/* The connections open and not refused (0 for NULL). */
size_t serve_connections_open(serve_connections *cs);

#endif
