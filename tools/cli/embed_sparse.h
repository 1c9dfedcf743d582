/* embed_sparse.h — `tfenc embed --sparse`: a SPLADE folder's sparse vectors
 * (tf_pipeline_embed_sparse), one JSON line a text. embed.c parses the
 * command line and hands the texts over. */
#ifndef TFENC_EMBED_SPARSE_H
#define TFENC_EMBED_SPARSE_H

#include <stddef.h>
#include <stdint.h>

typedef struct embed_sparse_options {
    const char *model;        /* the folder */
    const char *const *texts; /* [n] */
    size_t n;
    const char *prompt_name; /* --prompt-name, or NULL */
    int32_t batch_size;      /* texts per forward call */
    int32_t threads;         /* 0: one per core */
    int32_t max_length;      /* --max-length, 0: the folder's */
    int32_t is_query;        /* --query: a Router's query route */
    int32_t max_active_dims; /* --max-active-dims, 0: every non-zero value */
    int32_t decode_tokens;   /* --decode-tokens: each index's token too */
    const char *out;         /* --out FILE, NULL: stdout */
} embed_sparse_options;

/* Runs it: 0, or an exit status after a message. */
int embed_sparse_run(const embed_sparse_options *o);

#endif
