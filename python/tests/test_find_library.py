"""Finding libtfenc: a build tree whose library needs a sanitizer runtime
that must be preloaded (AddressSanitizer's ends the process when dlopen()ed
into a plain python3) is skipped, and the error says so. The imports run in
a subprocess, so that a process ended by the runtime is a test failure."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import tfenc
from tfenc import _lib
from conftest import ROOT


def asan_library(path):
    """A tiny shared library linked with AddressSanitizer at path."""
    if not shutil.which("gcc"):
        pytest.skip("no gcc to build an ASan-linked library")
    os.makedirs(os.path.dirname(path))
    source = os.path.join(os.path.dirname(path), "f.c")
    with open(source, "w") as f:
        f.write("int tf_version(void) { return 0; }\n")
    subprocess.run(["gcc", "-fsanitize=address", "-shared", "-fPIC", source, "-o", path],
                   check=True, capture_output=True)


def import_tfenc(root, **env):
    """`import tfenc` from root/python in a fresh python3 without TFENC_LIBRARY
    (unless given): its stdout, stderr and exit status."""
    environ = {k: v for k, v in os.environ.items() if k != "TFENC_LIBRARY"}
    environ.update(env, PYTHONPATH=os.path.join(root, "python"))
    run = subprocess.run([sys.executable, "-c", "import tfenc; print(tfenc._lib.lib._name)"],
                         env=environ, capture_output=True, text=True, timeout=120)
    return run.stdout.strip(), run.stderr, run.returncode


@pytest.fixture
def package(tmp_path):
    """tmp_path/python/tfenc: a copy of this package, with no build tree yet."""
    shutil.copytree(os.path.join(ROOT, "python", "tfenc"), tmp_path / "python" / "tfenc",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_a_sanitizer_tree_sorted_first_is_skipped(package):
    asan = str(package / "build-asan" / "lib" / _lib.SONAME)
    asan_library(asan)
    good = package / "build" / "lib" / _lib.SONAME
    good.parent.mkdir(parents=True)
    good.symlink_to(os.path.realpath(_lib.lib._name))
    assert sorted([asan, str(good)])[0] == asan  # tried first
    out, err, rc = import_tfenc(package)
    assert (rc, out) == (0, str(good)), err


def test_the_library_inside_the_package_comes_before_a_build_tree(package):
    # named as the wheel names it (meson installs no symlinks into a wheel)
    bundled = package / "python" / "tfenc" / f"{_lib.SONAME}.{tfenc.__version__}"
    bundled.symlink_to(os.path.realpath(_lib.lib._name))
    tree = package / "build" / "lib" / _lib.SONAME
    tree.parent.mkdir(parents=True)
    tree.symlink_to(os.path.realpath(_lib.lib._name))
    out, err, rc = import_tfenc(package)
    assert (rc, out) == (0, str(bundled)), err


def test_tfenc_library_comes_before_the_library_inside_the_package(package):
    (package / "python" / "tfenc" / f"{_lib.SONAME}.{tfenc.__version__}").symlink_to(
        os.path.realpath(_lib.lib._name))
    chosen = package / "elsewhere" / _lib.SONAME
    chosen.parent.mkdir()
    chosen.symlink_to(os.path.realpath(_lib.lib._name))
    out, err, rc = import_tfenc(package, TFENC_LIBRARY=str(chosen))
    assert (rc, out) == (0, str(chosen)), err


def test_the_error_names_the_skipped_library(package):
    asan = str(package / "build-asan" / "lib" / _lib.SONAME)
    asan_library(asan)
    if any(_lib._is_loaded(r) for r in _lib._needed(asan) if r.startswith("libasan")):
        pytest.skip("this python3 runs with the ASan runtime preloaded: nothing to skip")
    out, err, rc = import_tfenc(package, TFENC_LIBRARY=asan)
    assert rc == 1 and out == "", err
    assert re.search(re.escape(f"OSError: libtfenc not found; set TFENC_LIBRARY to "
                               f"libtfenc.so.0, build it with meson next to this package, or "
                               f"install it. Tried: {asan}: skipped: it needs libasan.so.")
                     + r"\d+, a sanitizer runtime that must be loaded first \(LD_PRELOAD\)$",
                     err.strip()), err
