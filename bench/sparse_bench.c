/* sparse_bench.c — one workload of bench/sparse_bench.py: a folder's
 * pipeline loaded, then `mode` ("dense": tf_pipeline_embed; "sparse":
 * tf_pipeline_embed_sparse) on the texts of a file (one a line), `reps`
 * times after one warm-up call. Prints, as one JSON line, the fastest call's
 * milliseconds (the least disturbed on a shared machine), the resident memory after loading and the peak
 * resident memory during the calls (Linux's VmHWM, reset after loading by
 * writing 5 to /proc/self/clear_refs), in KiB. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tfenc.h"

enum { MAX_TEXTS = 1024, MAX_REPS = 64 };

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* /proc/self/status's field ("VmRSS:", "VmHWM:") in KiB, or -1. */
static long status_kib(const char *field)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && kib < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, field, strlen(field)) == 0)
            kib = strtol(line + strlen(field), NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

/* Resets VmHWM to the resident memory now: 0, or -1. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    const int ok = f && fputs("5", f) >= 0;
    return (f && fclose(f) == 0 && ok) ? 0 : -1;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One call of mode over texts [n]: 0, or 1 after a message. */
static int run(const tf_pipeline *p, int sparse, const char **texts, size_t n, float *out)
{
    tf_pipeline_args a;
    tf_pipeline_args_init(&a);
    a.n = n, a.texts = texts, a.batch_size = (int32_t)n;
    tf_status s;
    if (sparse) {
        tf_sparse_vectors *v = NULL;
        s = tf_pipeline_embed_sparse(p, &a, &v);
        tf_sparse_vectors_destroy(v);
    } else {
        a.out = out, a.out_len = n * (size_t)tf_pipeline_dim(p);
        s = tf_pipeline_embed(p, &a);
    }
    if (s)
        fprintf(stderr, "sparse_bench: %s: %s\n", tf_status_name(s), tf_last_error());
    return s != TF_OK;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: sparse_bench DIR dense|sparse TEXTS.txt REPS\n");
        return 2;
    }
    const int sparse = strcmp(argv[2], "sparse") == 0, reps = atoi(argv[4]);
    static char lines[MAX_TEXTS][4096];
    const char *texts[MAX_TEXTS];
    size_t n = 0;
    FILE *f = fopen(argv[3], "r");
    while (f && n < MAX_TEXTS && fgets(lines[n], sizeof lines[n], f)) {
        lines[n][strcspn(lines[n], "\n")] = 0;
        texts[n] = lines[n];
        n++;
    }
    if (f)
        fclose(f);
    tf_pipeline_options opts; /* a bare *ForMaskedLM folder with its head: SPLADE */
    tf_pipeline_options_init(&opts);
    opts.kind = sparse ? TF_PIPELINE_FILL_MASK : -1;
    tf_pipeline *p;
    if (!n || reps < 1 || reps > MAX_REPS || tf_pipeline_load(argv[1], &opts, &p)) {
        fprintf(stderr, "sparse_bench: no texts, bad REPS, or %s\n", tf_last_error());
        return 1;
    }
    float *out = malloc(n * (size_t)tf_pipeline_dim(p) * sizeof *out);
    double ms[MAX_REPS];
    const long loaded = status_kib("VmRSS:");
    int rc = !out || reset_peak() || run(p, sparse, texts, n, out);
    for (int r = 0; !rc && r < reps; r++) {
        const double t0 = now_ms();
        rc = run(p, sparse, texts, n, out);
        ms[r] = now_ms() - t0;
    }
    if (!rc) {
        qsort(ms, (size_t)reps, sizeof *ms, by_value);
        printf("{\"mode\": \"%s\", \"texts\": %zu, \"ms\": %.2f, \"loaded_kib\": %ld, "
               "\"peak_kib\": %ld}\n",
               argv[2], n, ms[0], loaded, status_kib("VmHWM:"));
    }
    free(out);
    tf_pipeline_destroy(p);
    return rc;
}
