#!/bin/sh
# check_serve_absent.sh TFENC DATA_DIR — in a build without the server
# (-Dserve=false), `tfenc serve` with any arguments (a model that loads,
# --help, none) prints one line on stderr saying so, nothing on stdout,
# and exits 2.
set -eu
tfenc=$1 data=$2
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
line='tfenc serve: this tfenc was built without the server (meson setup -Dserve=false);'
line="$line build with -Dserve=true, which needs libmicrohttpd"

for args in "" "--help" "--model $data/pipelines/st_mean_norm --port 0"; do
    rc=0
    # shellcheck disable=SC2086 # each case's arguments, split on spaces
    "$tfenc" serve $args >"$out" 2>"$err" || rc=$?
    [ "$rc" -eq 2 ] || { echo "serve $args: exit status $rc, not 2"; cat "$err"; exit 1; }
    [ ! -s "$out" ] || { echo "serve $args: wrote on stdout:"; cat "$out"; exit 1; }
    [ "$(cat "$err")" = "$line" ] || { echo "serve $args: stderr was:"; cat "$err"; exit 1; }
done
echo "tfenc serve without the server: exit 2, one line"
