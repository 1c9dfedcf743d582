#!/bin/sh
# check_versions.sh SOURCE_ROOT LIBTFENC — the version tfenc.h states (and
# the loaded library reports, tf_version_string) is the one the Python
# package, the Rust crate and its lock file, and pkg-config's file say.
set -eu
root=$1 lib=$2
fail=0
library=$(/usr/bin/python3 -c 'import ctypes, sys
l = ctypes.CDLL(sys.argv[1]); l.tf_version_string.restype = ctypes.c_char_p
print(l.tf_version_string().decode())' "$lib")
header=$(sed -n 's/^#define TFENC_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
    "$root/include/tfenc.h" | paste -sd. -)
python=$(sed -n 's/^version = "\([^"]*\)".*/\1/p' "$root/python/pyproject.toml")
cargo=$(sed -n 's/^version = "\([^"]*\)".*/\1/p' "$root/rust/Cargo.toml" | head -n 1)
lock=$(sed -n '/^name = "tfenc"$/{n;s/^version = "\([^"]*\)"$/\1/p}' "$root/rust/Cargo.lock")
pc=$(sed -n 's/^Version: //p' "$(dirname "$lib")/../meson-private/tfenc.pc")
for pair in "tfenc.h:$header" "python/pyproject.toml:$python" "rust/Cargo.toml:$cargo" \
            "rust/Cargo.lock:$lock" "tfenc.pc:$pc"; do
    if [ "${pair#*:}" != "$library" ]; then
        echo "${pair%%:*} says '${pair#*:}', the library says '$library'"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "versions: every source says $library"
exit $fail
