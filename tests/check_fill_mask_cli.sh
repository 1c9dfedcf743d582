#!/bin/sh
# check_fill_mask_cli.sh TFENC DATA_DIR — tfenc fill-mask on every folder of
# tests/data/mlm against its expected.json (gen_mlm.py's float64 references):
# --output json (FillMaskPipeline's shapes: a list for one mask, a list of
# lists for several) with tokens, token_str and sequence equal and scores
# within 1e-5, --output jsonl and text alike, --file; and the refusals: a
# text without a mask token, --top-k 0, an unknown --output, a folder of
# another kind (naming the subcommand that runs it).
set -eu
tfenc=$1 data=$2/mlm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

for name in bert_base_uncased bert_untied distilbert_base_uncased electra_generator \
    roberta_base roberta_untied xlm_roberta_base modernbert_base; do
    d=$data/$name
    # the texts as arguments, from expected.json (one holds a newline)
    $py - "$tfenc" "$d" "$tmp" <<'PY'
import json, subprocess, sys
tfenc, d, tmp = sys.argv[1:]
exp = json.load(open(f"{d}/expected.json"))
texts = [c["text"] for c in exp["cases"]]
k = str(exp["top_k"])
def run(*args):
    return subprocess.run([tfenc, "fill-mask", "--model", d, "--top-k", k, *args],
                          check=True, capture_output=True, text=True).stdout
def check(pred, case, what):
    masks = case["predictions"]
    rows = pred if len(masks) > 1 else [pred]
    assert len(rows) == len(masks), what
    for got_row, want_row in zip(rows, masks):
        assert len(got_row) == len(want_row), what
        for g, w in zip(got_row, want_row):
            assert (g["token"], g["token_str"], g["sequence"]) == \
                (w["token"], w["token_str"], w["sequence"]), (what, g, w)
            assert abs(g["score"] - w["score"]) <= 1e-5, (what, g, w)
for got, case in zip(json.loads(run("--output", "json", *texts)), exp["cases"]):
    check(got, case, f"{d} json")
lines = run("--output", "jsonl", *texts).splitlines()
assert len(lines) == len(texts), d
for i, (line, case) in enumerate(zip(lines, exp["cases"])):
    got = json.loads(line)
    assert got["index"] == i and got["text"] == case["text"], (d, got)
    check(got["predictions"], case, f"{d} jsonl")
# text: a line a prediction, text and mask numbers, score, id, token, sequence
rows = [l.split("\t") for l in run(*texts).splitlines()]
want = [(t, m, p) for t, c in enumerate(exp["cases"]) for m, row in enumerate(c["predictions"])
        for p in row]
assert len(rows) == len(want), d
for r, (t, m, p) in zip(rows, want):
    assert (int(r[0]), int(r[1]), int(r[3])) == (t, m, p["token"]), (d, r)
    assert abs(float(r[2]) - p["score"]) <= 1e-5, (d, r)
PY
done

# --file: one text a line, after the arguments
d=$data/bert_base_uncased
printf 'the cat sat on the [MASK].\n[MASK] is the big red house?\n' >"$tmp/file.txt"
"$tfenc" fill-mask --model "$d" --output jsonl --file "$tmp/file.txt" \
    "the quick brown [MASK] jumps over the [MASK] dog" >"$tmp/file.jsonl"
$py - "$d/expected.json" "$tmp/file.jsonl" <<'PY'
import json, sys
exp = json.load(open(sys.argv[1]))["cases"]
got = [json.loads(l) for l in open(sys.argv[2])]
assert [g["text"] for g in got] == [exp[2]["text"], exp[0]["text"], exp[1]["text"]], got
assert got[1]["predictions"][0]["token"] == exp[0]["predictions"][0][0]["token"], got
PY

refused() { # STATUS MESSAGE ARGS...
    status=$1 message=$2
    shift 2
    if "$tfenc" fill-mask "$@" >/dev/null 2>"$tmp/err"; then
        echo "accepted: $*"; exit 1
    else
        rc=$?
    fi
    [ "$rc" -eq "$status" ] || { echo "status $rc, not $status: $*"; exit 1; }
    grep -qF -- "$message" "$tmp/err" || { echo "no '$message' in:"; cat "$tmp/err"; exit 1; }
}
refused 1 "tfenc fill-mask: text 0: text: no mask_token ([MASK]) found on the input" \
    --model "$d" "the cat sat"
refused 2 "tfenc fill-mask: --top-k: expected an integer 1..2147483647, got '0'" \
    --model "$d" --top-k 0 "the [MASK]"
refused 2 "tfenc fill-mask: --output: expected text, json or jsonl, got 'xml'" \
    --model "$d" --output xml "the [MASK]"
refused 1 "a cross-encoder folder; tfenc rerank runs it" \
    --model "$2/pipelines/cross_encoder" "the [MASK]"
echo "check_fill_mask_cli: tfenc fill-mask matches gen_mlm.py's references"
