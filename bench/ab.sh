#!/bin/sh
# ab.sh OLD_BENCH NEW_BENCH [ROUNDS] — two builds of libtfenc in one run,
# alternating: each build's own tfenc-bench (which links its library's
# core), with the kernels OpenBLAS detects (OPENBLAS_CORETYPE unset).
# Workloads: one BERT-base layer at T = 16, 128, 512, 2048, 4096; the
# 6-layer 384/12/1536 model on 32 x 128 tokens; its variable-length batch
# (--varlen: 32 sequences of 8..128 tokens). One line per (round, side,
# workload, T): the median ms.
set -eu
old=$1 new=$2 rounds=${3:-2}
run() { # BENCH ARGS...: "T median_ms" per row of tfenc-bench's table
    bench=$1; shift
    env -u OPENBLAS_CORETYPE "$bench" --no-peak --min-time 0.5 "$@" |
        awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+/ {print $1, $2}
             /^variable lengths/ {print "128", $(NF-3)}'
}
echo "# round side workload T median_ms"
for r in $(seq "$rounds"); do
    for side in old new; do
        bench=$old; [ "$side" = new ] && bench=$new
        run "$bench" --lengths 16,128,512,2048,4096 | sed "s/^/$r $side layer /"
        run "$bench" --d-model 384 --heads 12 --d-ff 1536 --layers 6 --batch 32 --lengths 128 |
            sed "s/^/$r $side 6L-32x128 /"
        run "$bench" --d-model 384 --heads 12 --d-ff 1536 --layers 6 --varlen --lengths 128 |
            tail -1 | sed "s/^/$r $side 6L-varlen /"
    done
done
