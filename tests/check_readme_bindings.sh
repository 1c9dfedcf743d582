#!/bin/sh
# check_readme_bindings.sh ROOT LIBTFENC — the Python examples of README.md
# and docs/python.md run (Debian's python3, from the repository root): the
# forward pass matches Hugging Face, the sentence vectors have unit length;
# the Rust examples of README.md and docs/rust.md build against rust/ and
# print upstream's numbers and the vectors.
set -eu
root=$1
lib=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
block() { # FILE MARKER LANG: the ```LANG block after <!-- MARKER --> in FILE
    awk -v marker="<!-- $2 -->" -v fence="^\`\`\`$3" '$0 == marker { on = 1; next }
        on && $0 ~ fence { code = 1; next } code && /^```/ { exit } code { print }
        END { if (!code) print "no block after " marker " in '"$1"'" > "/dev/stderr"; exit !code }' \
        "$root/$1"
}
block README.md readme-python python >"$dir/example.py"
(cd "$root" && TFENC_LIBRARY="$lib" PYTHONPATH=python /usr/bin/python3 "$dir/example.py") >"$dir/py.out"
cat "$dir/py.out"
awk '/max abs difference from Hugging Face:/ { if ($NF + 0 > 1e-4) exit 1; found = 1 } END { exit !found }' "$dir/py.out"
grep -q "(3, 37, 128) (3, 4, 37, 37) (3, 128)" "$dir/py.out"
block docs/python.md readme-python-embed python >"$dir/embed.py"
(cd "$root" && TFENC_LIBRARY="$lib" PYTHONPATH=python /usr/bin/python3 "$dir/embed.py") >"$dir/py.out"
cat "$dir/py.out"
grep -qF "(2, 64) [1. 1.]" "$dir/py.out"
if command -v cargo >/dev/null 2>&1; then
    mkdir -p "$dir/rust/src"
    block README.md readme-rust rust >"$dir/rust/src/main.rs"
    printf '[package]\nname = "readme"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ntfenc = { path = "%s/rust" }\n' \
        "$root" >"$dir/rust/Cargo.toml"
    # a crate depending on tfenc finds the library on the loader's path
    (cd "$root" && TFENC_LIB_DIR=$(dirname "$lib") LD_LIBRARY_PATH=$(dirname "$lib") \
        cargo run --offline --quiet --manifest-path "$dir/rust/Cargo.toml" \
        --target-dir "$dir/target") >"$dir/rs.out"
    cat "$dir/rs.out"
    grep -qE '^\[1, 5, 128\] \[0\.8924(0|1)[0-9]*, 0\.1518[0-9]*, 1\.5661[0-9]*, -2\.904(7|8)[0-9]*\]$' "$dir/rs.out"
    block docs/rust.md readme-rust-embed rust >"$dir/rust/src/main.rs"
    (cd "$root" && TFENC_LIB_DIR=$(dirname "$lib") LD_LIBRARY_PATH=$(dirname "$lib") \
        cargo run --offline --quiet --manifest-path "$dir/rust/Cargo.toml" \
        --target-dir "$dir/target") >"$dir/rs.out"
    cat "$dir/rs.out"
    grep -qxF "2 vectors of 64" "$dir/rs.out"
fi
