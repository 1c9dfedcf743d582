/* fuzz_loader.c — the model-file loader on arbitrary bytes: a safetensors
 * file, optionally followed by "@@config.json@@\n" and a config.json. Parses,
 * recognises, maps, infers and checks exactly as tf_encoder_load does, and
 * when all of that passes, builds the encoder and fills it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "checkpoint.h"
#include "encoder.h"
#include "hf_config.h"

static const char marker[] = "@@config.json@@\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t weights = size;
    const size_t m = sizeof marker - 1;
    for (size_t i = 0; i + m <= size; i++)
        if (memcmp(data + i, marker, m) == 0) {
            weights = i;
            break;
        }
    tf__hf_config json;
    const int has_json = weights < size;
    if (has_json &&
        tf__hf_config_parse(&json, (const char *)data + weights + m, size - weights - m,
                            "config.json") != TF_OK)
        return 0;
    tf__checkpoint ck;
    memset(&ck, 0, sizeof ck);
    if (tf__st_parse(&ck.file, data, weights, "fuzz") != TF_OK)
        return 0;
    tf_load_options opts;
    tf_load_options_init(&opts);
    opts.n_heads = data[0] % 4 ? data[0] % 4 : 0; /* sometimes none: the error path */
    opts.activation = -1 + (int)(size % 4);
    if (tf__checkpoint_understand(&ck, has_json ? &json : NULL, &opts) != TF_OK)
        return 0;
    tf_encoder *enc;
    if (tf__encoder_new(&ck.cfg, &enc) == TF_OK) {
        tf__checkpoint_fill(&ck, &enc->weights);
        tf_encoder_destroy(enc);
    }
    tf__checkpoint_close(&ck);
    return 0;
}
