/* roberta_processing.c — tokenizers' RobertaProcessing
 * (processors/roberta.rs): <s> $A </s> and <s> $A </s> </s> $B </s>, all
 * of type 0; its trim_offsets and add_prefix_space are checked, not
 * applied (tfenc.h). */
#include "error.h"
#include "post_processors.h"

static tf_status read(tf_template *single, tf_template *pair, const tf_fields *f)
{
    int32_t cls = 0, sep = 0;
    tf_status s = tf_post_token_pair(f, "sep", &sep);
    s = s ? s : tf_post_token_pair(f, "cls", &cls);
    s = s ? s : tf_post_flag(f, "trim_offsets", 0);
    s = s ? s : tf_post_flag(f, "add_prefix_space", 0);
    tf_template_destroy(single);
    tf_template_destroy(pair);
    if (s == TF_OK && !tf_template_cls_sep(single, pair, cls, sep, 1))
        s = tf_fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate the template", f->file);
    return s;
}

const tf_post_processor_type tf_roberta_processor = {"RobertaProcessing", 1, read};
