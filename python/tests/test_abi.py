"""The binding agrees with the library it loaded: every struct mirror has the
library's size (tf_struct_size), structs start from the library's
*_init_sized with the mirror's size, every enum and status name is the
library's, and n_threads reaches tf_forward_args."""
import ctypes

import numpy as np
import pytest

import tfenc
from tfenc import _lib
from tfenc.errors import error_for

MIRRORS = {"tf_config": _lib.Config, "tf_forward_args": _lib.ForwardArgs,
           "tf_load_options": _lib.LoadOptions, "tf_tokenizer_options": _lib.TokenizerOptions,
           "tf_trace_event": _lib.TraceEvent, "tf_runtime_info": _lib.RuntimeInfo,
           "tf_encode_options": _lib.EncodeOptions}


def library():
    """The loaded library with our own declarations, not the binding's."""
    c = ctypes.CDLL(_lib.lib._name)
    c.tf_struct_size.restype, c.tf_struct_size.argtypes = ctypes.c_size_t, [ctypes.c_char_p]
    c.tf_status_name.restype, c.tf_status_name.argtypes = ctypes.c_char_p, [ctypes.c_int]
    for kind in ("activation", "position", "norm_placement", "pooling"):
        fn = getattr(c, f"tf_{kind}_name")
        fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_int32]
    return c


def names_of(c, kind):
    fn, names = getattr(c, f"tf_{kind}_name"), []
    while (name := fn(len(names))) is not None:
        names.append(name.decode())
    return tuple(names)


def test_every_mirror_has_the_librarys_size():
    c = library()
    sizes = {name: (ctypes.sizeof(s), c.tf_struct_size(name.encode()))
             for name, s in MIRRORS.items()}
    assert all(mine == theirs > 0 for mine, theirs in sizes.values()), sizes


def test_a_mirror_of_another_size_is_refused():
    class Short(ctypes.Structure):
        c_name = "tf_config"
        _fields_ = [("struct_size", ctypes.c_size_t)]
    size = library().tf_struct_size(b"tf_config")
    assert _lib._mismatches(_lib.lib, [Short]) == \
        f"tf_config is {size} bytes in the library, 8 in this binding"
    assert _lib._mismatches(_lib.lib) == ""


def test_structs_start_from_init_sized():
    a = _lib.new(_lib.ForwardArgs)
    assert a.struct_size == ctypes.sizeof(_lib.ForwardArgs) and a.n_threads == 0
    c = _lib.new(_lib.Config)
    assert (c.struct_size, c.d_model, c.n_heads, c.d_ff) == (ctypes.sizeof(c), 512, 8, 2048)
    o = _lib.new(_lib.TokenizerOptions)
    assert (o.struct_size, o.strip_accents, o.max_chars_per_word) == (ctypes.sizeof(o), -1, 100)
    assert _lib.new(_lib.LoadOptions).activation == -1  # from the file


def test_enum_names_are_the_librarys():
    c = library()
    assert tfenc.ACTIVATIONS == names_of(c, "activation") == ("gelu", "gelu_tanh", "relu",
                                                                   "silu", "quick_gelu")
    assert tfenc.POSITIONS == names_of(c, "position") == ("none", "sinusoidal", "learned",
                                                                "rotary", "alibi")
    assert tfenc.POOLINGS == names_of(c, "pooling") == ("cls", "mean", "max", "mean_sqrt_len_tokens",
                                                        "weightedmean", "lasttoken")
    assert names_of(c, "norm_placement") == ("post", "pre")
    for activation in tfenc.ACTIVATIONS:
        assert tfenc.Encoder(8, 2, 8, activation=activation).config["activation"] == activation
    for position in tfenc.POSITIONS:
        assert tfenc.Encoder(8, 2, 8, position=position,
                             max_positions=4).config["position"] == position
    for norm_first in (False, True):
        assert tfenc.Encoder(8, 2, 8, norm_first=norm_first).config["norm_first"] is norm_first
    with pytest.raises(ValueError, match=r"activation: expected one of \('gelu', 'gelu_tanh', "
                                         r"'relu', 'silu', 'quick_gelu'\), got 'swish'"):
        tfenc.Encoder(8, 2, 8, activation="swish")
    with pytest.raises(TypeError, match=r"position: expected one of .*, got int 1"):
        tfenc.Encoder(8, 2, 8, position=1)


def test_every_status_has_its_exception():
    c = library()
    code = 1
    while c.tf_status_name(code) != b"TF_ERR_UNKNOWN":
        name = c.tf_status_name(code).decode()
        e = error_for(name, "message")
        assert type(e) is not tfenc.TfencError and e.status == name and str(e) == "message"
        code += 1
    assert code == 8  # TF_ERR_INVALID_ARGUMENT .. TF_ERR_NOT_FOUND


def test_n_threads_reaches_the_library(monkeypatch):
    enc = tfenc.Encoder(32, 4, 64, 2)
    x = np.random.default_rng(3).standard_normal((3, 7, 32)).astype(np.float32)
    seen, forward = [], _lib.lib.tf_encoder_forward

    def spy(handle, args):
        seen.append(args._obj.n_threads)  # args is byref(ForwardArgs)
        return forward(handle, args)
    monkeypatch.setattr(_lib.lib, "tf_encoder_forward", spy)
    outs = [enc(input_embeds=x, n_threads=n).last_hidden_state for n in (0, 1, 3)]
    assert seen == [0, 1, 3]
    assert np.allclose(outs[0], outs[1], atol=1e-6) and np.allclose(outs[1], outs[2], atol=1e-6)
    with pytest.raises(ValueError, match=r"n_threads: expected an integer in \[0, 2147483647\], "
                                         r"got -1"):
        enc(input_embeds=x, n_threads=-1)


def test_runtime_info_is_the_librarys():
    """runtime_info() reports the OpenBLAS (or BLIS) this process loaded:
    its kernels and thread setting as that library itself says them."""
    info = tfenc.runtime_info()
    assert set(info) == {"blas", "blas_build", "blas_kernels", "vector_loops", "blas_threads",
                         "max_threads"}
    assert info["vector_loops"] in ("avx512", "avx2", "base")
    assert 1 <= info["max_threads"] <= 32
    if info["blas"] == "OpenBLAS":
        blas = next(ctypes.CDLL(p) for p in loaded_libraries() if "blas" in p
                    and hasattr(ctypes.CDLL(p), "openblas_get_corename"))
        blas.openblas_get_corename.restype = ctypes.c_char_p
        assert info["blas_kernels"] == blas.openblas_get_corename().decode()
        before = blas.openblas_get_num_threads()
        blas.openblas_set_num_threads(3)
        try:
            assert tfenc.runtime_info()["blas_threads"] == 3
        finally:
            blas.openblas_set_num_threads(before)
    else:
        assert info["blas"] == "BLIS"


def loaded_libraries():
    with open("/proc/self/maps") as f:
        return sorted({line.split()[-1] for line in f if "/" in line and ".so" in line})
