/* tokenizer_load.h — a tokenizer from its files, as a model folder loads
 * it (pipeline/): the folder's tokenizer file, and the tokenizer at a path
 * with what the folder's other files say (folder_config.h). tf_tokenizer_load
 * (tfenc.h) is the same for a caller. */
#ifndef TF_TOKENIZER_LOAD_H
#define TF_TOKENIZER_LOAD_H

#include "folder_config.h"
#include "tfenc.h"

/* The tokenizer file of the folder dir: its tokenizer.json, else its
 * vocab.txt, else CLIP's vocab.json (with merges.txt beside it, where
 * tokenizer_config.json's tokenizer_class is CLIPTokenizer or
 * CLIPTokenizerFast), else SigLIP's spiece.model (tokenizer_class
 * SiglipTokenizer), allocated into *path (tf__free it); *json 0 for a
 * vocab.txt, else 1 (a tokenizer.json, or files read as the tokenizer.json
 * transformers' converter makes of them). None is TF_ERR_IO "<dir>: not a
 * regular file: it is a directory, with neither tokenizer.json nor
 * vocab.txt (...)"; CLIP's or SigLIP's files of another tokenizer_class are
 * TF_ERR_FORMAT naming it; a link to nothing is named (tf__file_probe). */
tf_status tf__tokenizer_folder_file(const char *dir, char **path, int *json);

/* Loads the tokenizer at path (a tokenizer.json, a vocab.txt, CLIP's
 * vocab.json with merges.txt beside it, SigLIP's spiece.model, or a model
 * folder's, tf__tokenizer_folder_file) with the options as given,
 * then what the folder's files say (fc, tf__folder_config_read's; all zero
 * for none): a vocab.txt's special tokens named by fc where the options
 * name none, the tokens transformers adds (added_tokens_decoder, then the
 * special tokens the tokenizer lacks), the pad token and model_max_length
 * (o->max_length over it). */
tf_status tf__tokenizer_load_with_config(const char *path, const tf_tokenizer_options *o,
                                         const tf__folder_config *fc, tf_tokenizer **out);

#endif
