/* version.c — the version of the library actually loaded. */
#include "tfenc.h"

#define TF_STR_(x) #x
#define TF_STR(x) TF_STR_(x)

unsigned tf_version(void)
{
    return TFENC_VERSION_NUMBER;
}

const char *tf_version_string(void)
{
    return TF_STR(TFENC_VERSION_MAJOR) "." TF_STR(TFENC_VERSION_MINOR) "." TF_STR(
        TFENC_VERSION_PATCH);
}
