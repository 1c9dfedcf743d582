/* dump.h — golden dumps of every traced tensor, and comparing them. */
#ifndef TFENC_DUMP_H
#define TFENC_DUMP_H

#include "recording.h"

/* Writes each event as DIR/<name>.npy (float32) and DIR/index.json listing
 * them in order with their shapes; `tokens` (n_tokens of them, whole) and
 * `description` (model and text) go into the index. 0, or -1 after a
 * message on stderr. */
int dump_write(const char *dir, const recording *rec, const char *const *tokens, int n_tokens,
               const char *description);

/* Compares each event with DIR/<name>.npy where present: prints max abs and
 * relative error per tensor, and the first tensor over tol. 0 when all
 * are within tol, 1 when one is not (or none could be compared), -1 on
 * error. */
int dump_compare(const char *dir, const recording *rec, double tol);

#endif
