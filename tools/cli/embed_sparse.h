/* embed_sparse.h — `tfenc embed --sparse`: a SPLADE folder's sparse vectors
 * (tf_pipeline_embed_sparse), one JSON line a text. embed.c parses the
 * command line and hands the texts over. */
#ifndef TFENC_EMBED_SPARSE_H
#define TFENC_EMBED_SPARSE_H

#include <stdint.h>

#include "embed_job.h"

typedef struct embed_sparse_options {
    embed_job job;           /* the texts, the run, --out */
    int32_t max_active_dims; /* --max-active-dims, 0: every non-zero value */
    int32_t decode_tokens;   /* --decode-tokens: each index's token too */
} embed_sparse_options;

/* Runs it: 0, or an exit status after a message. */
int embed_sparse_run(const embed_sparse_options *o);

#endif
