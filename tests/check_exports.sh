#!/bin/sh
# check_exports.sh LIB — the shared library exports only tf_* functions
# (under the TFENC_0 version node) and has the SONAME libtfenc.so.0.
set -eu
lib=$1
leaks=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' | grep -v -E '^(tf_|TFENC_0$)' || true)
if [ -n "$leaks" ]; then
    echo "symbols outside tf_*: $leaks"
    exit 1
fi
count=$(nm -D --defined-only "$lib" | grep -c ' T tf_')
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
echo "exported tf_* functions: $count; SONAME: $soname"
[ "$count" -gt 0 ]
[ "$soname" = "libtfenc.so.0" ]
