#!/bin/sh
# check_cli_io.sh TFENC DATA_DIR — tfenc never reports success when its
# output is lost, and never silently cuts its input:
#  - every subcommand that prints exits 1 with a message when stdout is
#    /dev/full; `embed --out` / `--npy` replace a regular file whole or
#    leave it as it was (a device or a link refused);
#  - `embed --file` refuses a directory, a missing file and a line with a
#    NUL byte, and a tokenizer error names the file and line;
#  - every message is one line of UTF-8: a byte of a path or an argument
#    that is not UTF-8, or a control byte, shows as \xNN; a --model that
#    does not exist is said to be neither a folder nor a Hub id (exit 2);
#  - `embed` truncates a text longer than --max-length (default 512, or the
#    model's max_positions) to that many tokens and says so on stderr: the
#    vector is the one of the truncated text; a --max-length beyond the
#    model's positions is refused;
#  - `explain --compare` refuses a .npy whose shape does not fit its file;
#  - `explain --dump` writes each token whole into index.json;
#  - `explain` refuses a text longer than its walkthrough shows.
# TFENC_SERVE (meson's -Dserve: true or false) says whether tfenc serve is built.
set -eu
tfenc=$1 data=$2 serve=$TFENC_SERVE
[ -c /dev/full ] || { echo "no /dev/full device here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
vocab=$data/wordpiece/vocab.txt
model=$tmp/model.safetensors learned=$tmp/learned.safetensors
"$tfenc" create "$model" --vocab "$vocab" --d-model 32 --heads 2 --d-ff 64 >/dev/null
"$tfenc" create "$learned" --vocab "$vocab" --d-model 32 --heads 2 --d-ff 64 \
    --positions learned --max-positions 128 >/dev/null
"$tfenc" explain --dump "$tmp/dump" >/dev/null
embed() { "$tfenc" embed --model "$model" --vocab "$vocab" "$@"; }

# fails STATUS MESSAGE ARGS...: tfenc ARGS exits STATUS with the line MESSAGE
# on stderr (stdout goes where the caller sent it; the test's own messages
# go to stderr).
fails() {
    want=$1 message=$2
    shift 2
    status=0
    "$tfenc" "$@" 2>"$tmp/err" || status=$?
    [ "$status" -eq "$want" ] ||
        { echo "tfenc $*: exit status $status, expected $want" >&2; cat "$tmp/err" >&2; exit 1; }
    grep -qxF -- "$message" "$tmp/err" ||
        { printf 'tfenc %s: expected the line: %s\ngot:\n' "$*" "$message" >&2; cat "$tmp/err" >&2; exit 1; }
}

full=0
while read -r command args; do
    eval "set -- $args"
    case $command in --*) prefix=tfenc ;; *) prefix="tfenc $command" ;; esac
    fails 1 "$prefix: standard output: No space left on device" "$command" "$@" </dev/null >/dev/full
    full=$((full + 1))
done <<EOF
version
--help
explain
explain --worked-example
explain --dump "$tmp/dump2"
explain --compare "$tmp/dump"
explain --help
info "$data/bert_tiny"
info --help
create "$tmp/created.safetensors" --d-model 8 --heads 2 --d-ff 8
create --help
embed --model "$model" --vocab "$vocab" hello
embed --model "$model" --vocab "$vocab" --output jsonl hello
embed --model "$model" --vocab "$vocab" --output npy hello
embed --help
EOF
# --out and --npy replace a regular file whole (a temporary file renamed over
# it): a device or a link is refused, and a write that fails (here past the
# file-size limit, SIGXFSZ ignored) leaves the old file as it was, with no
# temporary file beside it
fails 1 "tfenc embed: --npy /dev/full: not a regular file: it is a character device; only a regular file is replaced" \
    embed --model "$model" --vocab "$vocab" --npy /dev/full hello >/dev/null
mkdir "$tmp/outdir"
printf 'target\n' >"$tmp/outdir/target"
ln -s target "$tmp/outdir/link"
fails 1 "tfenc embed: --out $tmp/outdir/link: not a regular file: it is a symbolic link; only a regular file is replaced" \
    embed --model "$model" --vocab "$vocab" --out "$tmp/outdir/link" hello
printf 'old\n' >"$tmp/outdir/vectors.txt"
too_large() {
    ( ulimit -f 1 && trap '' XFSZ && exec "$@" ) 2>"$tmp/err" && return 1
    grep -q ": cannot write: File too large$" "$tmp/err" || { cat "$tmp/err"; return 1; }
    [ "$(cat "$tmp/outdir/vectors.txt")" = old ] || { echo "$*: the old file was cut"; return 1; }
    [ "$(ls "$tmp/outdir")" = "$(printf 'link\ntarget\nvectors.txt')" ] ||
        { echo "$*: a temporary file was left:"; ls "$tmp/outdir"; return 1; }
}
texts=$(seq 1 64)
# shellcheck disable=SC2086
too_large "$tfenc" embed --model "$model" --vocab "$vocab" --out "$tmp/outdir/vectors.txt" $texts
# shellcheck disable=SC2086
too_large "$tfenc" embed --model "$model" --vocab "$vocab" --npy "$tmp/outdir/vectors.txt" $texts
[ "$(cat "$tmp/outdir/target")" = target ] || { echo "--out wrote through a link"; exit 1; }

fails 1 "tfenc embed: --file $tmp: is a directory, not a text file" \
    embed --model "$model" --vocab "$vocab" --file "$tmp" >"$tmp/out"
fails 1 "tfenc embed: --file $tmp/none.txt: cannot read: No such file or directory" \
    embed --model "$model" --vocab "$vocab" --file "$tmp/none.txt" >"$tmp/out"
printf 'first line\nsec\000ond\nthird\n' >"$tmp/nul.txt"
fails 1 "tfenc embed: --file $tmp/nul.txt: line 2 holds a NUL byte (byte 4 of the line)" \
    embed --model "$model" --vocab "$vocab" --file "$tmp/nul.txt" >"$tmp/out"
[ ! -s "$tmp/out" ] || { echo "vectors printed for a file with a NUL byte"; exit 1; }

# every message shows a byte that is not UTF-8 (a path's) and a control byte as \xNN, so that
# it is one line of UTF-8; a --model that does not exist is said to be neither a folder nor
# a Hub id
latin1=$(printf '%s/lat\351missing' "$tmp") newline="$tmp/new
line" missing="No such file or directory"
not_id="expected \"name\" or \"org/name\" of letters, digits, '-', '_' and '.'"
not_id="$not_id (as huggingface_hub's validate_repo_id), got more than one '/'"
fails 2 "tfenc embed: --model $tmp/lat\\xE9missing: no such folder, and not a Hub id ($not_id)" \
    embed --model "$latin1" hello >"$tmp/out"
fails 2 "tfenc embed: --model $tmp/new\\x0Aline: no such folder, and not a Hub id ($not_id)" \
    embed --model "$newline" hello >"$tmp/out"
fails 1 "tfenc embed: --file $tmp/lat\\xE9missing: cannot read: $missing" \
    embed --model "$model" --vocab "$vocab" --file "$latin1" >"$tmp/out"
fails 1 "tfenc embed: --file $tmp/new\\x0Aline: cannot read: $missing" \
    embed --model "$model" --vocab "$vocab" --file "$newline" >"$tmp/out"
if [ "$serve" = true ]; then
    fails 1 "tfenc serve: --port-file: $tmp/lat\\xE9missing/x: cannot create: $missing" \
        serve --model "$data/pipelines/st_dense" --port 0 --port-file "$latin1/x" >"$tmp/out"
fi
fails 2 "tfenc classify: --model $tmp/lat\\xE9missing: no such folder, and not a Hub id ($not_id)" \
    classify --model "$latin1" hello >"$tmp/out"
fails 2 "tfenc embed: unknown option '--caf\\xE9'" embed --model "$model" "$(printf -- '--caf\351')"
fails 2 "tfenc: unknown command 'caf\\xE9'" "$(printf 'caf\351')"

# a tokenizer error names the text's own line, not its row in a batch of 32
awk 'BEGIN { for (i = 1; i <= 40; i++) print "line " i; printf "caf\351 latte\n" }' >"$tmp/latin1.txt"
fails 1 "tfenc embed: --file $tmp/latin1.txt line 41: text 0: invalid UTF-8 at byte 3 (0xe9)" \
    embed --model "$model" --vocab "$vocab" --file "$tmp/latin1.txt" >"$tmp/out"

# words N: "hello" N times (each is one token of the vocabulary)
words() { awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "hello%s", i < n ? " " : "\n" }'; }
embed "$(words 510)" >"$tmp/510"
embed "$(words 600)" >"$tmp/600" 2>"$tmp/err"
grep -qxF "tfenc embed: text 1 has more than 512 tokens: truncated to 512 (--max-length)" "$tmp/err" ||
    { echo "no truncation message:"; cat "$tmp/err"; exit 1; }
cmp -s "$tmp/510" "$tmp/600" || { echo "600 words truncated differ from the first 510"; exit 1; }
embed "$(words 510)" 2>"$tmp/err" >/dev/null
[ ! -s "$tmp/err" ] || { echo "a text of 512 tokens was reported:"; cat "$tmp/err"; exit 1; }

{ echo "hello"; words 6; } >"$tmp/short.txt"
{ echo "hello"; words 20; } >"$tmp/long.txt"
embed --max-length 8 --file "$tmp/short.txt" >"$tmp/short"
embed --max-length 8 --file "$tmp/long.txt" >"$tmp/long" 2>"$tmp/err"
grep -qxF "tfenc embed: --file $tmp/long.txt line 2 has more than 8 tokens: truncated to 8 (--max-length)" \
    "$tmp/err" || { echo "no truncation message for the file's line 2:"; cat "$tmp/err"; exit 1; }
[ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "more than line 2 reported:"; cat "$tmp/err"; exit 1; }
cmp -s "$tmp/short" "$tmp/long" || { echo "20 words truncated to 8 tokens differ from 6 words"; exit 1; }

"$tfenc" embed --model "$learned" --vocab "$vocab" "$(words 126)" >"$tmp/126"
"$tfenc" embed --model "$learned" --vocab "$vocab" "$(words 300)" >"$tmp/300" 2>"$tmp/err"
grep -qxF "tfenc embed: text 1 has more than 128 tokens: truncated to 128 (--max-length)" "$tmp/err" ||
    { echo "no truncation to max_positions:"; cat "$tmp/err"; exit 1; }
cmp -s "$tmp/126" "$tmp/300" || { echo "300 words truncated differ from the first 126"; exit 1; }
fails 2 "tfenc embed: --max-length: expected an integer 3..128 (the model's positions), got '200'" \
    embed --model "$learned" --vocab "$vocab" --max-length 200 hello >/dev/null

# --compare reads .npy files it did not write: shapes whose values do not
# fit in the file, 2^62 + 1 of them (x 4 bytes: a size_t product that wraps
# to 4) or 2561, are unreadable, and said to be.
mkdir "$tmp/bad"
for shape in 4611686018427387905, 2561,; do
    cp "$tmp/dump/embed.token.npy" "$tmp/bad/embed.token.npy"
    printf '\223NUMPY\001\000\166\000%-117s\n' "{'descr': '<f4', 'fortran_order': False, 'shape': ($shape), }" |
        dd of="$tmp/bad/embed.token.npy" conv=notrunc 2>/dev/null
    status=0
    "$tfenc" explain --compare "$tmp/bad" >"$tmp/out" 2>&1 || status=$?
    [ "$status" -eq 1 ] && grep -qxF "first tensor over 1.0e-04: embed.token" "$tmp/out" &&
        grep -qF "UNREADABLE: $tmp/bad/embed.token.npy: the shape holds more values than the file's 10240 bytes of data" \
            "$tmp/out" || { echo "shape ($shape) not refused (exit status $status):"; cat "$tmp/out"; exit 1; }
done

# the dump's index keeps each token whole (the tables show its first 15 bytes)
"$tfenc" explain --text "hello supercalifragilistic" --dump "$tmp/whole" >/dev/null
grep -qF '"supercalifragilistic"' "$tmp/whole/index.json" ||
    { echo "index.json lost the long token:"; cat "$tmp/whole/index.json"; exit 1; }

fails 2 "tfenc explain: --text: the text has 72 tokens; explain shows at most 64" \
    explain --text "$(words 70)" >/dev/null
fails 2 "tfenc explain: --text: the text has 72 tokens; explain shows at most 64" \
    explain --vocab "$vocab" --text "$(words 70)" >/dev/null
echo "tfenc: $full subcommands fail on a full stdout; --npy, --file DIR, NUL bytes, truncation and limits as documented"
