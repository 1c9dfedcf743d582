/* header_c99.c — tfenc.h compiles alone as strict C99 (-pedantic-errors)
 * and links against libtfenc. */
#include "tfenc.h"

int main(void)
{
    tf_config cfg;
    tf_config_init(&cfg);
    return tf_version() == TFENC_VERSION_NUMBER && cfg.struct_size == sizeof cfg ? 0 : 1;
}
