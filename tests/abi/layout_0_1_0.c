/* layout_0_1_0.c — the growing structs' fields as 0.1.0's tfenc.h laid
 * them out (compiled with tests/abi/0.1.0 as the only include directory). */
#include <stddef.h>

#include "tfenc.h"
#include "fields.h"

const abi_field abi_fields_0_1_0[] = {TF_ABI_FIELDS_0_1_0(TF_ABI_FIELD)};
const size_t abi_n_fields_0_1_0 = sizeof abi_fields_0_1_0 / sizeof *abi_fields_0_1_0;
