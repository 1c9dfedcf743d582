/* cli.h — the subcommands of the tfenc program, one file each. Each takes
 * its arguments (argv[0] is the subcommand's name) and returns the exit
 * status: 0, CLI_FAILED or CLI_USAGE (options.h). What it prints goes to
 * stdout, which tfenc.c flushes and checks after it returns. */
#ifndef TFENC_CLI_H
#define TFENC_CLI_H

/* tfenc explain [options]: the tutorial's walkthrough, step by step. */
int tfenc_explain(int argc, char **argv);

/* tfenc explain --worked-example: the tutorial's section 3.3 numbers. */
int tfenc_worked_example(void);

/* tfenc embed --model M [--vocab V] TEXT...: sentence vectors. */
int tfenc_embed(int argc, char **argv);

/* tfenc rerank --model DIR QUERY DOC...: a cross-encoder's scores, best first. */
int tfenc_rerank(int argc, char **argv);

/* tfenc classify --model DIR TEXT...: a classifier's label probabilities. */
int tfenc_classify(int argc, char **argv);

/* tfenc fill-mask --model DIR [--top-k N] TEXT...: a masked-LM's best
 * tokens for each mask token. */
int tfenc_fill_mask(int argc, char **argv);

/* tfenc serve --model DIR: an HTTP server of embeddings, reranking and
 * classification (tools/serve/; in a build without it, -Dserve=false,
 * serve_absent.c says so). */
int tfenc_serve(int argc, char **argv);

/* tfenc tokenize --tokenizer FILE_OR_DIR [--pair TEXT] [--json] [--file F]
 * [--] TEXT...: ids (or, --json, ids, tokens, offsets, type ids) a text. */
int tfenc_tokenize(int argc, char **argv);

/* tfenc create OUT.safetensors [sizes]: a randomly initialised model file. */
int tfenc_create(int argc, char **argv);

/* tfenc info FILE_OR_DIR: what a checkpoint holds and how it maps. */
int tfenc_info(int argc, char **argv);

#endif
