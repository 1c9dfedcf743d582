/* tokenizer_decode.c — ids (or token strings) back to text through the
 * tokenizer's decoders. */
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "tokenizer.h"

/* The token strings of ids[0..n) into tokens (room for n; *count of them),
 * the special added tokens left out when skip_special. */
static tf_status id_tokens(const tf_tokenizer *tok, const int32_t *ids, size_t n,
                           int32_t skip_special, const char **tokens, size_t *count)
{
    *count = 0;
    for (size_t k = 0; k < n; k++) {
        const tf__added_token *t = tf__added_find_id(&tok->added, ids[k]);
        if (t && t->special && skip_special)
            continue;
        const char *token = tf_tokenizer_id_to_token(tok, ids[k]);
        if (!token)
            return tf__fail(TF_ERR_INVALID_ARGUMENT,
                            "ids[%zu]: %d is not a token (the vocabulary "
                            "and added tokens have %d)",
                            k, (int)ids[k], (int)tf_tokenizer_vocab_size(tok));
        tokens[(*count)++] = token;
    }
    return TF_OK;
}

/* The decoder's text of tokens[0..n) into buf (size bytes) and *len, as
 * tf_tokenizer_decode and _decode_tokens write it. */
static tf_status decode_into(const tf_tokenizer *tok, const char *const *tokens, size_t n,
                             char *buf, size_t size, size_t *len)
{
    size_t text_len = 0;
    char *text = NULL;
    tf_status s = tf__decode_tokens(&text, &text_len, tokens, n, &tok->decoders);
    if (s == TF_OK) {
        *len = text_len;
        if (buf && size <= text_len)
            s = tf__fail(TF_ERR_INVALID_ARGUMENT,
                         "size: the text needs %zu bytes and a NUL, "
                         "got %zu",
                         text_len, size);
        else if (buf)
            memcpy(buf, text, text_len + 1);
    }
    tf__free(text);
    return s;
}

/* The checks tf_tokenizer_decode and _decode_tokens share: items (ids or
 * tokens, called name) [n], buf [size], len, and the decoder. */
static tf_status check_decode(const tf_tokenizer *tok, const void *items, size_t n,
                              const char *name, const char *buf, size_t size, const size_t *len)
{
    if (!tok)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "tokenizer is NULL");
    if (!len)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "len is NULL");
    if (!buf && size)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "buf is NULL but size is not 0");
    if (!items && n)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL but n is not 0", name);
    if (tok->unsupported_decoder[0])
        return tf__fail(TF_ERR_UNSUPPORTED, "decoder: type \"%s\" is not supported",
                        tok->unsupported_decoder);
    return TF_OK;
}

tf_status tf_tokenizer_decode(const tf_tokenizer *tok, const int32_t *ids, size_t n,
                              int32_t skip_special_tokens, char *buf, size_t size, size_t *len)
{
    tf_status s = check_decode(tok, ids, n, "ids", buf, size, len);
    if (s)
        return s;
    if (skip_special_tokens != 0 && skip_special_tokens != 1)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "skip_special_tokens: expected 0 or 1, got %d",
                        (int)skip_special_tokens);
    const char **tokens = tf__malloc((n ? n : 1) * sizeof *tokens); /* [n] */
    if (!tokens)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "decode: cannot allocate %zu tokens", n);
    size_t count = 0;
    s = id_tokens(tok, ids, n, skip_special_tokens, tokens, &count);
    if (s == TF_OK)
        s = decode_into(tok, tokens, count, buf, size, len);
    tf__free(tokens);
    return s;
}

tf_status tf_tokenizer_decode_tokens(const tf_tokenizer *tok, const char *const *tokens, size_t n,
                                     char *buf, size_t size, size_t *len)
{
    tf_status s = check_decode(tok, tokens, n, "tokens", buf, size, len);
    for (size_t k = 0; s == TF_OK && k < n; k++)
        if (!tokens[k])
            s = tf__fail(TF_ERR_INVALID_ARGUMENT, "tokens[%zu] is NULL", k);
    return s ? s : decode_into(tok, tokens, n, buf, size, len);
}
