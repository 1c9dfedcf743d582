#!/bin/sh
# check_cli_options.sh TFENC DATA_DIR — every subcommand of tfenc refuses a
# bad flag value with exit status 2 and one line on stderr that names the
# flag, what it expects and the value it got: numbers out of range, with
# trailing garbage or beyond 64 bits, a negative seed, non-finite floats,
# enum names the library does not know, a flag without its value.
set -eu
tfenc=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model=$tmp/model.safetensors vocab=$data/wordpiece/vocab.txt
"$tfenc" create "$model" --vocab "$vocab" --d-model 32 --heads 2 --d-ff 64 >/dev/null

# refused MESSAGE ARGS...: tfenc ARGS exits 2, prints nothing on stdout and
# the line MESSAGE on stderr.
refused() {
    message=$1
    shift
    status=0
    "$tfenc" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
    [ "$status" -eq 2 ] || { echo "tfenc $*: exit status $status, expected 2"; cat "$tmp/err"; exit 1; }
    [ ! -s "$tmp/out" ] || { echo "tfenc $*: printed to stdout"; cat "$tmp/out"; exit 1; }
    grep -qxF -- "$message" "$tmp/err" ||
        { echo "tfenc $*: expected the line: $message"; echo "got:"; cat "$tmp/err"; exit 1; }
    count=$((count + 1))
}
count=0
out=$tmp/new.safetensors

refused "tfenc create: --d-model: expected an integer 1..65536, got 'abc'" create "$out" --d-model abc
refused "tfenc create: --d-model: expected an integer 1..65536, got '99999999999'" create "$out" --d-model 99999999999
refused "tfenc create: --d-model: expected an integer 1..65536, got '64x'" create "$out" --d-model 64x
refused "tfenc create: --d-model: expected an integer 1..65536, got ' 64'" create "$out" --d-model " 64"
refused "tfenc create: --d-model: expected an integer 1..65536, got ''" create "$out" --d-model ""
refused "tfenc create: --d-model: expected an integer 1..65536, got nothing" create "$out" --d-model
refused "tfenc create: --layers: expected an integer 1..1024, got '0'" create "$out" --layers 0
refused "tfenc create: --vocab-size: expected an integer 0..16777216, got '-5'" create "$out" --vocab-size -5
refused "tfenc create: --max-positions: expected an integer 0..16777216, got '1e3'" create "$out" --max-positions 1e3
refused "tfenc create: --token-types: expected an integer 0..65536, got '0x10'" create "$out" --token-types 0x10
refused "tfenc create: --seed: expected an integer 0..18446744073709551615, got '-1'" create "$out" --seed -1
refused "tfenc create: --seed: expected an integer 0..18446744073709551615, got 'abc'" create "$out" --seed abc
refused "tfenc create: --seed: expected an integer 0..18446744073709551615, got '18446744073709551616'" \
    create "$out" --seed 18446744073709551616
refused "tfenc create: --positions: expected none, sinusoidal, learned, rotary or alibi, got 'rope'" create "$out" --positions rope
refused "tfenc create: --activation: expected gelu, gelu_tanh, relu, silu or quick_gelu, got 'swish'" create "$out" --activation swish
refused "tfenc create: --vocab: expected a vocab.txt, got nothing" create "$out" --vocab
refused "tfenc create: --vocab and --vocab-size both set the vocabulary size: give one" \
    create "$out" --vocab "$vocab" --vocab-size 10
refused "tfenc create: unknown option '--colour'" create "$out" --colour
refused "tfenc create: one output file, got 'a.safetensors' and 'b.safetensors'" create a.safetensors b.safetensors
[ ! -e "$out" ] || { echo "a refused tfenc create wrote $out"; exit 1; }

refused "tfenc info: --n-heads: expected an integer 1..65536, got '0'" info --n-heads 0 "$data/bert_tiny"
refused "tfenc info: --n-heads: expected an integer 1..65536, got '4.5'" info --n-heads 4.5 "$data/bert_tiny"
refused "tfenc info: --eps: expected a number 1e-30..1, got 'nan'" info --eps nan "$data/bert_tiny"
refused "tfenc info: --eps: expected a number 1e-30..1, got 'inf'" info --eps inf "$data/bert_tiny"
refused "tfenc info: --eps: expected a number 1e-30..1, got '1e-50'" info --eps 1e-50 "$data/bert_tiny"
refused "tfenc info: --eps: expected a number 1e-30..1, got '1e-5,'" info --eps 1e-5, "$data/bert_tiny"
refused "tfenc info: --activation: expected gelu, gelu_tanh, relu, silu or quick_gelu, got 'gelu_new'" \
    info --activation gelu_new "$data/bert_tiny"
refused "tfenc info: --norm-first: expected true or false, got 'yes'" info --norm-first yes "$data/bert_tiny"
refused "tfenc info: one checkpoint, got 'a' and 'b'" info a b

refused "tfenc embed: --pool: expected cls, mean, max, mean_sqrt_len_tokens, weightedmean or lasttoken, got 'median'" embed --model "$model" --pool median hello
refused "tfenc embed: --max-length: expected an integer 3..16777216, got '2'" \
    embed --model "$model" --max-length 2 hello
refused "tfenc embed: --model: expected a model folder, file or Hub id, got nothing" embed --model
refused "tfenc embed: --n-heads: expected an integer 1..65536, got '-2'" embed --model "$model" --n-heads -2 hi
refused "tfenc embed: unknown option '--batch'" embed --model "$model" --batch 4 hello

refused "tfenc explain: --layer: expected an integer 0..1023, got '-1'" explain --layer -1
refused "tfenc explain: --head: expected an integer 0..65535, got '1.0'" explain --head 1.0
refused "tfenc explain: --heads: expected an integer 1..65536, got '8 '" explain --heads "8 "
refused "tfenc explain: --seed: expected an integer 0..18446744073709551615, got '-1'" explain --seed -1
refused "tfenc explain: --tol: expected a number 1e-30..1e+09, got '1e-4x'" explain --tol 1e-4x
refused "tfenc explain: --tol: expected a number 1e-30..1e+09, got '-1'" explain --tol -1
refused "tfenc explain: --text: expected a text, got nothing" explain --text
refused "tfenc explain: unknown option '--verbose'" explain --verbose
echo "tfenc: $count bad command lines refused with the flag, the expectation and the value"
