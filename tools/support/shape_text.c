/* shape_text.c — shapes as text. */
#include "shape_text.h"

#include <stdio.h>

shape_text shape_text_of(const int64_t *dims, int32_t rank)
{
    shape_text s;
    size_t used = (size_t)snprintf(s.text, sizeof s.text, "[");
    for (int32_t d = 0; d < rank && d < TF_MAX_RANK; d++)
        used += (size_t)snprintf(s.text + used, sizeof s.text - used, d ? ", %lld" : "%lld",
                                 (long long)dims[d]);
    snprintf(s.text + used, sizeof s.text - used, "]");
    return s;
}
