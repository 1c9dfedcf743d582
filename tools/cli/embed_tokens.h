/* embed_tokens.h — `tfenc embed --multi-vector`: every token's vector of
 * each text (tf_pipeline_embed_tokens): a PyLate (ColBERT) folder's, or an
 * embedding folder's last hidden state; one JSON line a text. embed.c
 * parses the command line and hands the texts over. */
#ifndef TFENC_EMBED_TOKENS_H
#define TFENC_EMBED_TOKENS_H

#include <stdint.h>

#include "embed_job.h"

typedef struct embed_tokens_options {
    embed_job job;           /* the texts, the run (is_query: PyLate's queries, their prefix
                                and [MASK] expansion), --out */
    int32_t normalize;       /* --normalize: unit rows (a multi-vector folder's always are) */
    int32_t precision;       /* --precision: a tf_precision */
    const char *calibration; /* --calibration FILE.npy: int8 / uint8 ranges, NULL: all texts'
                                rows */
} embed_tokens_options;

/* Runs it: 0, or an exit status after a message. */
int embed_tokens_run(const embed_tokens_options *o);

#endif
