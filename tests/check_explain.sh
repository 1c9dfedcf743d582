#!/bin/sh
# check_explain.sh TFENC — `tfenc explain` walks the tutorial's model through
# "[CLS] I love NLP [SEP]" with the tutorial's shapes, fits in 100 columns,
# and reports a bad option or model as an error.
set -eu
tfenc=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$tfenc" explain >"$out"
for want in \
    'input: "[CLS] I love NLP [SEP]" -> 5 tokens' \
    'embed.token  [1, 5, 512]' \
    'embed.position  [5, 512]' \
    'layers.0.attn.q  [1, 8, 5, 64]  (B,H,T,d_k)' \
    'per head (5, 512) . (512, 64) -> (5, 64)' \
    '(5, 64) . (64, 5) -> (5, 5) per head; scale 1/sqrt(64) = 0.1250' \
    '| 1.000000' \
    '8 heads side by side -> (5, 8 x 64) = (5, 512)' \
    '(5, 512) . (512, 2048) -> (5, 2048)' \
    '(5, 2048) . (2048, 512) -> (5, 512)' \
    'layers.0.add_norm2  [1, 5, 512]' \
    'Output of the encoder'; do
    grep -qF -- "$want" "$out" || { echo "missing: $want"; cat "$out"; exit 1; }
done
width=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$out")
[ "$width" -le 100 ] || { echo "a line is $width columns wide"; exit 1; }
if "$tfenc" explain --heads 7 >/dev/null 2>"$out"; then
    echo "--heads 7 should fail"; exit 1
fi
grep -qF "d_model 512 is not divisible by n_heads 7" "$out" || { cat "$out"; exit 1; }
echo "tfenc explain: all steps present, widest line $width columns"
