#!/bin/sh
# check_cli_clip_text.sh TFENC DATA_DIR — the whole CLIP and SigLIP folders of
# tests/data/clip_text (gen_clip_text.py) through the CLI: tfenc embed of texts
# (the text tower) and tfenc classify --image --labels (zero-shot) against their
# expected.json's float64 references within 1e-5, labels best first (text and
# --json); and the refusals, stderr exactly: --labels on a folder without a text
# tower, a --template without {}, an empty label.
set -eu
tfenc=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
files=$data/images/files
a=$files/photo_astronaut_200x160.jpg b=$files/photo_coffee_150x100.webp

for name in clip st_clip siglip; do
    d=$data/clip_text/$name
    "$tfenc" embed --model "$d" "a photo of a cat" "a red car" "a dog" --json >"$tmp/texts.json"
    "$tfenc" classify --model "$d" --image "$a" "$b" --template "{}" --json \
        --labels "a photo of a cat,a photo of a dog,a photo of a red car" >"$tmp/labels.json"
    "$tfenc" classify --model "$d" --image "$a" --template "a photo of {}" --top-k 2 \
        --labels "a cat,a dog,a red car" >"$tmp/labels.txt"
    $py - "$d/expected.json" "$tmp" "$a" "$b" <<'PY'
import json, sys
import numpy as np
exp, tmp, files = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
got = np.array(json.load(open(f"{tmp}/texts.json"))["embeddings"])
want = np.array(exp["text_embeds"]).reshape(len(exp["texts"]), -1)
assert got.shape == want.shape and np.abs(got - want).max() <= 1e-5, (sys.argv[1], got, want)
labels, L = exp["labels"], len(exp["labels"])
probs = np.array(exp["probs_files"]).reshape(len(files), L)
out = json.load(open(f"{tmp}/labels.json"))
assert [o["image"] for o in out] == files, out
for o, p in zip(out, probs):
    order = sorted(range(L), key=lambda l: -p[l])
    assert [x["label"] for x in o["labels"]] == [labels[l] for l in order], o
    assert all(abs(x["score"] - p[l]) <= 1e-5 for x, l in zip(o["labels"], order)), o
rows = [l.rstrip("\n").split("\t") for l in open(f"{tmp}/labels.txt")]
order = sorted(range(L), key=lambda l: -probs[0][l])[:2]
assert [r[0] for r in rows] == [labels[l][len("a photo of "):] for l in order], rows
assert all(abs(float(r[1]) - probs[0][l]) <= 1e-5 and r[2] == files[0]
           for r, l in zip(rows, order)), rows
PY
done

# refused: the status and stderr exactly
refused() {
    want_status=$1 want=$2
    shift 2
    status=0
    "$tfenc" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    got=$(cat "$tmp/err")
    if [ "$status" != "$want_status" ] || [ "$got" != "$want" ] || [ -s "$tmp/out" ]; then
        echo "tfenc $*: expected status $want_status and '$want', got $status and '$got'" >&2
        exit 1
    fi
}
vision=$data/image_pipeline/clip clip=$data/clip_text/clip
no_text="tf_pipeline_zero_shot: the pipeline has no text tower (a CLIPModel or SiglipModel"
refused 1 "tfenc classify: $no_text folder with its tokenizer has one)" \
    classify --model "$vision" --image "$a" --labels "a cat,a dog"
refused 2 "tfenc classify: --template 'a photo': no {} where the label goes" \
    classify --model "$clip" --image "$a" --labels "a cat" --template "a photo"
refused 2 "tfenc classify: --labels 'a cat,,a dog': label 1 is empty" \
    classify --model "$clip" --image "$a" --labels "a cat,,a dog"
refused 2 "tfenc classify: --template: only with --labels" \
    classify --model "$clip" --image "$a" --template "a {}"
echo "check_cli_clip_text: embed of texts and classify --labels match gen_clip_text.py's values"
