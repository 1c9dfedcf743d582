/* tokenizer.c — the tf_tokenizer handle: what loading asks of it
 * (normalising an added token), freeing it, and its lookups. */
#include "tokenizer.h"

#include <string.h>

#include "alloc.h"
#include "error.h"

/* ---- Loading ---------------------------------------------------------------------- */

tf_status tf__tokenizer_set_model(tf_tokenizer *tok, const tf__tokenizer_model *model,
                                  const char *what)
{
    tok->model = model;
    tok->model_state = tf__calloc(1, model->state_size);
    return tok->model_state ? TF_OK
                            : tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the model", what);
}

tf_status tf__tokenizer_normalize_chars(const tf_tokenizer *tok, tf__chars *c, const char *what)
{
    tf__chars next = {0};
    tf_status s = TF_OK;
    for (size_t k = 0; k < tok->normalizers.n && s == TF_OK; k++) {
        next.n = 0;
        s = tf__normalize(&next, c, &tok->normalizers.v[k], what);
        const tf__chars t = *c;
        *c = next;
        next = t;
    }
    tf__free(next.v);
    return s;
}

void tf_tokenizer_destroy(tf_tokenizer *tok)
{
    if (!tok)
        return;
    tf__vocab_destroy(&tok->vocab);
    if (tok->model && tok->model->destroy && tok->model_state)
        tok->model->destroy(tok->model_state);
    tf__free(tok->model_state);
    tf__added_tokens_destroy(&tok->added);
    tf__stages_destroy(&tok->normalizers);
    tf__stages_destroy(&tok->pretokenizers);
    tf__stages_destroy(&tok->decoders);
    tf__template_destroy(&tok->single);
    tf__template_destroy(&tok->pair);
    tf__free(tok);
}

/* ---- Lookups ------------------------------------------------------------------------- */

int32_t tf_tokenizer_model_max_length(const tf_tokenizer *tok)
{
    return tok ? tok->model_max_length : 0;
}

int32_t tf_tokenizer_vocab_size(const tf_tokenizer *tok)
{
    if (!tok)
        return 0;
    int32_t n = tok->vocab.size;
    for (size_t k = 0; k < tok->added.n; k++)
        n = tok->added.v[k].id >= n ? tok->added.v[k].id + 1 : n;
    return n;
}

const char *tf_tokenizer_id_to_token(const tf_tokenizer *tok, int32_t id)
{
    if (!tok)
        return NULL;
    const tf__added_token *t = tf__added_find_id(&tok->added, id);
    if (t)
        return t->content;
    return id >= 0 && id < tok->vocab.size ? tf__vocab_token(&tok->vocab, id) : NULL;
}

int32_t tf_tokenizer_token_to_id(const tf_tokenizer *tok, const char *token)
{
    if (!tok || !token)
        return -1;
    const tf__added_token *t = tf__added_find(&tok->added, token, strlen(token));
    return t ? t->id : tf__vocab_find(&tok->vocab, token, strlen(token));
}
