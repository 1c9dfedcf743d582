/* embed_tokens.h — `tfenc embed --multi-vector`: every token's vector of
 * each text (tf_pipeline_embed_tokens): a PyLate (ColBERT) folder's, or an
 * embedding folder's last hidden state; one JSON line a text. embed.c
 * parses the command line and hands the texts over. */
#ifndef TFENC_EMBED_TOKENS_H
#define TFENC_EMBED_TOKENS_H

#include <stddef.h>
#include <stdint.h>

typedef struct embed_tokens_options {
    const char *model;        /* the folder */
    const char *const *texts; /* [n] */
    size_t n;
    const char *prompt_name; /* --prompt-name, or NULL */
    int32_t batch_size;      /* texts per forward call */
    int32_t threads;         /* 0: one per core */
    int32_t max_length;      /* --max-length, 0: the folder's */
    int32_t is_query;        /* --query: PyLate's queries (prefix, [MASK] expansion) */
    int32_t normalize;       /* --normalize: unit rows (a multi-vector folder's always are) */
    int32_t precision;       /* --precision: a tf_precision */
    const char
        *calibration; /* --calibration FILE.npy: int8 / uint8 ranges, NULL: all texts' rows */
    const char *out;  /* --out FILE, NULL: stdout */
} embed_tokens_options;

/* Runs it: 0, or an exit status after a message. */
int embed_tokens_run(const embed_tokens_options *o);

#endif
