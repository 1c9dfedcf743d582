/* timing.c — the clock and the repeated runs of the benchmarks (timing.h). */
#define _POSIX_C_SOURCE 200809L
#include "timing.h"

#include <stdlib.h>
#include <time.h>

enum { MAX_RUNS = 200 };

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench_time_runs(int (*work)(void *ctx), void *ctx, double min_time, double *median,
                    double *best)
{
    double runs[MAX_RUNS];
    int count = 0;
    const double start = bench_now();
    while (count < MAX_RUNS && (count < 3 || bench_now() - start < min_time)) {
        const double t0 = bench_now();
        const int status = work(ctx);
        if (status)
            return status;
        runs[count++] = bench_now() - t0;
    }
    qsort(runs, (size_t)count, sizeof runs[0], compare_doubles);
    *median = runs[count / 2];
    *best = runs[0];
    return 0;
}
