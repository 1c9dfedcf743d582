#!/bin/sh
# install-deps.sh — installs, from Debian 12's packages, what building and
# testing libtfenc needs and the machine lacks. Run as root. Idempotent.
#   gcc g++ (compilers; g++ only for the C++ header check), meson ninja-build,
#   pkg-config, libopenblas-dev (cblas_sgemm), libcjson-dev (safetensors
#   headers and config.json), libutf8proc-dev (Unicode data for the
#   tokenizer), libpcre2-dev (tokenizer.json's regular expressions),
#   libcairo2-dev and fonts-dejavu-core (tfenc explain --heatmap),
#   check (the test framework), python3-numpy python3-pytest python3-pip
#   python3-setuptools python3-distributed (the Python binding, its tests and
#   the Dask corpus job), and cargo with
#   rustc when no cargo is on the PATH (the Rust binding; it needs no crates),
#   binutils (nm, readelf for the exported-symbols test), abigail-tools (the
#   ABI check), valgrind (CI's memcheck run), libblis-openmp-dev (CI's build
#   with -Dblas=blis), chromium (headless, renders tfenc explain --html's
#   page in the explain-html-browser test and docs/screenshot_walkthrough.sh),
#   libmicrohttpd-dev (tfenc serve's HTTP) and curl (the serve test's client).
set -eu
packages="gcc g++ meson ninja-build pkg-config libopenblas-dev libcjson-dev libutf8proc-dev libpcre2-dev libcairo2-dev fonts-dejavu-core check binutils abigail-tools valgrind libblis-openmp-dev chromium
          libmicrohttpd-dev curl
          python3-numpy python3-pytest python3-pip python3-setuptools python3-distributed"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
command -v cargo >/dev/null 2>&1 || missing="$missing cargo rustc"
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi
