/* byte_level_processor.c — tokenizers' ByteLevel post-processor
 * (pre_tokenizers/byte_level.rs): it adds no tokens, only trims offsets
 * (not applied, tfenc.h); its fields are checked. */
#include "post_processors.h"

static tf_status read(tf_template *single, tf_template *pair, const tf_fields *f)
{
    (void)single, (void)pair;
    tf_status s = tf_post_flag(f, "add_prefix_space", 0);
    s = s ? s : tf_post_flag(f, "trim_offsets", 0);
    return s ? s : tf_post_flag(f, "use_regex", 1);
}

const tf_post_processor_type tf_byte_level_processor = {"ByteLevel", 0, read};
