/* header_c11.c — tfenc.h compiles alone as C11 (-Wall -Wextra -pedantic -Werror)
 * and links against libtfenc. */
#include "tfenc.h"

int main(void)
{
    tf_config cfg;
    tf_config_init(&cfg);
    return tf_version() == TFENC_VERSION_NUMBER && cfg.struct_size == sizeof cfg ? 0 : 1;
}
