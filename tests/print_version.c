/* print_version.c — prints tf_version_string() of the library it runs
 * against, for check_versions.sh. */
#include <stdio.h>

#include "tfenc.h"

int main(void)
{
    return puts(tf_version_string()) < 0;
}
