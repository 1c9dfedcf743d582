/* timing.h — the clock and the repeated runs of the benchmarks. */
#ifndef TFENC_BENCH_TIMING_H
#define TFENC_BENCH_TIMING_H

/* Seconds on the monotonic clock. */
double bench_now(void);

/* Runs work(ctx) at least 3 times and for at least min_time seconds (at
 * most 200 times), timing each run; fills the median and the smallest time
 * in seconds. Returns 0, or the first non-zero value work returned (then
 * nothing is filled). No warm-up: the caller makes its own. */
int bench_time_runs(int (*work)(void *ctx), void *ctx, double min_time, double *median,
                    double *best);

#endif
