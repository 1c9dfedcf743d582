/* float_text_bench.c — the text of a vector's numbers, each way the tools
 * have written them: lib/base/float_text.c's shortest text, printf's
 * "%.9g" (the server's before it) and the first of "%.1g".."%.9g" that
 * strtof reads back (the CLI's before it). Values: 384-wide unit vectors'
 * components (Box-Muller normals over sqrt(384), fixed seed).
 *
 *     build/bench/float-text-bench [--min-time SECONDS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "float_text.h"
#include "timing.h"

enum { N_VALUES = 384 * 64 };
static const double PI = 3.14159265358979323846; /* pi (C11 has no M_PI) */

typedef struct values {
    float v[N_VALUES];
    char text[TF_FLOAT_TEXT_MAX];
    size_t chars; /* the texts' total length: the work is not optimised away */
} values;

static int shortest(void *ctx)
{
    values *x = ctx;
    for (size_t i = 0; i < N_VALUES; i++)
        x->chars += tf__float_text(x->text, x->v[i]);
    return 0;
}

static int printf_9g(void *ctx)
{
    values *x = ctx;
    for (size_t i = 0; i < N_VALUES; i++)
        x->chars += (size_t)snprintf(x->text, sizeof x->text, "%.9g", (double)x->v[i]);
    return 0;
}

static int printf_strtof_loop(void *ctx)
{
    values *x = ctx;
    for (size_t i = 0; i < N_VALUES; i++)
        for (int p = 1; p <= 9; p++) {
            const int n = snprintf(x->text, sizeof x->text, "%.*g", p, (double)x->v[i]);
            if (strtof(x->text, NULL) == x->v[i]) {
                x->chars += (size_t)n;
                break;
            }
        }
    return 0;
}

int main(int argc, char **argv)
{
    double min_time = 0.5;
    char *end = NULL;
    if (argc == 3 && strcmp(argv[1], "--min-time") == 0)
        min_time = strtod(argv[2], &end);
    if ((argc == 3 && (end == argv[2] || *end || min_time < 0)) || (argc != 1 && !end)) {
        fprintf(stderr, "usage: float-text-bench [--min-time SECONDS]\n");
        return 2;
    }
    static values x;
    srand(1);
    for (size_t i = 0; i < N_VALUES; i++) {
        const double u = (rand() + 1.0) / (RAND_MAX + 2.0), w = rand() / (RAND_MAX + 1.0);
        x.v[i] = (float)(sqrt(-2.0 * log(u)) * cos(2.0 * PI * w) / sqrt(384.0));
    }
    const struct {
        const char *name;
        int (*work)(void *);
    } ways[] = {{"tf__float_text (shortest)", shortest},
                {"snprintf %.9g", printf_9g},
                {"%.1g..%.9g until strtof reads it back", printf_strtof_loop}};
    printf("%d float32 values of 384-wide unit vectors, median ns a value:\n", N_VALUES);
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        double median, best;
        ways[w].work(&x); /* warm-up */
        bench_time_runs(ways[w].work, &x, min_time, &median, &best);
        printf("  %-40s %7.1f ns\n", ways[w].name, 1e9 * median / N_VALUES);
    }
    return x.chars == 0;
}
