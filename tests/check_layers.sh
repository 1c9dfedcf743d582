#!/bin/sh
# check_layers.sh SOURCE_ROOT — the layering rules that include lists alone
# cannot enforce (docs/design.md, "Layers"):
#  - lib/kernels, lib/runtime, lib/model, lib/tokenizer and lib/image
#    compute: they neither open files nor parse JSON (lib/common's json.h,
#    json_file.h and file.h, cJSON, stdio's fopen, POSIX open, libpng's
#    png_init_io and libjpeg's jpeg_stdio_src are lib/formats' business);
#  - tools/ is a client of the public API: it includes no header of lib/
#    but lib/base/'s (what holds no state of the library);
#  - every file name is unique across the tree (a name says one thing).
set -eu
cd "$1"
status=0
computing=$(git ls-files 'lib/kernels/*' 'lib/runtime/*' 'lib/model/*' 'lib/tokenizer/*' 'lib/image/*' |
    grep -E '\.(c|h)$' || true)
[ -n "$computing" ] || { echo "check_layers: no sources under lib/ (not a git checkout?)"; exit 1; }
found=$(grep -nE '#include [<"](json|json_file|file|cjson/cJSON)\.h[">]|\<(fopen|open|png_init_io|jpeg_stdio_src)\(' \
    $computing || true)
if [ -n "$found" ]; then
    echo "check_layers: files read or JSON parsed outside lib/formats:"
    echo "$found"
    status=1
fi
lib_headers=$(git ls-files 'lib/*.h' | grep -v '^lib/base/' | sed 's#.*/##' | sort -u)
for h in $lib_headers; do
    found=$(grep -rn --include='*.c' --include='*.h' "#include \"$h\"" tools || true)
    if [ -n "$found" ]; then
        echo "check_layers: tools/ includes lib/'s $h (tools see include/, lib/base/ and tools/support/ only):"
        echo "$found"
        status=1
    fi
done
dups=$(git ls-files | grep -vE '(^|/)(meson\.build|README\.md|\.gitignore|__init__\.py|package(-lock)?\.json)$' |
    grep -vE '^(tests/abi/[0-9]|tests/data/|tests/golden/|tests/tokenizer_json/|tests/encoder_pieces/|fuzz/corpus|fuzz/crashes|bench/results/|rust/target/)' |
    sed 's#.*/##' | sort | uniq -d)
if [ -n "$dups" ]; then
    echo "check_layers: file names used twice:"
    echo "$dups"
    status=1
fi
[ $status -eq 0 ] && echo "check_layers: computing layers read no files, tools include no lib/ header but lib/base/'s, names unique"
exit $status
