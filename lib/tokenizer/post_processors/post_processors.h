/* post_processors.h — what tokenizers' post-processors (processors/) make of
 * a tokenized text or pair: here, the tokenizer's two templates
 * (post_process.h) that add the special tokens and type ids. Each type is
 * one file here defining one row of the table in post_processors.c, read
 * from the fields of its object (component_fields.h); a "Sequence" is a
 * list of them, of which at most one may add special tokens here. */
#ifndef TF_POST_PROCESSORS_H
#define TF_POST_PROCESSORS_H

#include <stdint.h>

#include "component_fields.h"
#include "post_process.h"
#include "tfenc.h"

/* A row of the table. */
typedef struct tf__post_processor_type {
    const char *name;    /* tokenizer.json's "type" */
    int32_t adds_tokens; /* whether it adds special tokens (a Sequence may hold one such) */
    /* Reads and checks every field of its object (each as tokenizers' serde
     * reads it: TF_ERR_FORMAT naming the field and its value), and makes
     * the templates for a text (*single) and a pair (*pair), or leaves them
     * when it adds no tokens. */
    tf_status (*read)(tf__template *single, tf__template *pair, const tf__fields *f);
} tf__post_processor_type;

/* The row named name (tokenizer.json's post_processor "type"), or NULL. */
const tf__post_processor_type *tf__post_processor_find(const char *name);

/* A bool field, required unless optional (then it may be absent, not
 * null); checked, not applied (ByteLevel's and RobertaProcessing's act
 * only through trim_offsets, which tfenc.h says is not applied). */
tf_status tf__post_flag(const tf__fields *f, const char *key, int optional);

/* [token, id] (BertProcessing's and RobertaProcessing's sep and cls, a
 * (String, u32)): its id into *id. */
tf_status tf__post_token_pair(const tf__fields *f, const char *key, int32_t *id);

#endif
