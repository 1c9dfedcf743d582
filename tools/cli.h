/* cli.h — the subcommands of the tfenc program. */
#ifndef TFENC_CLI_H
#define TFENC_CLI_H

/* tfenc explain [options]: the tutorial's walkthrough, step by step. */
int tfenc_explain(int argc, char **argv);

/* tfenc explain --worked-example: the tutorial's section 3.3 numbers. */
int tfenc_worked_example(void);

/* tfenc embed --model M [--vocab V] TEXT...: sentence vectors. */
int tfenc_embed(int argc, char **argv);

/* tfenc create OUT.safetensors [sizes]: a randomly initialised model file. */
int tfenc_create(int argc, char **argv);

/* tfenc info FILE_OR_DIR: what a checkpoint holds and how it maps. */
int tfenc_info(int argc, char **argv);

#include "tfenc.h"

/* If flag is one of --n-heads, --activation, --norm-first, --eps, sets it in
 * *o from value and returns 1; returns -1 (after a message) for a bad
 * value, 0 for another flag. */
int parse_load_option(const char *command, const char *flag, const char *value,
                      tf_load_options *o);

/* The names of tf_activation and tf_position_kind values. */
extern const char *const tfenc_activation_names[3];
extern const char *const tfenc_position_names[3];

#endif
