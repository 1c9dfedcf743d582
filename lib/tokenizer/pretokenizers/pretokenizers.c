/* pretokenizers.c — the one table of pre-tokenizers, and running one.
 *
 * Adding a pre-tokenizer (say tokenizers' UnicodeScripts, "UnicodeScripts"
 * in its "type"):
 *  1. write pretokenizers/<type>.c, after tokenizers' pre_tokenizers/
 *     (named at its top), defining `const tf__pretokenizer_type
 *     tf__<type>_pretokenizer` (pretokenizers.h and stages.h say what each
 *     field is): its state, a read that reads and checks every field
 *     tokenizers reads, apply (most are a tf__split_pieces), destroy;
 *  2. add its line to TF_PRETOKENIZERS below and the file to
 *     tokenizer/meson.build;
 *  3. a fixture and the tests that read it (docs/adding.md).
 * Nothing else names a pre-tokenizer: tokenizer.json's "type" finds its
 * row here (a "Sequence" is a list of them), and the tokenizer calls the
 * row. */
#include "pretokenizers.h"

#include <string.h>

#include "error.h"

#define TF_PRETOKENIZERS(ROW) /* the table: a line per type, the row its file defines */ \
    ROW(tf__bert_pretokenizer)                                                           \
    ROW(tf__byte_level_pretokenizer)                                                     \
    ROW(tf__whitespace_pretokenizer)                                                     \
    ROW(tf__whitespace_split_pretokenizer)                                               \
    ROW(tf__punctuation_pretokenizer)                                                    \
    ROW(tf__digits_pretokenizer)                                                         \
    ROW(tf__split_pretokenizer)                                                          \
    ROW(tf__metaspace_pretokenizer)                                                      \
    /* (the table ends here) */

#define DECLARE_ROW(row) extern const tf__pretokenizer_type row;
TF_PRETOKENIZERS(DECLARE_ROW)
#define ROW_ADDRESS(row) &(row),
static const tf__pretokenizer_type *const pretokenizers[] = {TF_PRETOKENIZERS(ROW_ADDRESS)};
enum { N_PRETOKENIZERS = sizeof pretokenizers / sizeof pretokenizers[0] };

const tf__stage_type *tf__pretokenizer_find(const char *name)
{
    for (int i = 0; i < N_PRETOKENIZERS; i++)
        if (strcmp(pretokenizers[i]->stage.name, name) == 0)
            return &pretokenizers[i]->stage;
    return NULL;
}

/* The pre-tokenizer row of stage p (its first member is p's type). */
static const tf__pretokenizer_type *row_of(const tf__stage *p)
{
    return (const tf__pretokenizer_type *)p->type;
}

int tf__pretokenizer_whitespace_cuts(const tf__stage *p)
{
    return row_of(p)->whitespace_cuts;
}

tf_status tf__pretokenizer_no_memory(const char *what)
{
    return tf__fail(TF_ERR_OUT_OF_MEMORY, "%s: cannot allocate", what);
}

tf_status tf__pre_tokenize(tf__chars *out, const tf__chars *in, const tf__stage *p,
                           const char *what)
{
    if (!tf__chars_reserve_output(out, in))
        return tf__pretokenizer_no_memory(what);
    return row_of(p)->apply(out, in, p->state, what);
}
