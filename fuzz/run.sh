#!/bin/sh
# run.sh TARGET SECONDS — fuzzes fuzz_TARGET (loader, forward, tokenizer,
# tokenizer_json, tokenizer_encode, tokenizer_folder, image, spiece, serve_request) for
# SECONDS (or until RUNS executions per job, if given) with clang's libFuzzer under AddressSanitizer and UBSan (no
# recovery), starting from the committed corpus (copied to fuzz/work/TARGET,
# where new inputs go). A crash is written to fuzz/crashes/TARGET/: fix it,
# commit the file, and it replays in meson test from then on. Prints
# libFuzzer's count of executions. The loader's and the encoder's inputs
# are capped at 4 KiB (a hostile file or text that small must never be
# expensive); JOBS (default 1) runs that many fuzzing processes at once,
# their executions adding up. Each target's job logs go to a folder of its
# own (fuzz/build/jobs-TARGET), so that two targets may be fuzzed at once.
# ASan keeps 16 MB of freed memory poisoned (its default 256 MB made every
# execution touch fresh pages: 1.5x the executions a second with 16 MB, and a
# use after free within one input is still caught).
# An input is a hang after 120 s: on the shared machine a process at nice 19
# stalled for 30-450 s at times (each such input ran in under a second again).
set -eu
cd "$(dirname "$0")/.."
target=$1
seconds=$2
jobs=${3:-1}
runs=""
[ -z "${4:-}" ] || runs=-runs=$4
max_len=""
[ "$target" != loader ] || max_len=-max_len=4096
[ "$target" != tokenizer_encode ] || max_len=-max_len=4096
[ "$target" != tokenizer_json ] || max_len=-max_len=8192
[ "$target" != spiece ] || max_len=-max_len=8192
mkdir -p fuzz/build "fuzz/work/$target" "fuzz/crashes/$target"
# the library with every optional part built in (so none of its *_absent.c stand-ins)
libs="openblas libcjson libutf8proc libpcre2-8 libjpeg libpng libwebp libwebpdemux libcurl libcrypto"
if [ "$target" = serve_request ]; then
    # the server's routing, parsers and error bodies, a client of tfenc.h:
    # the library compiled apart (its objects in fuzz/build/serve_lib), then
    # the tool's sources with include/, lib/base/ and tools/ only
    flags="-std=c11 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
    mkdir -p fuzz/build/serve_lib
    rm -f fuzz/build/serve_lib/*.o
    # shellcheck disable=SC2046,SC2086
    (cd fuzz/build/serve_lib && clang $flags -c -DTFENC_BUILDING_LIBRARY -I../../../include \
        $(cd ../../.. && find lib -mindepth 1 -type d | sed 's|^|-I../../../|') \
        $(pkg-config --cflags $libs) \
        $(cd ../../.. && find lib -name '*.c' ! -name alloc_hook.c ! -name '*_absent.c' | sort |
          sed 's|^|../../../|'))
    # shellcheck disable=SC2046,SC2086
    clang $flags -fsanitize=fuzzer -Iinclude -Ilib/base -Itools/support -Itools/serve \
        $(pkg-config --cflags libcjson libmicrohttpd) \
        tools/serve/route_table.c tools/serve/route_model.c tools/serve/request.c \
        tools/serve/response.c tools/serve/json_out.c tools/serve/token_inputs.c \
        tools/serve/batcher.c tools/serve/metrics.c tools/serve/connections.c \
        tools/serve/routes/*.c tools/support/kind_text.c \
        fuzz/build/serve_lib/*.o fuzz/fuzz_serve_request.c -o fuzz/build/fuzz_serve_request \
        $(pkg-config --libs $libs libmicrohttpd) -lm -lpthread
else
sources=$(find lib -name '*.c' ! -name alloc_hook.c ! -name '*_absent.c' | sort)
# shellcheck disable=SC2046,SC2086
clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -DTFENC_BUILDING_LIBRARY -DTFENC_FUZZ_VOCAB="\"$PWD/tests/data/wordpiece/vocab.txt\"" \
    -DTFENC_FUZZ_DATA="\"$PWD/tests/data\"" \
    -Iinclude $(find lib -mindepth 1 -type d | sed 's/^/-I/') \
    $(pkg-config --cflags $libs) \
    $sources "fuzz/fuzz_$target.c" -o "fuzz/build/fuzz_$target" \
    $(pkg-config --libs $libs) -lm
fi
cp -n "fuzz/corpus/$target/"* "fuzz/work/$target/" 2>/dev/null || true
root=$PWD
log="$root/fuzz/build/$target.log"
# from a folder of the target's own, where libFuzzer's -jobs mode leaves its fuzz-N.log files
mkdir -p "fuzz/build/jobs-$target"
cd "fuzz/build/jobs-$target"
rm -f fuzz-*.log
ASAN_OPTIONS=allocator_may_return_null=1:quarantine_size_mb=16 OPENBLAS_NUM_THREADS=1 \
    "$root/fuzz/build/fuzz_$target" -max_total_time="$seconds" -timeout=120 -rss_limit_mb=2048 \
    $max_len $runs -jobs="$jobs" -workers="$jobs" -print_final_stats=1 \
    -artifact_prefix="$root/fuzz/crashes/$target/" "$root/fuzz/work/$target" \
    >"$log" 2>&1 || { tail -40 "$log" fuzz-*.log 2>/dev/null; exit 1; }
rm -f fuzz-*.log # with -jobs, each job's own log (libFuzzer copied it into ours)
awk '/stat::number_of_executed_units/ { n += $2; jobs++ } /stat::peak_rss_mb/ { if ($2 > rss) rss = $2 }
     END { printf "fuzz_'"$target"': %d executions in %d job(s), peak RSS %d MB, no crash\n", n, jobs, rss }' \
    "$log"
