/* token_inputs.h — token-id inputs (OpenAI's and TEI's) (a list of ids of the model's
 * own tokenizer, or a list of such lists) run as the text they decode to:
 * a text is accepted only when it tokenizes back to exactly those ids
 * (beside the template's special tokens), so that the forward runs the ids
 * given and no others; ids that do not survive the round trip are refused
 * with 400, naming the first that differs. */
#ifndef SERVE_TOKEN_INPUTS_H
#define SERVE_TOKEN_INPUTS_H

#include "request.h"
#include "tfenc.h"

/* texts[0..q->n) for q->ids (malloc'ed: token_inputs_free); 0, or -1 with *e
 * naming field (the request's inputs, "input" or "inputs"). */
int token_inputs_texts(const tf_pipeline *p, const serve_request *q, const char *field,
                       char ***texts, serve_error *e);
void token_inputs_free(char **texts, size_t n);

#endif
