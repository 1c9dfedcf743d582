/* kind_text.h — a folder kind (tf_pipeline_kind) as messages name it. */
#ifndef TFENC_KIND_TEXT_H
#define TFENC_KIND_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The kind's name with its article ("an embedding", "a classifier") in out. */
void kind_text(char *out, size_t size, int32_t kind);

#endif
