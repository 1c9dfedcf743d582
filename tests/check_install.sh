#!/bin/sh
# check_install.sh BUILD_DIR — installs the build into a staging directory and
# builds the README's example against it with pkg-config alone, as a user of
# the installed library would.
set -eu
build=$1
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
meson install -C "$build" --destdir "$stage" >/dev/null
pc=$(find "$stage" -name tfenc.pc)
[ -n "$pc" ] || { echo "tfenc.pc was not installed"; exit 1; }
installed=$(find "$stage" -type f -o -type l | sed "s|$stage||" | sort | tr '\n' ' ')
prefix=$(sed -n 's/^prefix=//p' "$pc")
export PKG_CONFIG_PATH="$(dirname "$pc")"
flags="--define-variable=prefix=$stage$prefix"
awk '$0 == "<!-- readme-example -->" { on = 1; next } on && /^```c/ { code = 1; next }
     code && /^```/ { exit } code { print }' README.md >"$stage/app.c"
libdir=$(pkg-config $flags --variable=libdir tfenc)
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$stage/app.c" $(pkg-config $flags --cflags --libs tfenc) \
    -o "$stage/app"
LD_LIBRARY_PATH="$libdir" "$stage/app"
objdump -p "$libdir/libtfenc.so" | grep -q 'SONAME *libtfenc.so.0'
echo "installed: $installed"
