#!/bin/sh
# check_exports.sh LIB HEADER — the shared library exports exactly the
# functions tfenc.h declares with TF_API (under the TFENC_0 version node),
# and its SONAME is libtfenc.so.0.
set -eu
lib=$1 header=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' | grep -v '^TFENC_0$' | sort >"$tmp/exported"
tr '\n' ' ' <"$header" | grep -oE 'TF_API [^;]*;' | grep -oE '\btf_[a-z0-9_]+ *\(' |
    sed 's/ *(//' | sort -u >"$tmp/declared"
if ! diff -u "$tmp/declared" "$tmp/exported"; then
    echo "exported symbols differ from the TF_API declarations of tfenc.h (- declared, + exported)"
    exit 1
fi
nm -D --defined-only "$lib" | grep ' T ' | grep -qv '@@TFENC_0' && { echo "a symbol outside TFENC_0"; exit 1; }
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libtfenc.so.0" ] || { echo "SONAME is $soname"; exit 1; }
echo "exports: exactly the $(wc -l <"$tmp/exported") functions tfenc.h declares; SONAME $soname"
