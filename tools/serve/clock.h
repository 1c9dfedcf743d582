/* clock.h — the server's one clock: seconds since an arbitrary start,
 * monotonic (CLOCK_MONOTONIC), for queue and compute times. */
#ifndef SERVE_CLOCK_H
#define SERVE_CLOCK_H

#include <time.h> /* clock_gettime: the includer defines _POSIX_C_SOURCE */

static inline double serve_clock(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
