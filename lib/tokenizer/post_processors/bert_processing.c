/* bert_processing.c — tokenizers' BertProcessing (processors/bert.rs):
 * [CLS] $A [SEP] and [CLS] $A [SEP] $B:1 [SEP]:1. */
#include "error.h"
#include "post_processors.h"

static tf_status read(tf_template *single, tf_template *pair, const tf_fields *f)
{
    int32_t cls = 0, sep = 0;
    tf_status s = tf_post_token_pair(f, "sep", &sep);
    s = s ? s : tf_post_token_pair(f, "cls", &cls);
    tf_template_destroy(single);
    tf_template_destroy(pair);
    if (s == TF_OK && !tf_template_cls_sep(single, pair, cls, sep, 0))
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", f->file);
    return s;
}

const tf_post_processor_type tf_bert_processor = {"BertProcessing", 1, read};
