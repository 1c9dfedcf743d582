#!/bin/sh
# check_abi.sh BASELINE LIBTFENC INCLUDE_DIR — libtfenc.so.0 still offers
# what the committed ABI baseline (abi/libtfenc.so.0.abi, from abidw) does:
# abidiff may report added functions, nothing removed or changed. A change
# that is compatible by design (a field appended to a struct that carries
# struct_size) needs the baseline renewed on purpose: abi/update.sh.
set -eu
baseline=$1 lib=$2 include=$3
report=$(abidiff --headers-dir2 "$include" "$baseline" "$lib") && rc=0 || rc=$?
summary=$(printf '%s\n' "$report" | grep -E "^(Functions|Variables) changes summary" || true)
printf '%s\n' "$summary"
if [ $((rc & 8)) -ne 0 ] || printf '%s\n' "$summary" | grep -qE "[1-9][0-9]* (Removed|Changed)"; then
    printf '%s\n' "$report"
    echo "libtfenc.so.0: an incompatible ABI change (see above)"
    exit 1
fi
[ $((rc & 3)) -eq 0 ] || { printf '%s\n' "$report"; exit 1; } # abidiff itself failed
echo "libtfenc.so.0: compatible with the baseline"
