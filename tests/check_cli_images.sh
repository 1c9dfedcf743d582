#!/bin/sh
# check_cli_images.sh TFENC DATA_DIR — tfenc embed --image and tfenc classify
# --image on the folders of tests/data/image_pipeline against their
# expected.json (gen_image_pipeline.py's float64 references): every output
# form of embed (jsonl, json, text, npy) within 1e-5, --image - (paths on
# standard input), classify's top-k labels best first (text and --json);
# and the refusals, stderr exactly: a file that is not an image, a truncated
# one, one that cannot be read, a folder of another kind, --image without a
# file, --top-k 0.
set -eu
tfenc=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
files=$data/images/files
a=$files/photo_astronaut_200x160.jpg b=$files/photo_coffee_150x100.webp

for name in clip st_clip siglip vit_model; do
    d=$data/image_pipeline/$name
    "$tfenc" embed --model "$d" --image "$a" --image "$b" --output jsonl >"$tmp/out.jsonl"
    "$tfenc" embed --model "$d" --image "$a" "$b" --json >"$tmp/out.json"
    "$tfenc" embed --model "$d" --image "$a" "$b" >"$tmp/out.txt"
    "$tfenc" embed --model "$d" --image "$a" "$b" --output npy --out "$tmp/out.npy" 2>/dev/null
    printf '%s\n%s\n' "$a" "$b" | "$tfenc" embed --model "$d" --image - --json >"$tmp/stdin.json"
    $py - "$d/expected.json" "$tmp" <<'PY'
import json, sys
import numpy as np
exp, tmp = json.load(open(sys.argv[1])), sys.argv[2]
want = np.array(exp["values"]).reshape(exp["shape"])
forms = {
    "jsonl": [json.loads(l)["embedding"] for l in open(f"{tmp}/out.jsonl")],
    "json": json.load(open(f"{tmp}/out.json"))["embeddings"],
    "text": [[float(v) for v in l.split()] for l in open(f"{tmp}/out.txt")],
    "npy": np.load(f"{tmp}/out.npy").tolist(),
    "stdin": json.load(open(f"{tmp}/stdin.json"))["embeddings"],
}
for form, got in forms.items():
    err = np.abs(np.array(got) - want).max()
    assert np.array(got).shape == want.shape and err <= 1e-5, (sys.argv[1], form, err)
assert json.load(open(f"{tmp}/out.json"))["dim"] == want.shape[1]
PY
done

d=$data/image_pipeline/vit_classifier
"$tfenc" classify --model "$d" --image "$a" "$b" --json --top-k 2 >"$tmp/labels.json"
"$tfenc" classify --model "$d" --image "$a" "$b" >"$tmp/labels.txt"
$py - "$d/expected.json" "$tmp" "$a" "$b" <<'PY'
import json, sys
exp, tmp, files = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
labels = ["tabby cat", "golden retriever", "teapot"]
probs = [exp["values"][i * 3:(i + 1) * 3] for i in range(2)]
best = [sorted(range(3), key=lambda l: -p[l]) for p in probs]
got = json.load(open(f"{tmp}/labels.json"))
assert [g["image"] for g in got] == files, got
for g, p, order in zip(got, probs, best):
    assert [x["label"] for x in g["labels"]] == [labels[l] for l in order[:2]], g
    assert all(abs(x["score"] - p[l]) <= 1e-5 for x, l in zip(g["labels"], order)), g
rows = [l.rstrip("\n").split("\t") for l in open(f"{tmp}/labels.txt")]
assert len(rows) == 6, rows  # every label (3 < the default top_k 5), best first
for i, (f, p, order) in enumerate(zip(files, probs, best)):
    for r, l in zip(rows[3 * i:3 * i + 3], order):
        assert r[0] == labels[l] and r[2] == f and abs(float(r[1]) - p[l]) <= 1e-5, r
PY

# the refusals: exit status and stderr exactly
refused() { # STATUS MESSAGE SUBCOMMAND ARGS...
    status=$1 message=$2
    shift 2
    if "$tfenc" "$@" >/dev/null 2>"$tmp/err"; then
        echo "accepted: $*"; exit 1
    else
        rc=$?
    fi
    [ "$rc" -eq "$status" ] || { echo "status $rc, not $status: $*"; cat "$tmp/err"; exit 1; }
    printf '%s\n' "$message" >"$tmp/want"
    cmp -s "$tmp/err" "$tmp/want" || { echo "stderr of $*:"; cat "$tmp/err"; echo "wanted:";
        cat "$tmp/want"; exit 1; }
}
clip=$data/image_pipeline/clip hostile=$data/images/hostile
refused 1 "tfenc embed: $hostile/text.txt: not a JPEG, PNG or WebP image: it starts with "\
"68 65 6c 6c 6f 2c 20 77" \
    embed --model "$clip" --image "$a" "$hostile/text.txt"
refused 1 "tfenc embed: $hostile/truncated.png: truncated PNG: the data ends before the image" \
    embed --model "$clip" --image "$hostile/truncated.png"
refused 1 "tfenc classify: $hostile/image.gif: a GIF image; JPEG, PNG and WebP are read" \
    classify --model "$d" --image "$hostile/image.gif"
refused 1 "tfenc embed: $hostile/huge_65535.jpg: a JPEG image of 65535 x 65535 = 4294836225 "\
"pixels, above the limit of 89478485" \
    embed --model "$clip" --image "$hostile/huge_65535.jpg"
refused 1 "tfenc embed: $tmp/none.png: cannot read: No such file or directory" \
    embed --model "$clip" --image "$tmp/none.png"
refused 1 "tfenc embed: $files: cannot read: not a regular file" \
    embed --model "$clip" --image "$files"
refused 1 "tfenc embed: $d: an image-classifier folder; tfenc classify --image runs it" \
    embed --model "$d" --image "$a"
refused 1 "tfenc classify: $clip: an image-embedding folder; tfenc embed --image runs it" \
    classify --model "$clip" --image "$a"
refused 1 "tfenc embed: $data/pipelines/st_mean_norm: an embedding folder; tfenc embed runs "\
"it" \
    embed --model "$data/pipelines/st_mean_norm" --image "$a"
refused 2 "tfenc embed: --image: expected an image file or - (paths on standard input), got "\
"nothing" \
    embed --model "$clip" --image
refused 2 "tfenc classify: --top-k: expected an integer 1..2147483647, got '0'" \
    classify --model "$d" --image "$a" --top-k 0
echo "check_cli_images: embed --image and classify --image match gen_image_pipeline.py's values"
