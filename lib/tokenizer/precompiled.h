/* precompiled.h — SentencePiece's precompiled_charsmap (the normalizer an
 * .model file carries, nmt_nfkc and the like): a double-array trie
 * (darts-clone's units) from UTF-8 keys to offsets into a block of
 * NUL-terminated replacement strings, applied as tokenizers' Precompiled
 * normalizer applies it (normalizers/precompiled.rs over the crate
 * spm_precompiled). */
#ifndef TF_PRECOMPILED_H
#define TF_PRECOMPILED_H

#include <stddef.h>
#include <stdint.h>

#include "chars.h"
#include "tfenc.h"

typedef struct tf_precompiled {
    uint32_t *trie;     /* [n_units] the double array */
    size_t n_units;
    char *normalized;   /* [n_normalized] replacements, each ended by a NUL */
    size_t n_normalized;
} tf_precompiled;

/* The charsmap from its base64 text (as tokenizer.json writes it): a
 * little-endian uint32 byte size of the trie, the trie, the replacements
 * (valid UTF-8). A malformed one is TF_ERR_FORMAT naming `what`. */
tf_status tf_precompiled_load(tf_precompiled *p, const char *base64, const char *what);
void tf_precompiled_destroy(tf_precompiled *p);

/* out = in normalised: each extended grapheme cluster of fewer than 6
 * bytes that the trie has a key at the start of is replaced whole (by the
 * first, shortest key's string); the characters of the others one by one
 * likewise; a replacement spans the bytes of what it replaced. 0 when out
 * of memory. */
int tf_precompiled_normalize(tf_chars *out, const tf_chars *in, const tf_precompiled *p);

#endif
