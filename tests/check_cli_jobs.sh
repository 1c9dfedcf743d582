#!/bin/sh
# check_cli_jobs.sh TFENC DATA_DIR — tfenc for big jobs:
#  - --file - reads standard input (embed, rerank, classify, tokenize);
#  - embed --output jsonl, json, text and npy give the same float32 bits
#    (JSON numbers read back exactly), on stdout or in --out with the note
#    "wrote N vectors" on stderr only; --batch-size and --threads change
#    no number (of these small models, whose products all take OpenBLAS's
#    small-matrix kernels: docs/server.md, "Batch invariance");
#  - --progress draws the job's progress on stderr, never on stdout;
#  - tfenc --version, -V and version print the version tfenc.h states;
#  - a mistyped subcommand or option gets "did you mean";
#  - bad command lines of these options get one exact line and exit 2.
set -eu
tfenc=$1 data=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vocab=$data/wordpiece/vocab.txt st=$data/pipelines/st_dense ce=$data/pipelines/cross_encoder
model=$tmp/model.safetensors
"$tfenc" create "$model" --vocab "$vocab" --d-model 32 --heads 2 --d-ff 64 >/dev/null

fails() {
    want=$1 message=$2
    shift 2
    status=0
    "$tfenc" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq "$want" ] ||
        { echo "tfenc $*: exit status $status, expected $want" >&2; cat "$tmp/err" >&2; exit 1; }
    grep -qxF -- "$message" "$tmp/err" ||
        { printf 'tfenc %s: expected the line: %s\ngot:\n' "$*" "$message" >&2; cat "$tmp/err" >&2; exit 1; }
}

printf 'the cat sat.\na dog runs fast!\nhello\n' >"$tmp/texts.txt"
for m in "$model --vocab $vocab" "$st"; do
    # shellcheck disable=SC2086
    set -- embed --model $m
    "$tfenc" "$@" --file - --output jsonl <"$tmp/texts.txt" >"$tmp/jsonl" 2>"$tmp/err"
    [ ! -s "$tmp/err" ] || { echo "stderr of embed --output jsonl:"; cat "$tmp/err"; exit 1; }
    "$tfenc" "$@" --file "$tmp/texts.txt" --output json >"$tmp/json"
    "$tfenc" "$@" --file "$tmp/texts.txt" >"$tmp/text"
    "$tfenc" "$@" --file "$tmp/texts.txt" --output npy >"$tmp/stdout.npy"
    "$tfenc" "$@" --file "$tmp/texts.txt" --batch-size 1 --threads 1 --progress \
        --out "$tmp/file.npy" --output npy >"$tmp/out" 2>"$tmp/err"
    [ ! -s "$tmp/out" ] || { echo "embed --out printed on stdout"; exit 1; }
    grep -qF "tfenc embed: wrote 3 vectors of" "$tmp/err" || { cat "$tmp/err"; exit 1; }
    tr '\r' '\n' <"$tmp/err" | grep -qxF "tfenc embed: 3 of 3 texts (100%)" ||
        { echo "no progress line:"; cat "$tmp/err"; exit 1; }
    "$py" - "$tmp" <<'PY'
import ast, json, struct, sys
tmp = sys.argv[1]
def npy(path):  # a '<f4' C-order array, as numpy.load reads it
    b = open(path, "rb").read()
    assert b[:8] == b"\x93NUMPY\x01\x00", b[:8]
    n = struct.unpack("<H", b[8:10])[0]
    h = ast.literal_eval(b[10:10 + n].decode())
    assert h["descr"] == "<f4" and not h["fortran_order"], h
    rows, dim = h["shape"]
    v = struct.unpack("<%df" % (rows * dim), b[10 + n:])
    return [list(v[i * dim:(i + 1) * dim]) for i in range(rows)]
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
lines = [json.loads(l) for l in open(tmp + "/jsonl")]
assert [l["index"] for l in lines] == [0, 1, 2], lines
jsonl = [[f32(x) for x in l["embedding"]] for l in lines]
for x in (v for row in jsonl for v in row):  # each number reads back as a float32
    assert f32(x) == x
js = json.load(open(tmp + "/json"))
text = [[float(x) for x in l.split()] for l in open(tmp + "/text")]
for name, got in [("json", js["embeddings"]), ("text", text), ("npy", npy(tmp + "/stdout.npy")),
                  ("npy --batch-size 1 --out", npy(tmp + "/file.npy"))]:
    assert [[f32(x) for x in row] for row in got] == jsonl, (name, got, jsonl)
assert js["dim"] == len(jsonl[0]) and js["truncated"] == 0, js
PY
done

# --file - for rerank, classify and tokenize: the same as the arguments
printf 'a dog has four legs.\nthe sky is blue.\n' >"$tmp/docs.txt"
"$tfenc" rerank --model "$ce" --json "what has legs?" --file - <"$tmp/docs.txt" >"$tmp/a"
"$tfenc" rerank --model "$ce" --json --batch-size 1 "what has legs?" "a dog has four legs." \
    "the sky is blue." >"$tmp/b"
cmp "$tmp/a" "$tmp/b" || { echo "rerank --file - differs from the arguments"; exit 1; }
"$tfenc" classify --model "$data/pipelines/classifier" --json --file - <"$tmp/docs.txt" >"$tmp/a"
"$tfenc" classify --model "$data/pipelines/classifier" --json --threads 1 "a dog has four legs." \
    "the sky is blue." >"$tmp/b"
cmp "$tmp/a" "$tmp/b" || { echo "classify --file - differs from the arguments"; exit 1; }
"$tfenc" tokenize --tokenizer "$vocab" --file - <"$tmp/docs.txt" >"$tmp/a"
"$tfenc" tokenize --tokenizer "$vocab" -- "a dog has four legs." "the sky is blue." >"$tmp/b"
cmp "$tmp/a" "$tmp/b" || { echo "tokenize --file - differs from the arguments"; exit 1; }

# the version, three ways, is the project's one statement of it (include/tfenc.h's
# TFENC_VERSION_*; check_versions.sh checks that the library reports the same), read without
# loading the library here: an ASan build's cannot be loaded into python3
want="libtfenc $(awk '/^#define TFENC_VERSION_(MAJOR|MINOR|PATCH) / { printf "%s%s", sep, $3; sep = "." }' \
    "$data/../../include/tfenc.h")"
for flag in --version -V version; do
    [ "$("$tfenc" $flag)" = "$want" ] || { echo "tfenc $flag: not '$want'"; exit 1; }
done

# suggestions and bad command lines
fails 2 "tfenc: unknown command 'embd'; did you mean 'embed'?" embd
fails 2 "tfenc: unknown command 'frobnicate'" frobnicate
fails 2 "tfenc embed: unknown option '--modle'; did you mean '--model'?" embed --modle x
fails 2 "tfenc rerank: unknown option '--flie'; did you mean '--file'?" rerank --flie x
fails 2 "tfenc embed: unknown option '--zzzzzz'" embed --zzzzzz
fails 2 "tfenc embed: --output: expected text, json, jsonl or npy, got 'csv'" \
    embed --model "$model" --output csv hi
fails 2 "tfenc embed: --output jsonl and --json: choose one output" \
    embed --model "$model" --output jsonl --json hi
fails 2 "tfenc embed: --npy and --out: choose one output file" \
    embed --model "$model" --npy a.npy --out b hi
fails 2 "tfenc embed: --batch-size: expected an integer 1..65536, got '0'" \
    embed --model "$model" --batch-size 0 hi
fails 2 "tfenc classify: --threads: expected an integer 1..1024, got 'x'" \
    classify --model "$st" --threads x hi
: >"$tmp/empty"
fails 2 "tfenc rerank: --file $tmp/empty: no lines" \
    rerank --model "$ce" --file "$tmp/empty" q </dev/null

# a job run batch by batch (progress shown) names a bad input by its index in the job, in the
# CLI's words (no C status names), and its progress stops at the last batch done
printf 'a\nb\nc\n\377\n' >"$tmp/bad.txt"
fails 1 "tfenc embed: text 3: invalid UTF-8 at byte 0 (0xff)" \
    embed --model "$data/pipelines/st_mean_norm" --file "$tmp/bad.txt" --batch-size 2 --progress
tr '\r' '\n' <"$tmp/err" | grep -qxF "tfenc embed: 2 of 4 texts (50%)" &&
    ! tr '\r' '\n' <"$tmp/err" | grep -qF "4 of 4" ||
    { echo "progress past the failed batch:"; cat "$tmp/err"; exit 1; }
fails 1 "tfenc embed: text 3: invalid UTF-8 at byte 0 (0xff)" \
    embed --model "$data/pipelines/st_mean_norm" --file "$tmp/bad.txt" --batch-size 2 --no-progress
printf 'a dog\n\303\n' >"$tmp/bad_docs.txt"
fails 1 "tfenc rerank: pair 1: invalid UTF-8 at byte 0 (0xc3)" \
    rerank --model "$ce" --file "$tmp/bad_docs.txt" --batch-size 1 --progress q
