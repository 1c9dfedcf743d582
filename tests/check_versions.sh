#!/bin/sh
# check_versions.sh SOURCE_ROOT PRINT_VERSION LIBTFENC — the version tfenc.h
# states (and the built library reports: print_version prints its
# tf_version_string) is the one the Python package, the Rust crate and its
# lock file, and pkg-config's file say.
set -eu
root=$1 print_version=$2 lib=$3
fail=0
library=$("$print_version")
header=$(sed -n 's/^#define TFENC_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    "$root/include/tfenc.h" | paste -sd. -)
python=$(sed -n 's/^version = "\([^"]*\)".*/\1/p' "$root/pyproject.toml")
cargo=$(sed -n 's/^version = "\([^"]*\)".*/\1/p' "$root/rust/Cargo.toml" | head -n 1)
lock=$(sed -n '/^name = "tfenc"$/{n;s/^version = "\([^"]*\)"$/\1/p}' "$root/rust/Cargo.lock")
pc=$(sed -n 's/^Version: //p' "$(dirname "$lib")/../meson-private/tfenc.pc")
for pair in "tfenc.h:$header" "pyproject.toml:$python" "rust/Cargo.toml:$cargo" \
            "rust/Cargo.lock:$lock" "tfenc.pc:$pc"; do
    if [ "${pair#*:}" != "$library" ]; then
        echo "${pair%%:*} says '${pair#*:}', the library says '$library'"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "versions: every source says $library"
exit $fail
