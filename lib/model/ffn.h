/* ffn.h — the position-wise feed-forward block. */
#ifndef TF_FFN_H
#define TF_FFN_H

#include <stddef.h>

#include "schedule.h"
#include "weights.h"

/* y (N, D) = act(x W_up^T + b_up) W_down^T + b_down, `chunk` rows at a time
 * through hidden (chunk, F), on s's threads. y must not alias x. */
void tf_ffn(const tf_schedule *s, float *y, float *hidden, size_t chunk, const float *x,
            const tf_layer_weights *lw, size_t N, size_t D, size_t F, int activation);

#endif
