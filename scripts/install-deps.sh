#!/bin/sh
# install-deps.sh — installs, from Debian 12's packages, what building and
# testing libtfenc needs and the machine lacks. Run as root. Idempotent.
#   gcc g++ (compilers; g++ only for the C++ header check), meson ninja-build,
#   pkg-config, libopenblas-dev (cblas_sgemm), libcjson-dev (safetensors
#   headers and config.json), libutf8proc-dev (Unicode data for the
#   tokenizer), libpcre2-dev (tokenizer.json's regular expressions),
#   libcairo2-dev and fonts-dejavu-core (tfenc explain --heatmap),
#   check (the test framework), python3-numpy python3-pytest python3-pip
#   python3-distributed python3-tqdm (the Python binding, its tests, the Dask
#   corpus job, progress bars), python3-mesonpy python3-venv (the wheel that
#   carries the library, built and installed offline in a venv), and cargo with
#   rustc when no cargo is on the PATH (the Rust binding; it needs no crates),
#   binutils (nm, readelf for the exported-symbols test), abigail-tools (the
#   ABI check), valgrind (CI's memcheck run), libblis-openmp-dev (CI's build
#   with -Dblas=blis), chromium (headless, renders tfenc explain --html's
#   page in the explain-html-browser test and docs/screenshot_walkthrough.sh),
#   libmicrohttpd-dev (tfenc serve's HTTP) and curl (the serve test's client),
#   libcurl4-openssl-dev and libssl-dev (the Hub client of tf_hub_resolve:
#   downloads, and OpenSSL's libcrypto for the sha256 of LFS files), and
#   nodejs with npm when no npm is on the PATH (the hub test installs
#   @huggingface/hub with it, to check the cache both share), clang-format and
#   clang-tidy (scripts/lint.sh, CI's format check and clang-tidy pass),
#   libjpeg62-turbo-dev libpng-dev libwebp-dev (images in: JPEG, PNG, WebP
#   decoding, the `images` feature), python3-pil python3-skimage (the image
#   tests' references: PIL as transformers uses it, skimage.data's photographs),
#   python3-sentencepiece python3-protobuf (SentencePiece's trainer and
#   encoder, its model's protobuf classes: the references of the Unigram
#   tokenizers and of SigLIP's spiece.model, tests/data/gen_text_tokenizers.py
#   and tests/tokenizer_json/gen_spm.py).
set -eu
packages="gcc g++ meson ninja-build pkg-config libopenblas-dev libcjson-dev libutf8proc-dev libpcre2-dev libcairo2-dev fonts-dejavu-core check binutils abigail-tools valgrind libblis-openmp-dev chromium
          libmicrohttpd-dev curl libcurl4-openssl-dev libssl-dev
          python3-numpy python3-pytest python3-pip python3-distributed python3-tqdm
          python3-mesonpy python3-venv clang-format clang-tidy
          libjpeg62-turbo-dev libpng-dev libwebp-dev python3-pil python3-skimage
          python3-sentencepiece python3-protobuf"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
command -v cargo >/dev/null 2>&1 || missing="$missing cargo rustc"
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi
