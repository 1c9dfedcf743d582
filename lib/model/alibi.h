/* alibi.h — ALiBi's per-head slopes (Press et al., "Train Short, Test
 * Long"), as JinaBERT's _get_alibi_head_slopes computes them. Attention
 * adds -m_h |i - j| to score (i, j) on the fly (attention.c). */
#ifndef TF_ALIBI_H
#define TF_ALIBI_H

#include <stddef.h>

/* slopes (H) = m_0 .. m_{H-1}: 2^(-8 (h + 1) / H) when H is a power of
 * two; otherwise those of the largest power of two P below H, then every
 * other slope of 2P's (the odd-numbered ones) for the remaining heads. */
void tf__alibi_slopes(float *slopes, size_t H);

#endif
