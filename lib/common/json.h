/* json.h — JSON text checked before and after it is parsed (json_checked.h
 * says what is checked), failures as the library's errors. Parsing is
 * cJSON's. */
#ifndef TF_JSON_H
#define TF_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "json_checked.h"
#include "tfenc.h"

/* Parses len bytes of text (not NUL-terminated) into *out. On failure
 * (TF_ERR_FORMAT, or TF_ERR_OUT_OF_MEMORY) the message starts with label
 * and says what is wrong and where: the byte, or for a duplicate key the
 * key and the path of its object ('a'[2]'b'). */
tf_status tf__json_parse(const char *text, size_t len, int max_depth, const char *label,
                         cJSON **out);

#endif
