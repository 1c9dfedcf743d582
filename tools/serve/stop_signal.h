/* stop_signal.h — SIGTERM and SIGINT, which stop tfenc serve, caught in
 * whichever thread the kernel hands them to: the BLAS's worker threads are
 * started before main (when the library loads) and block no signal, so
 * blocking the signals in main's threads and waiting with sigwait left a
 * window in which a signal reached a worker and killed the process without
 * its finishing. The handler writes the signal's number to a pipe that
 * stop_signal_wait reads. */
#ifndef TFENC_STOP_SIGNAL_H
#define TFENC_STOP_SIGNAL_H

/* Installs the handlers (SIGPIPE ignored too): 0, or -1 with errno. */
int stop_signal_catch(void);

/* Waits for SIGTERM or SIGINT; returns which. */
int stop_signal_wait(void);

#endif
