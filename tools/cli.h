/* cli.h — the subcommands of the tfenc program. */
#ifndef TFENC_CLI_H
#define TFENC_CLI_H

/* tfenc explain [options]: the tutorial's walkthrough, step by step. */
int tfenc_explain(int argc, char **argv);

/* tfenc info FILE_OR_DIR: what a checkpoint holds and how it maps. */
int tfenc_info(int argc, char **argv);

#endif
