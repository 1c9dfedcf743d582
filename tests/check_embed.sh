#!/bin/sh
# check_embed.sh TFENC DATA_DIR — `tfenc create` makes a model whose
# vocabulary is the WordPiece fixture's; `tfenc embed` turns texts into one
# vector each (unit length with --normalize, the same alone or batched with
# a longer text, CLS differs from mean, .npy output), and ids beyond a
# model's vocabulary are a clear error.
set -eu
tfenc=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vocab=$data/wordpiece/vocab.txt
"$tfenc" create "$tmp/model.safetensors" --vocab "$vocab" --d-model 64 --heads 4 --d-ff 128 \
    --layers 2 --positions learned --max-positions 128 >"$tmp/out"
grep -qF "vocab_size 6841" "$tmp/out"

"$tfenc" embed --model "$tmp/model.safetensors" --vocab "$vocab" --normalize \
    "I love NLP" "Crème brûlée, jalapeño & résumé" >"$tmp/two"
awk 'NF != 64 { print "line " NR " has " NF " numbers"; exit 1 }
     { s = 0; for (i = 1; i <= NF; i++) s += $i * $i; if (s < 0.9999 || s > 1.0001) { print "norm^2 " s; exit 1 } }
     END { if (NR != 2) { print NR " lines"; exit 1 } }' "$tmp/two"

"$tfenc" embed --model "$tmp/model.safetensors" --vocab "$vocab" --normalize "I love NLP" >"$tmp/one"
head -1 "$tmp/two" >"$tmp/first" # the same text batched with a longer one
paste -d'\n' "$tmp/one" "$tmp/first" |
    awk 'NR == 1 { split($0, a) } NR == 2 { for (i = 1; i <= NF; i++) { d = a[i] - $i; if (d < 0) d = -d; if (d > 1e-5) { print "batched differs: " d; exit 1 } } }'

"$tfenc" embed --model "$tmp/model.safetensors" --vocab "$vocab" --pool cls "I love NLP" >"$tmp/cls"
"$tfenc" embed --model "$tmp/model.safetensors" --vocab "$vocab" --pool mean "I love NLP" >"$tmp/mean"
! cmp -s "$tmp/cls" "$tmp/mean" || { echo "cls and mean pooling agree"; exit 1; }

printf 'first line\nsecond line\nthird\n' >"$tmp/texts.txt"
"$tfenc" embed --model "$tmp/model.safetensors" --vocab "$vocab" --file "$tmp/texts.txt" \
    --npy "$tmp/v.npy" 2>"$tmp/out"
grep -qF "wrote 3 vectors of 64 floats" "$tmp/out"
head -c 128 "$tmp/v.npy" | grep -qF "'shape': (3, 64)"

if "$tfenc" embed --model "$data/bert_tiny" --vocab "$vocab" "darkest ambassadorial" \
    >/dev/null 2>"$tmp/err"; then
    echo "ids beyond the model's vocabulary were accepted"; exit 1
fi
grep -qF "is outside the vocabulary (1000)" "$tmp/err"
echo "tfenc create and embed: vectors, norms, batching, pooling, .npy and the vocabulary check"
