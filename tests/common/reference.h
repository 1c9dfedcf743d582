/* reference.h — the encoder forward pass in float64, written as plainly as
 * possible (naive loops, one sequence at a time, nothing shared with the
 * library) to serve as the tests' oracle. Reads the weights of `enc`
 * through the public API. Test-only. */
#ifndef TEST_REFERENCE_H
#define TEST_REFERENCE_H

#include "tfenc.h"

/* out (B,T,D); hidden (L+1,B,T,D), attn (L,B,H,T,T), pooled (B,D) may be
 * NULL. Padded positions are 0. Returns 0, or -1 if a weight is missing. */
int ref_forward(const tf_encoder *enc, const tf_forward_args *a, double *out, double *hidden,
                double *attn, double *pooled);

#endif
