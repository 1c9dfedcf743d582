#!/bin/sh
# trace_overhead.sh [TFENC-BENCH OPTIONS] — does a forward call without a trace callback
# cost what it would in a library with tracing compiled out? Builds both
# and counts the instructions executed inside tf_encoder_forward with
# callgrind (deterministic: OpenBLAS and the forward calls on one thread,
# the same inputs; on the library's thread pool the count moves by a
# million from run to run with how long its threads wait), since
# wall-clock time on a shared machine is too noisy for a difference this
# small. Prints both counts and their ratio. Needs valgrind. The options go
# to tfenc-bench (default: a 2-layer model of width 256 at lengths 16 and 64
# on one thread, a few seconds; the BERT-base layer at 16,128 takes minutes).
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- --d-model 256 --heads 4 --d-ff 1024 --layers 2 --lengths 16,64 --threads 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
meson setup "$dir/with" -Dtests=disabled >/dev/null
meson setup "$dir/without" -Dtests=disabled -Dc_args=-DTF_TRACE_COMPILED_OUT >/dev/null
ninja -C "$dir/with" bench/tfenc-bench >/dev/null
ninja -C "$dir/without" bench/tfenc-bench >/dev/null
for v in with without; do
    OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --toggle-collect=tf_encoder_forward \
        --callgrind-out-file="$dir/$v.out" \
        "$dir/$v/bench/tfenc-bench" --no-peak --min-time 0 "$@" >/dev/null 2>&1
    grep '^summary:' "$dir/$v.out" | awk -v v="$v" '{ print v, $2 }'
done | awk '{ n[$1] = $2 }
    END {
        printf "instructions in tf_encoder_forward (4 calls per length):\n"
        printf "  with trace support, no callback: %d\n  tracing compiled out:            %d\n", n["with"], n["without"]
        printf "  ratio: %.6f\n", n["with"] / n["without"]
    }'
