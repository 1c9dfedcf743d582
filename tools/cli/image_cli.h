/* image_cli.h — `tfenc embed --image FILE...` and `tfenc classify --image
 * FILE...`: image files (JPEG, PNG, WebP) through an image pipeline
 * (tf_pipeline_embed_images, tf_pipeline_classify_images), read a batch at
 * a time; a file the library refuses is named by its path. */
#ifndef TFENC_IMAGE_CLI_H
#define TFENC_IMAGE_CLI_H

#include <stddef.h>
#include <stdint.h>

/* 1 when argv (a subcommand's) holds --image: the subcommand runs the
 * image path below instead of its own. */
int image_cli_wanted(int argc, char **argv);

/* The bytes of the file path into *data (malloc'ed), *size: 0, or
 * CLI_FAILED after "tfenc COMMAND: PATH: cannot read: why". */
int image_cli_read(const char *command, const char *path, uint8_t **data, size_t *size);

/* The subcommands with --image: an exit status. */
int image_cli_embed(int argc, char **argv);
int image_cli_classify(int argc, char **argv);

#endif
