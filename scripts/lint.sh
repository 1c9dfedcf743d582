#!/bin/sh
# lint.sh BUILD_DIR — the C sources against .clang-format (every tracked .c, .h
# and .cpp outside the frozen ABI headers of tests/abi/<version>/) and
# .clang-tidy's checks (every .c file of lib/ and tools/ that BUILD_DIR
# compiles, through its compile_commands.json). Fails on the first difference
# or finding.
# To format what you changed: clang-format -i FILE...
set -eu
build=${1:?usage: lint.sh BUILD_DIR}
cd "$(dirname "$0")/.."
sources=$(git ls-files '*.c' '*.h' '*.cpp' | grep -v -e '^tests/abi/[0-9]' -e '^rust/')
clang-format --dry-run -Werror $sources
echo "lint: $(echo "$sources" | wc -l) files formatted as .clang-format says"
compiled=$(git ls-files 'lib/*.c' 'tools/*.c' |
    while read -r f; do grep -q "\"file\": \"[^\"]*/$f\"" "$build/compile_commands.json" && echo "$f"; done)
echo "$compiled" | xargs -n 8 -P "$(nproc)" clang-tidy -p "$build" --quiet
echo "lint: $(echo "$compiled" | wc -l) files pass .clang-tidy's checks"
