/* tokenizer_files.h — the readers of each tokenizer file, which
 * tokenizer_load.c puts together: a tokenizer.json (json_tokenizer.c),
 * BERT's vocab.txt (vocab_txt.c), CLIP's vocab.json and merges.txt
 * (clip_files.c), SigLIP's spiece.model (siglip_files.c), and the tokens a model folder's
 * tokenizer_config.json adds (folder_tokens.c). Each fills a tf_tokenizer
 * (zeroed by the caller) and leaves it for tf_tokenizer_destroy on failure
 * too. */
#ifndef TF_TOKENIZER_FILES_H
#define TF_TOKENIZER_FILES_H

#include "folder_config.h"
#include "tfenc.h"
#include "tokenizer.h"

#define TF_VOCAB_MAX_BYTES (256u << 20) /* of a vocab.txt or tokenizer.json */

/* Loads a tokenizer.json into tok. */
tf_status tf__tokenizer_json_load(tf_tokenizer *tok, const char *path,
                                  const tf_tokenizer_options *o);

/* BertTokenizerFast's stages over the vocab.txt at path, into tok, with
 * the options o and a folder's special tokens roles[TF_ROLE_COUNT] (all
 * NULL for none). */
tf_status tf__vocab_txt_load(tf_tokenizer *tok, const char *path, const tf_tokenizer_options *o,
                             const tf__folder_token *roles);

/* CLIPTokenizerFast's tokenizer (transformers' CLIPConverter) over CLIP's
 * vocab.json and merges.txt, into tok (clip_files.c); fc names the special
 * tokens (all zero: CLIPTokenizer's). */
tf_status tf__clip_files_load(tf_tokenizer *tok, const char *vocab_path, const char *merges_path,
                              const tf_tokenizer_options *o, const tf__folder_config *fc);

/* SiglipTokenizer's tokenizer over SentencePiece's spiece.model at path,
 * into tok (siglip_files.c); fc names the special tokens and do_lower_case
 * (all zero: SiglipTokenizer's). */
tf_status tf__siglip_files_load(tf_tokenizer *tok, const char *path, const tf_tokenizer_options *o,
                                const tf__folder_config *fc);

/* Adds to tok what PreTrainedTokenizerFast.__init__ adds from the folder's
 * files fc; `what` names the folder in messages. */
tf_status tf__folder_tokens_add(tf_tokenizer *tok, const tf__folder_config *fc, const char *what);

#endif
