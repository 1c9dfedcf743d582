/* serve_absent.c — `tfenc serve` in a build without the server
 * (meson setup -Dserve=false): one line saying so, whatever the arguments,
 * and the exit status of a command line this tfenc cannot run. */
#include "cli.h"
#include "options.h"

int tfenc_serve(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error("serve",
              "this tfenc was built without the server (meson setup -Dserve=false); "
              "build with -Dserve=true, which needs libmicrohttpd");
    return CLI_USAGE;
}
