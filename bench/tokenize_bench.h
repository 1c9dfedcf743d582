/* tokenize_bench.h — tfenc-bench --tokenize: MB/s of text through a
 * tokenizer on one thread. */
#ifndef TFENC_BENCH_TOKENIZE_H
#define TFENC_BENCH_TOKENIZE_H

/* With path "all": every algorithm's committed fixture (the table in
 * tokenize_bench.c) on the seed article and on the mixed-script text, or
 * on text_file alone when given. Else the tokenizer at path (a
 * tokenizer.json, a vocab.txt or a model folder) on text_file, or on
 * English-like text made from its vocabulary. Each text is one input,
 * encoded once to warm up, then timed at least 3 times and for at least
 * min_time seconds. Returns the process's exit status. */
int bench_tokenize(const char *path, const char *text_file, double min_time);

#endif
