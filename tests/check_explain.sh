#!/bin/sh
# check_explain.sh TFENC DATA_DIR GOLDEN_DIR — `tfenc explain`:
#  - walks the tutorial's model through "[CLS] I love NLP [SEP]" with the
#    tutorial's shapes, in at most 100 columns;
#  - --worked-example prints the tutorial's numbers;
#  - --vocab tokenizes with WordPiece; --model runs a PyTorch checkpoint;
#  - a fill-mask, SPLADE or ColBERT folder adds its head's steps;
#  - --heatmap writes a PNG of the documented size;
#  - --dump then --compare reports zero error, and a perturbed tensor is
#    caught as the first one over the tolerance;
#  - --image walks an image model's folder (CLIP, SigLIP, ViT) through a
#    photograph with its shapes; an image folder without --image, --image
#    on a text model, and --image's other refusals: stderr exactly;
#  - a bad option or model is an error.
set -eu
tfenc=$1 data=$2 golden=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
expect() { grep -qF -- "$1" "$out" || { echo "missing: $1"; cat "$out"; exit 1; }; }

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
    expect "$want"
done
width=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$out")
[ "$width" -le 100 ] || { echo "a line is $width columns wide"; exit 1; }

"$tfenc" explain --worked-example >"$out"
expect "[  0.110  0.230  0.350 ]"
expect "[  0.078  0.163  0.247 ]"
expect "e^x [  1.081  1.177  1.281 ]  sum 3.538  ->  weights [  0.305  0.333  0.362 ]"
expect "weights [  0.237  0.323  0.441 ]"
expect "weights [  0.177  0.303  0.519 ]"

"$tfenc" explain --vocab "$data/wordpiece/vocab.txt" --text "Crème brûlée" >"$out"
expect 'input: "Crème brûlée" ->'
expect "[CLS]=12"
"$tfenc" explain --model "$golden/pytorch_encoder_f16_metadata/model.safetensors" --layer 1 >"$out"
expect "pre-norm"
expect "Pre-norm: LayerNorm(x) goes into the attention"
expect "Final LayerNorm (pre-norm stacks)"
"$tfenc" explain --model "$data/families/electra_small" >"$out" # embedding_size 8 of 16
expect "embed.token  [1, 5, 8]  (B,T,E)"
expect "Embedding projection: from the embeddings' width to d_model"
expect "  (5, 8) . embed.project (16, 8)^T + bias (16) -> (5, 16): the embeddings are"
expect "embed.project  [1, 5, 16]  (B,T,D)"
"$tfenc" explain --model "$data/families/jina_code" >"$out" # jina-bert-v2-qk-post-norm's norms
expect "QK norm: a LayerNorm on Q and one on K"
expect "  layers.0.attn.q_norm  [1, 2, 5, 8]  (B,H,T,d_k)  queries after their LayerNorm"
expect "Add & Norm once more: LayerNorm(x + that), x the layer's input"
expect "  layers.0.add_norm1b  [1, 5, 16]  (B,T,D)"
modern="$golden/../encoder_pieces"
"$tfenc" explain --model "$modern/modernbert_like/model.safetensors" --layer 1 >"$out"
expect "Rotary positions: Q and K turned by their position"
expect "  i = 0 .. 3, theta 10000 (a local layer's);"
expect "  layer 1 is local: query i sees keys |i - j| <= 2 only (-inf elsewhere),"
expect "Gated feed-forward network, per token: up and gate, act(gate) * up, down"
expect "  hidden = gelu(gate) * up, element-wise"
"$tfenc" explain --model "$modern/alibi_six_heads/model.safetensors" >"$out"
expect "ALiBi: a linear penalty on distance, per head"
expect "    m_h      [   0.250   0.062   0.016   0.004   0.500   0.125 ]  (6 values)"
"$tfenc" explain --model "$modern/mpnet_relative/model.safetensors" >"$out"
expect "Relative position bias: each head's score depends on j - i"
expect "  score(i, j) += bias[bucket(j - i), h] from one (32, 2) table every layer shares;"
expect "  |j - i| < 8 a bucket each, then logarithmic buckets up to 128, keys after the query"
expect "  layers.0.attn.relative_bias  [2, 9]  (H,j-i)  each head's bias for each j - i"
expect "    j - i =  +0    0.0537"

# Retrieval folders: the masked-LM head at every position (the mask's row is
# gen_mlm.py's float64 fill-mask reference: four 0.568, : 0.137, ...), the
# sparse vector's top terms, ColBERT's skiplist and [MASK] expansion.
mlm="$data/mlm/bert_base_uncased"
"$tfenc" explain --model "$mlm" --vocab "$mlm/vocab.txt" --text "the cat sat on the [MASK]." >"$out"
expect "Masked-LM head: the likeliest tokens at every position"
expect "  decoder) -> logits (9, 58); softmax over each row; its top 5, best first:"
expect "     6 [MASK]       four 0.568        : 0.137    liked 0.113    movie 0.055       is 0.023"
expect "Sparse vector: a weight for each vocabulary term"
expect "  SPLADE: the max over the tokens of log(1 + ReLU(logits)) -> (58)"
expect "not zero; the largest 10 terms:"
splade="$data/sparse/splade_v3"
"$tfenc" explain --model "$splade" --vocab "$splade/vocab.txt" --text "the cat sat." >"$out"
expect "  the folder's SpladePooling (its activation, then its pooling over the"
expect "Masked-LM head: the likeliest tokens at every position"
colbert="$data/colbert/answerai_like"
"$tfenc" explain --model "$colbert" --vocab "$colbert/vocab.txt" --text "the cat sat, on the mat." >"$out"
expect "ColBERT document: one vector per token, the skiplist left out"
expect "  the skiplist (punctuation) have no row: (9, 8)"
expect "    [unused1]  row  1 ["
expect "    sat        row  4 ["
expect "    ,          skipped (the skiplist)"
expect "    on         row  5 ["
expect "    .          skipped (the skiplist)"
expect "    [SEP]      row  8 ["
expect "ColBERT query: [MASK] expansion"
expect "    ,          row  5 ["
expect "    [MASK]     row 11 ["
expect "  ... ]  expansion"
width=$(sed -n '/ColBERT document/,$p' "$out" | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$width" -le 100 ] || { echo "a ColBERT line is $width columns wide"; exit 1; }

"$tfenc" explain --heatmap "$tmp/heat.png" >"$out"
expect "wrote $tmp/heat.png: 8 heads of layer 0, 964 x 630 pixels"
signature=$(od -An -tx1 -N8 "$tmp/heat.png" | tr -d ' \n')
[ "$signature" = "89504e470d0a1a0a" ] || { echo "not a PNG: $signature"; exit 1; }
size=$(od -An -tu1 -j16 -N8 "$tmp/heat.png" | awk '{ print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8 }')
[ "$size" = "964x630" ] || { echo "PNG is $size, expected 964x630"; exit 1; }

"$tfenc" explain --dump "$tmp/dump" >"$out"
expect "wrote 14 tensors (float32 .npy) and index.json"
"$tfenc" explain --compare "$tmp/dump" >"$out"
expect "all 14 compared tensors within 1.0e-04"
# 1.0 over the first attention weight (the data starts at byte 128)
printf '\000\000\200\077' | dd of="$tmp/dump/layers.0.attn.weights.npy" bs=1 seek=128 conv=notrunc 2>/dev/null
if "$tfenc" explain --compare "$tmp/dump" >"$out"; then
    echo "--compare missed the perturbed tensor"; cat "$out"; exit 1
fi
expect "first tensor over 1.0e-04: layers.0.attn.weights"

if "$tfenc" explain --heads 7 >/dev/null 2>"$out"; then
    echo "--heads 7 should fail"; exit 1
fi
expect "d_model 512 is not divisible by n_heads 7"
if "$tfenc" explain --model "$data/bert_tiny" --d-model 64 >/dev/null 2>"$out"; then
    echo "--model with --d-model should fail"; exit 1
fi
# --image: an image model's folder on a photograph, step by step
photo=$data/images/files/photo_chelsea_90x60.png
"$tfenc" explain --model "$data/image_pipeline/clip" --image "$photo" --head 1 >"$out"
for want in \
    'image.decoded  [60, 90, 3]  (H,W,C)' \
    '90 x 60 -> resize 48 x 32 -> center crop 32 x 32 -> rescale, normalise -> [3, 32, 32]' \
    'image.resized  [32, 48, 3]  (H,W,C)' \
    'pixel_values  [1, 3, 32, 32]  (B,C,H,W)' \
    '32 / 8 = 4 rows x 32 / 8 = 4 columns of 8 x 8 pixels: N_patches = 16,' \
    '(16, 192) . W^T (192, 32) + b -> (16, 32)' \
    'embed.patches  [1, 16, 32]  (B,P,D)' \
    'embed.class_token  [32]  (D)' \
    'T = 16 patches + 1 = 17 tokens' \
    'embed.position  [17, 32]  (T,D)' \
    'embed.norm  [1, 17, 32]  (B,T,D)' \
    'layers.1.attn.weights  [1, 2, 17, 17]  (B,H,T,T)' \
    "head 1: the class token's attention over the 4 x 4 patches:" \
    'layers.1.ffn.hidden  [1, 17, 64]  (B,T,F)' \
    'Attention rollout (Abnar & Zuidema 2020)' \
    "Output: the image's vector"; do
    expect "$want"
done
image_width=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$out")
[ "$image_width" -le 100 ] || { echo "an image line is $image_width columns wide"; exit 1; }
"$tfenc" explain --model "$data/image_pipeline/siglip" --image "$photo" >"$out"
for want in \
    '90 x 60 -> resize 32 x 32 -> rescale, normalise -> [3, 32, 32]' \
    'none: this tower has no class token, T = N_patches = 16' \
    'embed.position  [16, 32]  (T,D)' \
    'layers.0.attn.weights  [1, 2, 16, 16]  (B,H,T,T)' \
    'head 0: the mean attention over the queries over the 4 x 4 patches:' \
    'final_norm  [1, 16, 32]  (B,T,D)' \
    'head.attn.weights  [1, 2, 1, 16]  (B,H,1,T)' \
    "head 0: the probe's attention over the 4 x 4 patches:"; do
    expect "$want"
done
"$tfenc" explain --model "$data/image_pipeline/vit_classifier" --image "$photo" >"$out"
expect 'final_norm  [1, 17, 32]  (B,T,D)'
expect 'Output: the label probabilities'
expect 'output     [   0.'

# --image's refusals: exit status and stderr exactly
refused() { # STATUS MESSAGE ARGS...
    status=$1 message=$2
    shift 2
    if "$tfenc" explain "$@" >/dev/null 2>"$tmp/err"; then echo "accepted: $*"; exit 1; else rc=$?; fi
    [ "$rc" -eq "$status" ] || { echo "status $rc, not $status: $*"; cat "$tmp/err"; exit 1; }
    printf '%s\n' "$message" >"$tmp/want"
    cmp -s "$tmp/err" "$tmp/want" || { echo "stderr of $*:"; cat "$tmp/err"; echo "wanted:";
        cat "$tmp/want"; exit 1; }
}
for name in vit_model clip siglip st_clip; do
    refused 2 "tfenc explain: --model $data/vision/$name: an image model (a vision tower); "\
"explain it on an image with --image FILE" --model "$data/vision/$name"
done
refused 2 "tfenc explain: --image: --model $data/bert_tiny is not an image model (a ViT, CLIP "\
"or SigLIP folder); explain a text with --text" --model "$data/bert_tiny" --image "$photo"
refused 2 "tfenc explain: --image: give the image model's folder with --model" --image "$photo"
refused 2 "tfenc explain: --image: --text is for a text; an image takes --model, --head and "\
"--html" --model "$data/image_pipeline/clip" --image "$photo" --text hello
refused 2 "tfenc explain: --image: --layer is for a text; an image takes --model, --head and "\
"--html" --model "$data/image_pipeline/clip" --image "$photo" --layer 1
refused 2 "tfenc explain: --image: a load option is for a text; an image takes --model, --head "\
"and --html" --model "$data/image_pipeline/clip" --image "$photo" --n-heads 2
refused 2 "tfenc explain: --head: expected an integer 0..1 (the model's heads), got '2'" \
    --model "$data/image_pipeline/clip" --image "$photo" --head 2
refused 1 "tfenc explain: $tmp/none.png: cannot read: No such file or directory" \
    --model "$data/image_pipeline/clip" --image "$tmp/none.png"
refused 1 "tfenc explain: $data/images/hostile/text.txt: not a JPEG, PNG or WebP image: it "\
"starts with 68 65 6c 6c 6f 2c 20 77" --model "$data/image_pipeline/clip" \
    --image "$data/images/hostile/text.txt"
refused 1 "tfenc explain: $data/vision/clip/preprocessor_config.json: cannot open: No such file "\
"or directory" --model "$data/vision/clip" --image "$photo"

echo "tfenc explain: walkthrough (widest line $width columns), worked example, WordPiece, a PyTorch model, a rotary local and an ALiBi model, fill-mask, SPLADE and ColBERT heads, heatmap 964x630, dump/compare, 3 image folders (widest line $image_width columns) and 13 refusals of --image"
