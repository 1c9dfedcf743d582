/* worked_example.h — the tutorial's section 3.3 example (3 tokens, one
 * head, d_k = 2) computed by the library, and the tutorial's own rounded
 * numbers beside it. */
#ifndef TFENC_WORKED_EXAMPLE_H
#define TFENC_WORKED_EXAMPLE_H

#include <stddef.h>

enum { WE_T = 3, WE_DK = 2 }; /* tokens, width of a query */

/* Each step of the example, row i = query i. */
typedef struct worked_example {
    double q[WE_T][WE_DK], k[WE_T][WE_DK]; /* the layer's Q and K (T, d_k) */
    double qk[WE_T][WE_T];                 /* Q K^T (T, T) */
    double scaled[WE_T][WE_T];             /* / sqrt(d_k): layers.0.attn.scores */
    double exp[WE_T][WE_T];                /* e^scaled */
    double sum[WE_T];                      /* each row's sum of e^x */
    double weights[WE_T][WE_T];            /* layers.0.attn.weights */
} worked_example;

/* The numbers as the tutorial prints them, to 3 decimals (its Q K^T to 2). */
extern const worked_example worked_example_tutorial;

/* Runs the example through the library (a one-head model of width 2 whose
 * Q and K are the tutorial's): 0, or -1 with a message in err. */
int worked_example_compute(worked_example *out, char *err, size_t err_size);

#endif
