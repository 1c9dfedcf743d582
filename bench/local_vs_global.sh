#!/bin/sh
# local_vs_global.sh BENCH [ROUNDS] [LENGTHS] — one ModernBERT-base layer
# (tfenc-bench --arch modernbert-local: a 128-token window, against
# --arch modernbert-global: attention over all T), alternating local and
# global at each length, ROUNDS times (2), at LENGTHS (512,...,8192).
# Prints each run's median ms and forward MB, then per length the ratio
# local / global of the medians (the lowest ratio of the rounds and the
# highest).
set -eu
bench=$1 rounds=${2:-2} lengths=${3:-512,1024,2048,4096,8192}
run() { # ARCH T: "median_ms forward_mb" of one length
    env -u OPENBLAS_CORETYPE "$bench" --arch "$1" --lengths "$2" --no-peak --min-time 0.5 |
        awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print $2, $NF}'
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "# round T arch median_ms forward_mb"
for r in $(seq "$rounds"); do
    for T in $(echo "$lengths" | tr , ' '); do
        for arch in modernbert-local modernbert-global; do
            echo "$r $T $arch $(run "$arch" "$T")" | tee -a "$out"
        done
    done
done
echo "# T local/global: lowest highest (over the rounds)"
awk '{ms[$1" "$2" "$3] = $4; Ts[$2] = 1; R = $1 > R ? $1 : R}
     END {for (T in Ts) {lo = 1e9; hi = 0
              for (r = 1; r <= R; r++) {q = ms[r" "T" modernbert-local"] / ms[r" "T" modernbert-global"]
                                        lo = q < lo ? q : lo; hi = q > hi ? q : hi}
              printf "%d %.3f %.3f\n", T, lo, hi}}' "$out" | sort -n
