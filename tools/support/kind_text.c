/* kind_text.c — a folder kind with its article. */
#include "kind_text.h"

#include <stdio.h>
#include <string.h>

#include "tfenc.h"

void kind_text(char *out, size_t size, int32_t kind)
{
    const char *name = tf_pipeline_kind_name(kind);
    if (name)
        snprintf(out, size, "%s %s", strchr("aeiou", name[0]) ? "an" : "a", name);
    else
        snprintf(out, size, "a new kind of");
}
