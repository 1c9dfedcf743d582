#!/bin/sh
# check_info.sh TFENC DATA_DIR GOLDEN_DIR — `tfenc info` alone names the
# BLAS, the kernels it runs (the environment's OPENBLAS_CORETYPE when set),
# the vector loops and the threads; with a file it describes the Hugging
# Face fixture, a RoBERTa and a DistilBERT folder and a PyTorch checkpoint, and on every malformed file prints
# the expected error to stderr, nothing to stdout, and exits 1; an image model's
# folder is named as one (stderr exactly).
set -eu
tfenc=$1 data=$2 golden=$3
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
expect() { grep -qF -- "$1" "$out" || { echo "missing: $1"; cat "$out"; exit 1; }; }
expect_re() { grep -qE -- "$1" "$out" || { echo "missing: $1"; cat "$out"; exit 1; }; }

"$tfenc" info >"$out"
expect "$("$tfenc" version)"
expect_re "^BLAS: (OpenBLAS|BLIS), kernels [A-Za-z0-9_]+, its thread setting [0-9]+$"
expect_re "^vector loops: (avx512|avx2|base)$"
expect "threads a forward call may use: $(getconf _NPROCESSORS_ONLN | awk '{print ($1 > 32 ? 32 : $1)}')"
if [ -n "${OPENBLAS_CORETYPE:-}" ] && grep -q "^BLAS: OpenBLAS" "$out"; then
    expect "kernels $OPENBLAS_CORETYPE,"
fi
if "$tfenc" info --n-heads 2 >"$out" 2>"$err"; then echo "load options without a file: accepted"; exit 1; fi
grep -qF "tfenc info: --n-heads: the load options need a FILE_OR_DIR" "$err" ||
    { echo "load options without a file: $(cat "$err")"; exit 1; }

"$tfenc" info "$data/bert_tiny" >"$out"
expect "format: huggingface-bert"
expect "config: d_model 128, n_heads 4 (d_k 32), d_ff 512, n_layers 2"
expect "tensors: 39 (39 used, 0 ignored)"
expect_re "encoder\.layer\.1\.intermediate\.dense\.weight +F32 +\[512, 128\] +layers\.1\.ffn\.up\.weight$"

"$tfenc" info "$data/families/roberta" >"$out"
expect "format: huggingface-roberta"
expect "positions learned (max 34) from 2, skipping id 1, token types 1"
expect_re "^ *roberta\.encoder\.layer\.0\.attention\.self\.query\.weight +F32 +\[16, 16\] +layers\.0\.attn\.q\.weight$"
"$tfenc" info "$data/families/electra_small" >"$out"
expect "embeddings: 8 wide, projected to d_model 16 (embed.project)"
expect_re "^ *electra\.embeddings_project\.weight +F32 +\[16, 8\] +embed\.project\.weight$"
"$tfenc" info "$data/families/jina_code" >"$out"
expect "format: huggingface-jina-bert-code"
expect "LayerNorms on Q and K yes, the input added again after add_norm1 yes (norm1b)"
expect_re "^ *encoder\.layer\.1\.attention\.self\.layer_norm_k\.weight +F32 +\[16\] +layers\.1\.attn\.k_norm\.weight$"
expect_re "^ *encoder\.layer\.0\.layer_norm_1\.bias +F32 +\[16\] +layers\.0\.norm1b\.bias$"
"$tfenc" info "$data/families/distilbert" >"$out"
expect "format: huggingface-distilbert"
expect_re "^ *transformer\.layer\.1\.ffn\.lin1\.weight +F32 +\[32, 16\] +layers\.1\.ffn\.up\.weight$"

"$tfenc" info --n-heads 2 "$data/variants/prefixed_old_names_extras.safetensors" >"$out"
expect "tensors: 40 (37 used, 3 ignored)"
expect "bert.embeddings.position_ids"
expect "(ignored)"

"$tfenc" info "$golden/pytorch_encoder_f16_metadata/model.safetensors" >"$out"
expect "format: pytorch-transformer-encoder"
expect "layers.0.attn.q.weight + k + v (stacked)"

# an image model's folder (ViT, CLIP, SigLIP, a sentence-transformers CLIP) is
# named as one, exit status 1, stderr exactly, nothing on stdout
for name in vit_model clip siglip st_clip; do
    d=$data/vision/$name
    if "$tfenc" info "$d" >"$out" 2>"$err"; then echo "$name: tfenc info succeeded"; exit 1; fi
    [ ! -s "$out" ] || { echo "$name: printed to stdout"; exit 1; }
    printf 'tfenc info: %s: an image model (a vision tower): tfenc info reads text encoders; '\
'tfenc explain --model %s --image FILE traces it\n' "$d" "$d" >"$out"
    cmp -s "$err" "$out" || { echo "$name: stderr:"; cat "$err"; echo "wanted:"; cat "$out"; exit 1; }
done

count=0
while IFS="$(printf '\t')" read -r file status message; do
    if "$tfenc" info --n-heads 2 --activation gelu --norm-first false \
        "$data/malformed/$file" >"$out" 2>"$err"; then
        echo "$file: tfenc info succeeded"; exit 1
    fi
    [ ! -s "$out" ] || { echo "$file: printed to stdout"; exit 1; }
    # the message in the CLI's words; the library's status for it: test_load.c
    grep -qF -- "$message" "$err" && ! grep -qF -- "$status" "$err" ||
        { echo "$file: expected $message (without $status), got: $(cat "$err")"; exit 1; }
    count=$((count + 1))
done <"$data/malformed/manifest.tsv"
echo "tfenc info: fixture, variants, PyTorch checkpoint, 4 image folders and $count malformed files as expected"
