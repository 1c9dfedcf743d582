/* roberta_processing.c — tokenizers' RobertaProcessing
 * (processors/roberta.rs): <s> $A </s> and <s> $A </s> </s> $B </s>, all
 * of type 0; its trim_offsets and add_prefix_space are checked, not
 * applied (tfenc.h). */
#include "error.h"
#include "post_processors.h"

static tf_status read(tf__template *single, tf__template *pair, const tf__fields *f)
{
    int32_t cls = 0, sep = 0;
    tf_status s = tf__post_token_pair(f, "sep", &sep);
    s = s ? s : tf__post_token_pair(f, "cls", &cls);
    s = s ? s : tf__post_flag(f, "trim_offsets", 0);
    s = s ? s : tf__post_flag(f, "add_prefix_space", 0);
    tf__template_destroy(single);
    tf__template_destroy(pair);
    if (s == TF_OK && !tf__template_cls_sep(single, pair, cls, sep, 1))
        s = tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", f->file);
    return s;
}

const tf__post_processor_type tf__roberta_processor = {"RobertaProcessing", 1, read};
