#!/bin/sh
# check_pipelines.sh TFENC DATA_DIR — tfenc embed, rerank and classify on
# the model folders of tests/data/pipelines and the RoBERTa, XLM-R,
# DistilBERT and ELECTRA folders of tests/data/families against their expected.json
# (gen_pipelines.py's and gen_families.py's float64 references) within 1e-5: --json output,
# prompts, --dimensions, truncation notes, scores sorted best first, and
# the errors of flags a folder decides and of a size it lacks; a cross-encoder
# whose config.json names Identity scoring its logits; an error naming its DOC
# by its position past the first batch; a folder of
# another kind is refused by embed, rerank and classify (--tokens or not),
# naming its kind and the subcommand that runs it.
set -eu
tfenc=$1 data=$2/pipelines
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

st=$data/st_mean_norm
"$tfenc" embed --model "$st" --json "the cat sat on the mat." "a dog runs fast!" \
    "where is the big red house?" "hello world" \
    "the quick brown fox jumps over the lazy dog and the cat sat on the mat" \
    >"$tmp/plain.json" 2>"$tmp/plain.err"
grep -qF "tfenc embed: 1 input longer than 12 tokens (max_seq_length): truncated" "$tmp/plain.err"
"$tfenc" embed --model "$st" --json --prompt-name query "the cat sat on the mat." \
    "a dog runs fast!" "where is the big red house?" "hello world" \
    "the quick brown fox jumps over the lazy dog and the cat sat on the mat" \
    >"$tmp/query.json" 2>/dev/null
"$tfenc" embed --model "$st" --dimensions 8 "the cat sat on the mat." >"$tmp/dims8.txt"
$py - "$st/expected.json" "$tmp" <<'PY'
import json, sys
exp, tmp = json.load(open(sys.argv[1])), sys.argv[2]
def close(got, want, what):
    assert len(got) == len(want), (what, len(got), len(want))
    for g, w in zip(got, want):
        assert len(g) == len(w) and all(abs(a - b) <= 1e-5 for a, b in zip(g, w)), what
for key in ("plain", "query"):
    out = json.load(open(f"{tmp}/{key}.json"))
    assert out["dim"] == 16 and out["truncated"] == 1, out
    close(out["embeddings"], exp[key]["embeddings"], key)
close([[float(v) for v in open(f"{tmp}/dims8.txt").read().split()]], exp["dims8"][:1], "dims 8")
PY

# as all-MiniLM-L6-v2: max_seq_length 256 below 512 positions
mini=$data/st_minilm
$py - "$tfenc" "$mini" <<'PY'
import json, subprocess, sys
tfenc, mini = sys.argv[1], sys.argv[2]
exp = json.load(open(f"{mini}/expected.json"))
run = subprocess.run([tfenc, "embed", "--model", mini, "--json", *exp["texts"]], check=True,
                     capture_output=True, text=True)
out = json.loads(run.stdout)
assert out["truncated"] == 1 and "longer than 256 tokens" in run.stderr, (out, run.stderr)
for g, w in zip(out["embeddings"], exp["embeddings"]):
    assert all(abs(a - b) <= 1e-5 for a, b in zip(g, w)), "st_minilm"
PY

! "$tfenc" embed --model "$st" --dimensions 17 "hello" 2>"$tmp/err"
grep -qF "args.dimensions 17: the model's vectors have 16 dimensions" "$tmp/err"
! "$tfenc" embed --model "$st" --pool cls "hello" 2>"$tmp/err"
grep -qF "tfenc embed: --pool: the folder $st decides it" "$tmp/err"

ce=$data/cross_encoder
q="how many legs does a dog have?"
"$tfenc" rerank --model "$ce" --json "$q" "a dog has four legs." "the sky is blue." \
    "the cat sat on the mat." "dogs have four legs and run fast." >"$tmp/rerank.json"
"$tfenc" rerank --model "$ce" "$q" "a dog has four legs." "the sky is blue." >"$tmp/rerank.txt"
cl=$data/classifier
"$tfenc" classify --model "$cl" --json "i liked the movie." "the movie was bad." \
    "it was not good." >"$tmp/classify.json"
"$tfenc" classify --model "$cl" "i liked the movie." >"$tmp/classify.txt"
$py - "$ce/expected.json" "$cl/expected.json" "$tmp" <<'PY'
import json, sys
ce, cl, tmp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
ranked = json.load(open(f"{tmp}/rerank.json"))
want = sorted(range(4), key=lambda i: -ce["out"][i][0])
assert [r["index"] for r in ranked] == want, ranked
for r in ranked:
    assert abs(r["score"] - ce["out"][r["index"]][0]) <= 1e-5, r
    assert r["text"] == ce["inputs"][r["index"]][1]
lines = open(f"{tmp}/rerank.txt").read().splitlines()
assert len(lines) == 2 and float(lines[0].split("\t")[0]) >= float(lines[1].split("\t")[0])
out = json.load(open(f"{tmp}/classify.json"))
for i, item in enumerate(out):
    scores = {l["label"]: l["score"] for l in item["labels"]}
    for k, label in enumerate(cl["labels"]):
        assert abs(scores[label] - cl["out"][i][k]) <= 1e-5, (item, cl["out"][i])
    assert item["labels"][0]["score"] == max(scores.values())
best = max(range(3), key=lambda k: cl["out"][0][k])
assert open(f"{tmp}/classify.txt").read().split("\t")[0] == cl["labels"][best]
PY
# a cross-encoder whose config.json names Identity (as sentence-transformers v4 saves
# ms-marco models): its logits (gen_ce_activation.py's), as CrossEncoder.predict gives them
ident=$2/ce_activation/identity
"$tfenc" rerank --model "$ident" --json "$q" "a dog has four legs." "the sky is blue." \
    "the cat sat on the mat." "dogs have four legs and run fast." >"$tmp/identity.json"
$py - "$ident/expected.json" "$tmp/identity.json" <<'PY'
import json, sys
exp, ranked = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [r["index"] for r in ranked] == sorted(range(4), key=lambda i: -exp["out"][i][0]), ranked
assert all(abs(r["score"] - exp["out"][r["index"]][0]) <= 1e-5 for r in ranked), ranked
PY
# a DOC's error names its position among the DOCs, past the first batch of 32 too
(set --
 while [ $# -lt 34 ]; do set -- "$@" "doc $#"; done
 ! "$tfenc" rerank --model "$ce" "$q" "$@" "$(printf 'bad \377 doc')" 2>"$tmp/err")
grep -qF "pair 34: invalid UTF-8 at byte 4 (0xff)" "$tmp/err" || { cat "$tmp/err"; exit 1; }
# RoBERTa (tokenizer.json, </s></s> pairs) and DistilBERT folders of tests/data/families
fam=$2/families
$py - "$tfenc" "$fam" <<'PY'
import json, subprocess, sys
tfenc, fam = sys.argv[1], sys.argv[2]
def run(*args):
    return json.loads(subprocess.run([tfenc, args[0], "--json", *args[1:]],
                                     check=True, capture_output=True, text=True).stdout)
for name in ("roberta_cross_encoder", "xlmr_cross_encoder", "modernbert_cross_encoder"):
    ce = json.load(open(f"{fam}/{name}/expected.json"))
    for (query, doc), want in zip(ce["inputs"], ce["out"]):
        got = run("rerank", "--model", f"{fam}/{name}", query, doc)
        assert len(got) == 1 and abs(got[0]["score"] - want[0]) <= 1e-5, (name, query, got, want)
for folder in ("bert_token_classifier", "roberta_token_classifier"):
    tc = json.load(open(f"{fam}/{folder}/expected.json"))
    texts = [t["text"] for t in tc["texts"]]
    for agg in ("none", "simple", "first", "average", "max"):
        key = "entity" if agg == "none" else "entity_group"
        got = run("classify", "--tokens", "--aggregation", agg, "--model", f"{fam}/{folder}",
                  *texts)
        for item, want in zip(got, tc["texts"]):
            assert [(e[key], e["word"], e["start"], e["end"]) for e in item["entities"]] == \
                [(e[key], e["word"], e["start"], e["end"]) for e in want[agg]], \
                (folder, agg, item, want[agg])
            assert all(abs(e["score"] - w["score"]) <= 1e-5
                       for e, w in zip(item["entities"], want[agg]))
# an encoder folder with ELECTRA's embeddings_project (embedding_size 8, hidden_size 16)
el = json.load(open(f"{fam}/electra_small/expected_embed.json"))
out = subprocess.run([tfenc, "embed", "--model", f"{fam}/electra_small", el["text"]], check=True,
                     capture_output=True, text=True).stdout.split()
assert len(out) == 16 and all(abs(float(a) - b) <= 1e-5 for a, b in zip(out, el["mean"])), out
for name in ("xlmr_st", "nomic_st", "gte_st", "jina_st", "jina_code_st", "modernbert_st"):
    st = json.load(open(f"{fam}/{name}/expected.json"))
    got = run("embed", "--model", f"{fam}/{name}", *st["texts"])
    assert got["dim"] == 8 and got["truncated"] == 0, got
    for g, w in zip(got["embeddings"], st["embeddings"]):
        assert all(abs(a - b) <= 1e-5 for a, b in zip(g, w)), (name, g, w)
query = run("embed", "--model", f"{fam}/nomic_st", "--prompt-name", "query", "what is a cat?")
written = run("embed", "--model", f"{fam}/nomic_st", "search_query: what is a cat?")
assert query["embeddings"] == written["embeddings"], (query, written)
doc = run("embed", "--model", f"{fam}/modernbert_st", "--prompt-name", "document", "a cat sat")
written = run("embed", "--model", f"{fam}/modernbert_st", "search_document: a cat sat")
assert doc["embeddings"] == written["embeddings"], (doc, written)
# nomic-embed-text-v1.5's Matryoshka recipe (layer norm, the first 4, unit length), float64
mat = json.load(open(f"{fam}/nomic_st/expected_matryoshka.json"))
texts = json.load(open(f"{fam}/nomic_st/expected.json"))["texts"]
got = run("embed", "--model", f"{fam}/nomic_st", "--dimensions", "4", "--dimensions-layer-norm",
          *texts)
assert got["dim"] == 4, got
for g, w in zip(got["embeddings"], mat["embeddings"]):
    assert all(abs(a - b) <= 1e-5 for a, b in zip(g, w)), ("matryoshka", g, w)
st = json.load(open(f"{fam}/mpnet_st/expected.json"))
got = run("embed", "--model", f"{fam}/mpnet_st", *st["texts"])
assert got["dim"] == 16 and got["truncated"] == 1, got
for g, w in zip(got["embeddings"], st["embeddings"]):
    assert all(abs(a - b) <= 1e-5 for a, b in zip(g, w)), ("mpnet_st", g, w)
for name in ("roberta_classifier", "distilbert_classifier", "electra_classifier",
             "mpnet_classifier", "modernbert_classifier"):
    cl = json.load(open(f"{fam}/{name}/expected.json"))
    out = run("classify", "--model", f"{fam}/{name}", *[t for t, _ in cl["inputs"]])
    for item, want in zip(out, cl["out"]):
        scores = {l["label"]: l["score"] for l in item["labels"]}
        assert all(abs(scores[l] - w) <= 1e-5 for l, w in zip(cl["labels"], want)), (name, item)
PY

# wrong_kind DIR KIND RUNS COMMAND ARGS...: tfenc COMMAND --model DIR ARGS exits 1, prints
# nothing on stdout, and says on stderr what kind of folder DIR is and which subcommand runs it.
wrong_kind() {
    dir=$1 kind=$2 runs=$3 command=$4
    shift 4
    status=0
    "$tfenc" "$command" --model "$dir" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    line="tfenc $command: $dir: $kind folder; $runs runs it"
    [ "$status" -eq 1 ] && [ ! -s "$tmp/out" ] && grep -qxF -- "$line" "$tmp/err" ||
        { echo "tfenc $command on $dir: exit status $status, expected 1 and the line: $line"
          cat "$tmp/out" "$tmp/err"; exit 1; }
}
cl=$data/classifier
wrong_kind "$fam/roberta_classifier" "a classifier" "tfenc classify" embed "a text"
wrong_kind "$cl" "a classifier" "tfenc classify" embed "a text"  # it has a vocab.txt
wrong_kind "$cl" "a classifier" "tfenc classify" embed --json "a text"
wrong_kind "$ce" "a cross-encoder" "tfenc rerank" embed "a text"
wrong_kind "$fam/roberta_token_classifier" "a token-classifier" "tfenc classify --tokens" \
    embed "a text"
wrong_kind "$st" "an embedding" "tfenc embed" rerank "$q" "a doc"
wrong_kind "$cl" "a classifier" "tfenc classify" rerank "$q" "a doc"
wrong_kind "$st" "an embedding" "tfenc embed" classify "a text"
wrong_kind "$fam/roberta_token_classifier" "a token-classifier" "tfenc classify --tokens" \
    classify "a text"
wrong_kind "$cl" "a classifier" "tfenc classify" classify --tokens "a text"
wrong_kind "$st" "an embedding" "tfenc embed" classify --tokens "a text"
"$tfenc" classify --model "$ce" "a text" >/dev/null  # one label: a classifier too
echo "pipelines: embed, rerank and classify match the references; a folder of another kind names it"
