/* bert_processing.c — tokenizers' BertProcessing (processors/bert.rs):
 * [CLS] $A [SEP] and [CLS] $A [SEP] $B:1 [SEP]:1. */
#include "error.h"
#include "post_processors.h"

static tf_status read(tf__template *single, tf__template *pair, const tf__fields *f)
{
    int32_t cls = 0, sep = 0;
    tf_status s = tf__post_token_pair(f, "sep", &sep);
    s = s ? s : tf__post_token_pair(f, "cls", &cls);
    tf__template_destroy(single);
    tf__template_destroy(pair);
    if (s == TF_OK && !tf__template_cls_sep(single, pair, cls, sep, 0))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", f->file);
    return s;
}

const tf__post_processor_type tf__bert_processor = {"BertProcessing", 1, read};
