#!/bin/sh
# check_readme_example.sh README INCLUDE_DIR LIBTFENC — the C example in
# README.md (the ```c block after "<!-- readme-example -->") compiles with
# -Wall -Werror, runs, and prints a real value and a zero for padding.
set -eu
readme=$1 include=$2 lib=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk '/<!-- readme-example -->/ { on = 1; next } on && /^```c/ { code = 1; next }
     code && /^```/ { exit } code { print }' "$readme" >"$dir/example.c"
[ -s "$dir/example.c" ] || { echo "no example found in $readme"; exit 1; }
cc -std=c11 -Wall -Wextra -Werror -I"$include" "$dir/example.c" -o "$dir/example" \
    -L"$(dirname "$lib")" -ltfenc -Wl,-rpath,"$(dirname "$lib")"
"$dir/example" | tee "$dir/out.txt"
grep -qE '^out\[1\]\[2\]\[0\] = -?[0-9]+\.[0-9]+ \(padding: out\[1\]\[3\]\[0\] = 0\.000000\)$' "$dir/out.txt"
