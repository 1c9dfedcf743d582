#!/bin/sh
# check_wheel.sh SOURCE_ROOT DATA_DIR — README's install commands for Python
# (the sh block after <!-- readme-wheel -->), run from SOURCE_ROOT in an
# environment of only PATH and HOME (a scratch one) with no index and no pip
# configuration, as offline: pyproject.toml's wheel (meson-python) builds,
# installs into a fresh venv over Debian's python3 (numpy from the system),
# and lists libtfenc inside the package tfenc; `import tfenc` there, with
# nothing set, uses that library and reproduces Hugging Face's bert_tiny
# output.
set -eu
root=$1 data=$2
python=/usr/bin/python3
if ! "$python" -c 'import mesonpy' 2>/dev/null; then
    echo "no meson-python for $python (Debian's python3-mesonpy): skipped"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clean() { env -i PATH=/usr/bin:/bin HOME="$work" PIP_CONFIG_FILE=/dev/null "$@"; }

awk '$0 == "<!-- readme-wheel -->" { on = 1; next } on && /^```sh/ { code = 1; next }
     code && /^```/ { exit } code { print }
     END { if (!code) print "no sh block after <!-- readme-wheel --> in README.md" > "/dev/stderr"
           exit !code }' "$root/README.md" >"$work/install.sh"
if ! (cd "$root" && clean sh -eux "$work/install.sh") >"$work/install.log" 2>&1; then
    cat "$work/install.log"
    echo "README's install commands failed"
    exit 1
fi
venv=$(dirname "$(find "$work" -name pyvenv.cfg)")
record=$(echo "$venv"/lib/python3*/site-packages/tfenc-*.dist-info/RECORD)
# what came from the wheel (pip lists the bytecode it compiled with no hash)
sed -n 's|^tfenc/\([^,]*\),sha256=.*|\1|p' "$record" | sort >"$work/installed"
if ! grep -q '^libtfenc\.so\.0[.0-9]*$' "$work/installed"; then
    cat "$record"
    echo "the wheel installed no tfenc/libtfenc.so.0*"
    exit 1
fi
# the library and every module of python/tfenc, nothing else (python/meson.build lists them)
(cd "$root/python/tfenc" && ls -- *.py && grep '^libtfenc' "$work/installed") | sort >"$work/want"
if ! diff -u "$work/want" "$work/installed" >"$work/files.diff"; then
    cat "$work/files.diff"
    echo "the wheel's package is not python/tfenc's modules and the library (python/meson.build)"
    exit 1
fi

cd "$work"
clean "$venv/bin/python" - "$data/bert_tiny" <<'EOF'
import importlib.metadata
import os
import sys

import numpy as np
import tfenc

folder, venv = sys.argv[1], os.path.realpath(sys.prefix)
package = os.path.dirname(os.path.realpath(tfenc.__file__))
library = os.path.realpath(tfenc._lib.lib._name)
assert package.startswith(venv + os.sep), f"tfenc from {package}, not the venv {venv}"
assert os.path.dirname(library) == package, f"the library loaded is {library}, not the package's"
assert importlib.metadata.version("tfenc") == tfenc.__version__, (
    f"the wheel says {importlib.metadata.version('tfenc')}, the library {tfenc.__version__}")

enc = tfenc.Encoder.from_file(folder)
load = lambda name: np.load(os.path.join(folder, name + ".npy"))
out = enc(load("input_ids"), attention_mask=load("attention_mask"),
          token_type_ids=load("token_type_ids"))
lengths = load("attention_mask").sum(1)  # [37, 20, 5]
want = load("last_hidden_state")  # what Hugging Face computed
err = max(float(np.abs(out.last_hidden_state[b, :n] - want[b, :n]).max())
          for b, n in enumerate(lengths))
assert err <= 1e-4, f"bert_tiny differs from Hugging Face by {err}"
print(f"wheel: tfenc {tfenc.__version__} from {library}; bert_tiny within {err:.1e} of "
      "Hugging Face")
EOF
