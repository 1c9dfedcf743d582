#!/bin/sh
# check_cli_precision.sh TFENC DATA_DIR — tfenc embed --precision:
#  - int8, uint8, binary and ubinary are sentence-transformers'
#    quantize_embeddings of the float32 vectors (numpy's float32 arithmetic
#    from sentence_transformers/quantization.py, the end bucket outside the
#    ranges), with ranges from the texts or from --calibration's rows;
#  - the same integers in text, json ("precision" added), jsonl and npy
#    (dtype int8 for int8 and binary, uint8 for uint8 and ubinary), on
#    stdout or in --out with the note "wrote N vectors of W <precision> values";
#  - bad command lines get one exact line and exit 2; a dimension without a
#    range, or a calibration file of another shape, one line and exit 1;
#  - --multi-vector (a ColBERT folder's token vectors): every text's rows
#    quantized together (tests/data/gen_quantize.py multi_vector_reference),
#    ranges from all texts' rows or from --calibration's, one JSON line a
#    text with "precision", on stdout or in --out.
set -eu
tfenc=$1 data=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
st=$data/pipelines/st_dense

fails() {
    want=$1 message=$2
    shift 2
    status=0
    "$tfenc" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq "$want" ] ||
        { echo "tfenc $*: exit status $status, expected $want" >&2; cat "$tmp/err" >&2; exit 1; }
    grep -qxF -- "$message" "$tmp/err" ||
        { printf 'tfenc %s: expected the line: %s\ngot:\n' "$*" "$message" >&2; cat "$tmp/err" >&2; exit 1; }
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "tfenc $*: more than one line:"; cat "$tmp/err"; exit 1; }
}

printf 'the cat sat.\na dog runs fast!\nhello\nwhere is the red house?\n' >"$tmp/texts.txt"
printf 'the quick brown fox\nhow many legs does a cat have\n' >"$tmp/calibration.txt"
"$tfenc" embed --model "$st" --file "$tmp/texts.txt" --output npy >"$tmp/float.npy"
"$tfenc" embed --model "$st" --file "$tmp/calibration.txt" --output npy >"$tmp/calibration.npy"
for p in int8 uint8 binary ubinary; do
    set -- embed --model "$st" --file "$tmp/texts.txt" --precision "$p"
    "$tfenc" "$@" >"$tmp/$p.text"
    "$tfenc" "$@" --output json >"$tmp/$p.json"
    "$tfenc" "$@" --output jsonl >"$tmp/$p.jsonl"
    "$tfenc" "$@" --output npy >"$tmp/$p.npy"
    "$tfenc" "$@" --output npy --out "$tmp/$p.out.npy" 2>"$tmp/err"
    case $p in *int8) width=6 ;; *) width=1 ;; esac # 6 values, or their 6 bits in a byte
    grep -qxF "tfenc embed: wrote 4 vectors of $width $p values to $tmp/$p.out.npy" "$tmp/err" ||
        { echo "embed --precision $p --out:"; cat "$tmp/err"; exit 1; }
done
for p in int8 uint8; do
    "$tfenc" embed --model "$st" --file "$tmp/texts.txt" --precision "$p" \
        --calibration "$tmp/calibration.npy" --output npy >"$tmp/$p.calibrated.npy"
done
"$py" - "$tmp" <<'PY'
import json, sys
import numpy as np
tmp = sys.argv[1]
x = np.load(f"{tmp}/float.npy")  # [4, 6] float32
assert x.dtype == np.float32 and x.shape == (4, 6), (x.dtype, x.shape)
cal = np.load(f"{tmp}/calibration.npy")
BUCKETS = {"int8": (np.int8, 128), "uint8": (np.uint8, 0)}
def buckets(p, lo, hi):
    """quantize_embeddings: ((x - starts) / steps [- 128]).astype, float32; the end
    bucket outside the precision (include/tfenc.h)."""
    dtype, offset = BUCKETS[p]
    q = (x - lo) / ((hi - lo) / 255) - offset
    assert q.dtype == np.float32
    info = np.iinfo(dtype)
    return np.clip(q, info.min, info.max).astype(dtype)
bits = np.packbits(x > 0, axis=-1)  # each row on its own: 6 values, one byte
want = {"int8": buckets("int8", x.min(0), x.max(0)),
        "uint8": buckets("uint8", x.min(0), x.max(0)),
        "binary": (bits - 128).astype(np.int8), "ubinary": bits}
for p, w in want.items():
    for name in (f"{p}.npy", f"{p}.out.npy"):
        got = np.load(f"{tmp}/{name}")
        assert got.dtype == w.dtype and np.array_equal(got, w), (name, got, w)
    text = np.array([[int(v) for v in line.split()] for line in open(f"{tmp}/{p}.text")])
    assert np.array_equal(text, w), (p, text, w)
    doc = json.load(open(f"{tmp}/{p}.json"))
    assert doc["dim"] == 6 and doc["precision"] == p and doc["truncated"] == 0, doc
    assert np.array_equal(np.array(doc["embeddings"]), w), (p, doc)
    lines = [json.loads(l) for l in open(f"{tmp}/{p}.jsonl")]
    assert [l["index"] for l in lines] == [0, 1, 2, 3]
    assert np.array_equal(np.array([l["embedding"] for l in lines]), w), (p, lines)
for p in ("int8", "uint8"):
    got = np.load(f"{tmp}/{p}.calibrated.npy")
    w = buckets(p, cal.min(0), cal.max(0))
    assert np.array_equal(got, w), (p, got, w)
assert (np.load(f"{tmp}/uint8.calibrated.npy") == 255).any()  # a value above the calibration's
PY

fails 2 "tfenc embed: --precision: expected float32, int8, uint8, binary or ubinary, got 'int4'" \
    embed --model "$st" --precision int4 hi
fails 2 "tfenc embed: --precision: expected float32, int8, uint8, binary or ubinary, got nothing" \
    embed --model "$st" hi --precision
fails 2 "tfenc embed: --calibration: only --precision int8 and uint8 use ranges, got --precision binary" \
    embed --model "$st" --precision binary --calibration "$tmp/calibration.npy" hi
fails 2 "tfenc embed: --calibration: only --precision int8 and uint8 use ranges, got --precision float32" \
    embed --model "$st" --calibration "$tmp/calibration.npy" hi
"$tfenc" embed --model "$st" --output npy hello >"$tmp/hello.npy"
one=$("$py" -c "import numpy as np; print('%.9g' % np.load('$tmp/hello.npy')[0, 0])")
fails 1 "tfenc embed: --precision int8: embeddings: dimension 0 has no range to quantize (minimum $one, maximum $one: step (max - min) / 255 = 0 in float32); int8 and uint8 need a maximum above the minimum in every dimension (calibration embeddings that differ there)" \
    embed --model "$st" --precision int8 hello
"$py" -c "import numpy as np; np.save('$tmp/wide.npy', np.zeros((2, 7), np.float32))"
fails 1 "tfenc embed: --calibration $tmp/wide.npy: expected float32 embeddings [rows, 6] (rows >= 1), got float32 [2, 7]" \
    embed --model "$st" --precision uint8 --calibration "$tmp/wide.npy" hi
fails 1 "tfenc embed: --calibration $tmp/none.npy: $tmp/none.npy: cannot open: No such file or directory" \
    embed --model "$st" --precision uint8 --calibration "$tmp/none.npy" hi
colbert=$data/colbert/answerai_like
set -- embed --model "$colbert" --multi-vector --file "$tmp/texts.txt"
"$tfenc" "$@" >"$tmp/tokens.jsonl"
"$tfenc" embed --model "$colbert" --multi-vector --file "$tmp/calibration.txt" >"$tmp/cal.jsonl"
"$py" -c "import json, sys, numpy as np
rows = [r for l in open(sys.argv[1]) for r in json.loads(l)['vectors']]
np.save(sys.argv[2], np.array(rows, np.float32))" "$tmp/cal.jsonl" "$tmp/tokens_cal.npy"
for p in int8 uint8 binary ubinary; do
    "$tfenc" "$@" --precision "$p" >"$tmp/tokens.$p.jsonl"
done
for p in int8 uint8; do
    "$tfenc" "$@" --precision "$p" --calibration "$tmp/tokens_cal.npy" \
        --out "$tmp/tokens.$p.calibrated.jsonl"
done
"$py" - "$tmp" "$data" <<'PY'
import json, sys
import numpy as np
tmp, data = sys.argv[1], sys.argv[2]
sys.path.insert(0, data)
from gen_quantize import multi_vector_reference
def lines(name):
    return [json.loads(l) for l in open(f"{tmp}/{name}")]
floats = [np.array(l["vectors"], np.float32) for l in lines("tokens.jsonl")]
assert len(floats) == 4 and all(m.shape[1] == 8 for m in floats), [m.shape for m in floats]
cal = np.load(f"{tmp}/tokens_cal.npy")  # [rows, 8]: the calibration texts' token vectors
def check(name, p, calibration=None):
    want = multi_vector_reference(floats, p, calibration)
    got = lines(name)
    assert len(got) == 4, got
    for l, w in zip(got, want):
        assert l["rows"] == len(w) and l["dim"] == 8 and l["precision"] == p, l
        assert all(isinstance(v, int) for r in l["vectors"] for v in r), l
        assert np.array_equal(np.array(l["vectors"]), w), (name, l, w)
for p in ("int8", "uint8", "binary", "ubinary"):
    check(f"tokens.{p}.jsonl", p)
for p in ("int8", "uint8"):
    check(f"tokens.{p}.calibrated.jsonl", p, cal)
# the batch's ranges span all texts: one text alone would quantize its rows otherwise
alone = multi_vector_reference(floats[:1], "int8")[0]
assert not np.array_equal(alone, multi_vector_reference(floats, "int8")[0])
PY
fails 1 "tfenc embed: --calibration $tmp/wide.npy: expected float32 embeddings [rows, 8] (rows >= 1), got float32 [2, 7]" \
    embed --model "$colbert" --multi-vector --precision int8 --calibration "$tmp/wide.npy" hi
fails 2 "tfenc embed: --calibration: only --precision int8 and uint8 use ranges, got --precision ubinary" \
    embed --model "$colbert" --multi-vector --precision ubinary --calibration "$tmp/wide.npy" hi
fails 2 "tfenc embed: --output: not with --multi-vector (one JSON line of vectors a text)" \
    embed --model "$colbert" --multi-vector --precision int8 --output npy hi
echo "tfenc embed --precision: ok"
