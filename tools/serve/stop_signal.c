/* stop_signal.c — SIGTERM and SIGINT as a byte on a pipe; see stop_signal.h. */
#define _POSIX_C_SOURCE 200809L
#include "stop_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

static int stop_pipe[2] = {-1, -1}; /* [0] read by stop_signal_wait, [1] written by on_stop */

/* Async-signal-safe: one write(2) of the signal's number. */
static void on_stop(int sig)
{
    const int saved = errno;
    const unsigned char byte = (unsigned char)sig;
    if (write(stop_pipe[1], &byte, 1) != 1) {
        /* the pipe holds a byte already: one stop is enough */
    }
    errno = saved;
}

int stop_signal_catch(void)
{
    if (pipe(stop_pipe) != 0)
        return -1;
    for (int i = 0; i < 2; i++)
        if (fcntl(stop_pipe[i], F_SETFD, FD_CLOEXEC) != 0)
            return -1;
    if (fcntl(stop_pipe[1], F_SETFL, O_NONBLOCK) != 0) /* a handler never blocks */
        return -1;
    struct sigaction sa = {.sa_handler = on_stop, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    struct sigaction ignore = {.sa_handler = SIG_IGN};
    sigemptyset(&ignore.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0 ||
        sigaction(SIGPIPE, &ignore, NULL) != 0)
        return -1;
    return 0;
}

int stop_signal_wait(void)
{
    unsigned char byte = 0;
    while (read(stop_pipe[0], &byte, 1) != 1)
        ; /* EINTR: a signal's handler ran in this thread; its byte follows */
    return byte;
}
