#!/bin/sh
# update.sh [BUILD_DIR] — renews the ABI baseline from a build (default
# build/): only when a change is compatible by design, or with a new SONAME.
set -eu
cd "$(dirname "$0")/.."
abidw --headers-dir include --out-file abi/libtfenc.so.0.abi "${1:-build}/lib/libtfenc.so.0"
echo "abi/libtfenc.so.0.abi renewed; commit it with the change that needed it"
