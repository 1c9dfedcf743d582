/* token_inputs.c — token ids to the text that tokenizes back to them. */
#include "token_inputs.h"

#include <stdint.h>
#include <stdlib.h>

#include "utf8.h"

/* The text of ids[0..n) (tf_tokenizer_decode, specials kept), malloc'ed,
 * and its length. */
static int decode(const tf_tokenizer *tok, const int32_t *ids, size_t n, const char *field,
                  size_t i, char **out, size_t *len_out, serve_error *e)
{
    size_t len = 0;
    *out = NULL;
    if (tf_tokenizer_decode(tok, ids, n, 0, NULL, 0, &len) != TF_OK)
        return serve_error_set(e, 400, field, "%s[%zu]: %s", field, i, tf_last_error());
    if (!(*out = malloc(len + 1)))
        return serve_error_set(e, 500, "", "out of memory for a text of %zu bytes", len);
    if (tf_tokenizer_decode(tok, ids, n, 0, *out, len + 1, &len) != TF_OK)
        return serve_error_set(e, 400, field, "%s[%zu]: %s", field, i, tf_last_error());
    *len_out = len;
    return 0;
}

/* 0 when text tokenizes to ids[0..n) beside the template's specials (the
 * tokens with no bytes of the text): all of them, or as many as the
 * limit lets through when the text is cut. */
static int round_trip(const tf_tokenizer *tok, const char *text, size_t len, const int32_t *ids,
                      size_t n, int32_t limit, const char *field, size_t i, serve_error *e)
{
    tf_encoding *enc;
    if (tf_tokenizer_encode(tok, text, len, NULL, 0, &enc) != TF_OK)
        return serve_error_set(e, 400, field, "%s[%zu]: %s", field, i, tf_last_error());
    const int32_t T = tf_encoding_lengths(enc)[0];
    const int32_t *got = tf_encoding_ids(enc);
    const int64_t *offsets = tf_encoding_offsets(enc);           /* [1, T, 2] */
    const int quoted = tf__utf8_prefix(text, SERVE_QUOTE_BYTES); /* the text's bytes shown */
    size_t k = 0;
    int rc = 0;
    for (int32_t t = 0; t < T && rc == 0; t++) {
        if (offsets[2 * t] == offsets[2 * t + 1])
            continue; /* [CLS], [SEP]: the template's */
        if (k == n)
            rc = serve_error_set(e, 400, field,
                                 "%s[%zu]: the text of these %zu ids "
                                 "(\"%.*s\") tokenizes to more ids: send the text",
                                 field, i, n, quoted, text);
        else if (got[t] != ids[k])
            rc = serve_error_set(e, 400, field,
                                 "%s[%zu][%zu]: id %d does not come back "
                                 "from the ids' text (\"%.*s\"), which tokenizes to %d there: "
                                 "these are not the ids the model's tokenizer makes of any "
                                 "text; send the text",
                                 field, i, k, (int)ids[k], quoted, text, (int)got[t]);
        k++;
    }
    if (rc == 0 && k < n && T < limit) /* not cut, and short of ids */
        rc = serve_error_set(e, 400, field,
                             "%s[%zu]: %zu ids, but their text (\"%.*s\") "
                             "tokenizes to %zu; send the text",
                             field, i, n, quoted, text, k);
    tf_encoding_destroy(enc);
    return rc;
}

int token_inputs_texts(const tf_pipeline *p, const serve_request *q, const char *field,
                       char ***texts, serve_error *e)
{
    const tf_tokenizer *tok = tf_pipeline_tokenizer(p);
    const int32_t limit = tf_pipeline_max_seq_length(p);
    *texts = calloc(q->n, sizeof **texts);
    if (!*texts)
        return serve_error_set(e, 500, "", "out of memory for %zu inputs", q->n);
    for (size_t i = 0; i < q->n; i++) {
        size_t len = 0;
        if (decode(tok, q->ids[i], q->id_counts[i], field, i, &(*texts)[i], &len, e))
            return -1;
        if (round_trip(tok, (*texts)[i], len, q->ids[i], q->id_counts[i], limit, field, i, e))
            return -1;
    }
    return 0;
}

void token_inputs_free(char **texts, size_t n)
{
    for (size_t i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
}
