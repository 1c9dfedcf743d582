/* pipeline_tokens.c — what a caller that batches inputs itself (tfenc
 * serve) asks of a pipeline before running them: its tokenizer, an input's
 * token count uncut, and a head's logits before any activation. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "pipeline.h"

const tf_tokenizer *tf_pipeline_tokenizer(const tf_pipeline *p)
{
    return p ? p->tok : NULL;
}

/* The text of prompt_name as tf_pipeline_args.prompt_name chooses it
 * (NULL: the default, "": none); heads have none. */
static tf_status prompt_text(const tf_pipeline *p, const char *prompt_name, const char **text)
{
    *text = "";
    if (p->kind != TF_PIPELINE_EMBEDDING)
        return TF_OK;
    const char *name = prompt_name ? prompt_name : tf_pipeline_default_prompt_name(p);
    if (!name || !name[0])
        return TF_OK;
    if (!(*text = tf_pipeline_prompt(p, name)))
        return tf__fail(TF_ERR_INVALID_ARGUMENT,
                        "prompt_name \"%s\": the folder has no such "
                        "prompt (config_sentence_transformers.json has %zu)",
                        name, tf_pipeline_prompt_count(p));
    return TF_OK;
}

tf_status tf_pipeline_count_tokens(const tf_pipeline *p, const char *text, const char *pair,
                                   const char *prompt_name, int32_t *tokens)
{
    if (!p || !text || !tokens)
        return tf__fail(TF_ERR_INVALID_ARGUMENT, "%s is NULL",
                        !p          ? "pipeline"
                            : !text ? "text"
                                    : "tokens");
    if (!p->tok) /* an image pipeline */
        return tf__pipeline_wrong_kind(p, "tf_pipeline_count_tokens");
    const char *prompt;
    tf_status s = prompt_text(p, prompt_name, &prompt);
    if (s)
        return s;
    const size_t prompt_len = strlen(prompt), text_len = strlen(text);
    char *joined = tf__malloc(prompt_len + text_len + 1); /* the prompt, then the text */
    if (!joined)
        return tf__fail(TF_ERR_OUT_OF_MEMORY, "cannot allocate a text of %zu bytes",
                        prompt_len + text_len);
    /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): the text's NUL comes next */
    memcpy(joined, prompt, prompt_len);
    memcpy(joined + prompt_len, text, text_len + 1);
    tf_encoding *e;
    s = tf_tokenizer_encode(p->probe, joined, prompt_len + text_len, pair, pair ? strlen(pair) : 0,
                            &e);
    tf__free(joined);
    if (s == TF_OK) {
        *tokens = tf_encoding_lengths(e)[0];
        tf_encoding_destroy(e);
    }
    return s;
}

static tf__head_activation no_activation(const tf_pipeline *p)
{
    (void)p;
    return TF_HEAD_LOGITS;
}

tf_status tf_pipeline_logits(const tf_pipeline *p, const tf_pipeline_args *args)
{
    return tf__pipeline_run_head(p, args, 0, "tf_pipeline_logits", no_activation);
}
