/* http.h — the HTTP side of `tfenc serve`, on GNU libmicrohttpd: a thread
 * per connection (keep-alive), the connections capped and slow ones closed
 * (connections.h), the head checked (request_head.h), the body read up to
 * --payload-limit (a larger Content-Length is refused before it is read),
 * the API key, the route (HEAD runs a GET route), one log line per request
 * on stderr. */
#ifndef SERVE_HTTP_H
#define SERVE_HTTP_H

#include <stdint.h>
#include <sys/socket.h>

#include "server.h"

struct MHD_Daemon;

/* Listens on addr (port 0: any free one) and serves s; NULL on failure
 * (errno set). */
struct MHD_Daemon *serve_http_start(serve_server *s, const struct sockaddr *addr, int ipv6);
/* The port it listens on. */
uint16_t serve_http_port(struct MHD_Daemon *d);
/* Stops accepting connections (those open are served on). */
void serve_http_quiesce(struct MHD_Daemon *d);
/* Closes every connection and stops d (and s's connections' watchdog). */
void serve_http_stop(serve_server *s, struct MHD_Daemon *d);

#endif
