/* byte_level_processor.c — tokenizers' ByteLevel post-processor
 * (pre_tokenizers/byte_level.rs): it adds no tokens, only trims offsets
 * (not applied, tfenc.h); its fields are checked. */
#include "post_processors.h"

static tf_status read(tf__template *single, tf__template *pair, const tf__fields *f)
{
    (void)single, (void)pair;
    tf_status s = tf__post_flag(f, "add_prefix_space", 0);
    s = s ? s : tf__post_flag(f, "trim_offsets", 0);
    return s ? s : tf__post_flag(f, "use_regex", 1);
}

const tf__post_processor_type tf__byte_level_processor = {"ByteLevel", 0, read};
