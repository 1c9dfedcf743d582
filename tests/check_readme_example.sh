#!/bin/sh
# check_readme_example.sh MARKDOWN INCLUDE_DIR LIBTFENC MARKER PATTERN [ARGS...]
# The C example that follows "<!-- MARKER -->" in MARKDOWN (README.md, or a
# page of docs/) compiles with -Wall -Werror, runs (in a scratch directory,
# with ARGS) and prints a line matching the extended regex PATTERN.
# EXAMPLE_CFLAGS (e.g. the build's -fsanitize=...) are added to the compile.
set -eu
markdown=$1 include=$2 marker=$4 pattern=$5
lib=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
shift 5
for arg; do # the example runs elsewhere: files named relative to here, made absolute
    shift
    case $arg in /*) ;; *) [ -e "$arg" ] && arg=$PWD/$arg ;; esac
    set -- "$@" "$arg"
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
awk -v marker="<!-- $marker -->" '$0 == marker { on = 1; next } on && /^```c/ { code = 1; next }
     code && /^```/ { exit } code { print }' "$markdown" >"$dir/example.c"
[ -s "$dir/example.c" ] || { echo "no example after <!-- $marker --> in $markdown"; exit 1; }
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror ${EXAMPLE_CFLAGS:-} -I"$include" "$dir/example.c" -o "$dir/example" \
    -L"$(dirname "$lib")" -ltfenc -Wl,-rpath,"$(dirname "$lib")"
(cd "$dir" && ./example "$@") >"$dir/out.txt"
cat "$dir/out.txt"
grep -qE -- "$pattern" "$dir/out.txt"
