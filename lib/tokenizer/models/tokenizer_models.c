/* tokenizer_models.c — the one table of tokenizer models.
 *
 * Adding a model (say tokenizers' WordLevel, "WordLevel" in model.type):
 *  1. write models/word_level.c, after tokenizers' models/wordlevel/ (named
 *     at its top), defining `const tf__tokenizer_model tf__word_level_model`
 *     (tokenizer_models.h says what each field is): its state, a build that
 *     reads and checks every field tokenizers reads, encode, destroy;
 *  2. add its line to TF_TOKENIZER_MODELS below and the file to
 *     tokenizer/meson.build;
 *  3. a fixture and the tests that read it (docs/adding.md).
 * Nothing else names a model: tokenizer.json's model.type finds its row
 * here, and the tokenizer calls the row. */
#include "tokenizer_models.h"

#include <string.h>

#define TF_TOKENIZER_MODELS(ROW) /* the table: a line per model, the row its file defines */ \
    ROW(tf__wordpiece_model)                                                                 \
    ROW(tf__bpe_model)                                                                       \
    ROW(tf__unigram_model)                                                                   \
    /* (the table ends here) */

#define DECLARE_ROW(row) extern const tf__tokenizer_model row;
TF_TOKENIZER_MODELS(DECLARE_ROW)
#define ROW_ADDRESS(row) &(row),
static const tf__tokenizer_model *const models[] = {TF_TOKENIZER_MODELS(ROW_ADDRESS)};
enum { N_MODELS = sizeof models / sizeof models[0] };

const tf__tokenizer_model *tf__tokenizer_model_find(const char *name)
{
    for (int i = 0; i < N_MODELS; i++)
        if (strcmp(models[i]->name, name) == 0)
            return models[i];
    return NULL;
}
