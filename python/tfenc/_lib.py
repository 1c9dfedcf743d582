"""The C library through ctypes: finding libtfenc, and the declarations of
include/tfenc.h that the Python API uses. ctypes releases the GIL during
every call into the library."""
import ctypes
import ctypes.util
import glob
import os
import subprocess

from .errors import error_for

SONAME = "libtfenc.so.0"


def _candidates():
    """TFENC_LIBRARY, then a meson build tree next to this package, then the
    system (pkg-config's libdir, then the loader's search path)."""
    env = os.environ.get("TFENC_LIBRARY")
    if env:
        yield env
        return
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for lib in sorted(glob.glob(os.path.join(root, "build*", "lib", SONAME))):
        yield lib
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "tfenc"], check=True,
                                capture_output=True, text=True).stdout.strip()
        if libdir:
            yield os.path.join(libdir, SONAME)
    except (OSError, subprocess.CalledProcessError):
        pass
    found = ctypes.util.find_library("tfenc")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path}: {e}")
    raise OSError("libtfenc not found; set TFENC_LIBRARY to libtfenc.so.0, build it with meson "
                  "next to this package, or install it. Tried: " + ("; ".join(tried) or "nothing"))


lib = _load()

c_int32, c_int64, c_size_t, c_float = ctypes.c_int32, ctypes.c_int64, ctypes.c_size_t, ctypes.c_float
P = ctypes.POINTER
MAX_RANK = 8


class Config(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("d_model", c_int32), ("n_heads", c_int32),
                ("d_ff", c_int32), ("n_layers", c_int32), ("vocab_size", c_int32),
                ("max_positions", c_int32), ("position", c_int32), ("n_token_types", c_int32),
                ("embedding_norm", c_int32), ("norm_placement", c_int32),
                ("final_norm", c_int32), ("activation", c_int32), ("bias", c_int32),
                ("pooler", c_int32), ("layer_norm_eps", c_float), ("seed", ctypes.c_uint64)]


class TraceEvent(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("name", ctypes.c_char_p), ("layer", c_int32),
                ("rank", c_int32), ("dims", c_int64 * MAX_RANK), ("dim_names", ctypes.c_char_p),
                ("data", P(c_float))]


TRACE_FN = ctypes.CFUNCTYPE(None, P(TraceEvent), ctypes.c_void_p)


class ForwardArgs(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("batch", c_int32), ("seq_len", c_int32),
                ("input_ids", P(c_int32)), ("input_embeds", P(c_float)),
                ("token_type_ids", P(c_int32)), ("lengths", P(c_int32)),
                ("attention_mask", P(c_int32)), ("causal", c_int32),
                ("additive_mask", P(c_float)), ("additive_mask_batched", c_int32),
                ("output", P(c_float)), ("hidden_states", P(c_float)),
                ("attentions", P(c_float)), ("pooled_output", P(c_float)),
                ("workspace", ctypes.c_void_p), ("trace", TRACE_FN),
                ("trace_user_data", ctypes.c_void_p)]


class LoadOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("n_heads", c_int32), ("activation", c_int32),
                ("norm_placement", c_int32), ("layer_norm_eps", c_float)]


class TokenizerOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("lowercase", c_int32), ("strip_accents", c_int32),
                ("split_cjk", c_int32), ("max_chars_per_word", c_int32), ("max_length", c_int32),
                ("unk_token", ctypes.c_char_p), ("cls_token", ctypes.c_char_p),
                ("sep_token", ctypes.c_char_p), ("pad_token", ctypes.c_char_p)]


def _declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, list(argtypes)


VP, CP = ctypes.c_void_p, ctypes.c_char_p
S = ctypes.c_int  # tf_status
for _name, _res, _args in [
    ("tf_version_string", CP, []),
    ("tf_status_name", CP, [S]),
    ("tf_last_error", CP, []),
    ("tf_config_init", None, [P(Config)]),
    ("tf_encoder_create", S, [P(Config), P(VP)]),
    ("tf_encoder_destroy", None, [VP]),
    ("tf_encoder_get_config", S, [VP, P(Config)]),
    ("tf_encoder_tensor_count", c_size_t, [VP]),
    ("tf_encoder_tensor_name", CP, [VP, c_size_t]),
    ("tf_encoder_tensor_shape", S, [VP, CP, P(c_int32), P(c_int64)]),
    ("tf_encoder_get_tensor", S, [VP, CP, P(c_float), c_int32, P(c_int64)]),
    ("tf_encoder_set_tensor", S, [VP, CP, P(c_float), c_int32, P(c_int64)]),
    ("tf_forward_args_init", None, [P(ForwardArgs)]),
    ("tf_encoder_forward", S, [VP, P(ForwardArgs)]),
    ("tf_load_options_init", None, [P(LoadOptions)]),
    ("tf_encoder_load", S, [CP, P(LoadOptions), P(VP)]),
    ("tf_encoder_save", S, [VP, CP]),
    ("tf_tokenizer_options_init", None, [P(TokenizerOptions)]),
    ("tf_tokenizer_load", S, [CP, P(TokenizerOptions), P(VP)]),
    ("tf_tokenizer_destroy", None, [VP]),
    ("tf_tokenizer_vocab_size", c_int32, [VP]),
    ("tf_tokenizer_id_to_token", CP, [VP, c_int32]),
    ("tf_tokenizer_token_to_id", c_int32, [VP, CP]),
    ("tf_tokenizer_encode_batch", S, [VP, c_size_t, P(CP), P(c_size_t), P(CP), P(c_size_t),
                                      P(VP)]),
    ("tf_encoding_destroy", None, [VP]),
    ("tf_encoding_batch", c_int32, [VP]),
    ("tf_encoding_seq_len", c_int32, [VP]),
    ("tf_encoding_lengths", P(c_int32), [VP]),
    ("tf_encoding_ids", P(c_int32), [VP]),
    ("tf_encoding_type_ids", P(c_int32), [VP]),
    ("tf_encoding_attention_mask", P(c_int32), [VP]),
    ("tf_encoding_offsets", P(c_int64), [VP]),
    ("tf_pool", S, [P(c_float), P(c_int32), c_int32, c_int32, c_int32, c_int32, c_int32,
                    P(c_float)]),
]:
    _declare(_name, _res, *_args)


def check(status):
    """Raises the TfencError subclass of a non-zero status with the message."""
    if status != 0:
        raise error_for(status, lib.tf_status_name(status).decode(),
                        lib.tf_last_error().decode(errors="replace"))


def config_init():
    c = Config()
    lib.tf_config_init(ctypes.byref(c))
    return c
