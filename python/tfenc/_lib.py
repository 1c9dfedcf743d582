"""The C library through ctypes: finding libtfenc, and the declarations of
include/tfenc.h that the Python API uses. ctypes releases the GIL during
every call into the library."""
import ctypes
import ctypes.util
import glob
import os
import re
import struct
import subprocess

from ._args import c_string
from .errors import error_for

SONAME = "libtfenc.so.0"

c_int32, c_int64, c_size_t, c_float = ctypes.c_int32, ctypes.c_int64, ctypes.c_size_t, ctypes.c_float
P = ctypes.POINTER
MAX_RANK = 8


# ---- Mirrors of the structs (checked against tf_struct_size at import) ------

class Config(ctypes.Structure):
    c_name = "tf_config"
    _fields_ = [("struct_size", c_size_t), ("d_model", c_int32), ("n_heads", c_int32),
                ("d_ff", c_int32), ("n_layers", c_int32), ("vocab_size", c_int32),
                ("max_positions", c_int32), ("position", c_int32), ("n_token_types", c_int32),
                ("embedding_norm", c_int32), ("norm_placement", c_int32),
                ("final_norm", c_int32), ("activation", c_int32), ("bias", c_int32),
                ("pooler", c_int32), ("layer_norm_eps", c_float), ("seed", ctypes.c_uint64),
                ("position_offset", c_int32),
                # since 0.4.0
                ("ffn_gated", c_int32), ("norm_bias", c_int32), ("skip_first_norm1", c_int32),
                ("rotary_dim", c_int32), ("rotary_interleaved", c_int32),
                ("rotary_base", c_float), ("rotary_base_local", c_float),
                ("rotary_ntk_factor", c_float), ("rotary_ntk_positions", c_int32),
                ("attn_window", c_int32), ("global_every", c_int32),
                ("rotary_linear_factor", c_float),
                ("relative_buckets", c_int32), ("relative_max_distance", c_int32),
                ("embedding_dim", c_int32), ("qk_norm", c_int32), ("add_norm1b", c_int32)]


class TraceEvent(ctypes.Structure):
    c_name = "tf_trace_event"
    _fields_ = [("struct_size", c_size_t), ("name", ctypes.c_char_p), ("layer", c_int32),
                ("rank", c_int32), ("dims", c_int64 * MAX_RANK), ("dim_names", ctypes.c_char_p),
                ("data", P(c_float))]


TRACE_FN = ctypes.CFUNCTYPE(None, P(TraceEvent), ctypes.c_void_p)


class ForwardArgs(ctypes.Structure):
    c_name = "tf_forward_args"
    _fields_ = [("struct_size", c_size_t), ("batch", c_int32), ("seq_len", c_int32),
                ("input_ids", P(c_int32)), ("input_embeds", P(c_float)),
                ("token_type_ids", P(c_int32)), ("lengths", P(c_int32)),
                ("attention_mask", P(c_int32)), ("causal", c_int32),
                ("additive_mask", P(c_float)), ("additive_mask_batched", c_int32),
                ("output", P(c_float)), ("hidden_states", P(c_float)),
                ("attentions", P(c_float)), ("pooled_output", P(c_float)),
                ("workspace", ctypes.c_void_p), ("trace", TRACE_FN),
                ("trace_user_data", ctypes.c_void_p),
                ("n_threads", c_int32)]  # since 0.2.0


class LoadOptions(ctypes.Structure):
    c_name = "tf_load_options"
    _fields_ = [("struct_size", c_size_t), ("n_heads", c_int32), ("activation", c_int32),
                ("norm_placement", c_int32), ("layer_norm_eps", c_float)]


class TokenizerOptions(ctypes.Structure):
    c_name = "tf_tokenizer_options"
    _fields_ = [("struct_size", c_size_t), ("lowercase", c_int32), ("strip_accents", c_int32),
                ("split_cjk", c_int32), ("max_chars_per_word", c_int32), ("max_length", c_int32),
                ("unk_token", ctypes.c_char_p), ("cls_token", ctypes.c_char_p),
                ("sep_token", ctypes.c_char_p), ("pad_token", ctypes.c_char_p)]


class EncodeOptions(ctypes.Structure):  # since 0.4.0
    c_name = "tf_encode_options"
    _fields_ = [("struct_size", c_size_t), ("truncation", c_int32), ("max_length", c_int32),
                ("pad_to_max_length", c_int32), ("pad_to_multiple_of", c_int32),
                ("pad_left", c_int32), ("stride", c_int32), ("return_overflowing", c_int32)]


class RuntimeInfo(ctypes.Structure):  # since 0.3.0
    c_name = "tf_runtime_info"
    _fields_ = [("struct_size", c_size_t), ("blas", ctypes.c_char_p),
                ("blas_build", ctypes.c_char_p), ("blas_kernels", ctypes.c_char_p),
                ("vector_loops", ctypes.c_char_p), ("blas_threads", c_int32),
                ("max_threads", c_int32)]


STRUCTS = (Config, TraceEvent, ForwardArgs, LoadOptions, TokenizerOptions, RuntimeInfo)


# ---- Finding the library --------------------------------------------------------

# Runtimes that must be loaded before everything else: a library needing one
# cannot be dlopen()ed into a plain python3 (AddressSanitizer even ends the
# process instead of failing). UBSan's runtime loads late and is not here.
_PRELOAD_RUNTIME = re.compile(r"lib(clang_rt\.)?(asan|hwasan|tsan|lsan)[.-]")


def _candidates():
    """TFENC_LIBRARY, then the library inside this package (where the wheel
    puts it: tfenc/libtfenc.so.0.x.y), then a meson build tree next to this
    package, then the system (pkg-config's libdir, then the loader's search
    path)."""
    env = os.environ.get("TFENC_LIBRARY")
    if env:
        yield env
        return
    package = os.path.dirname(os.path.abspath(__file__))
    yield from sorted(glob.glob(os.path.join(glob.escape(package), SONAME + "*")))
    root = os.path.dirname(os.path.dirname(package))
    yield from sorted(glob.glob(os.path.join(glob.escape(root), "build*", "lib", SONAME)))
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


# by EI_CLASS (1: 32-bit, 2: 64-bit): the format and offset of (e_shoff,
# e_shentsize, e_shnum), a section header up to sh_link, a dynamic entry
_ELF = {1: ("I10xHH", 0x20, "IIIIIII", "iI"), 2: ("Q10xHH", 0x28, "IIQQQQI", "qQ")}
_SHT_DYNAMIC, _DT_NEEDED = 6, 1


def _needed(path):
    """The DT_NEEDED entries of an ELF shared object, from its section
    headers ([] when it is not one: dlopen will say what is wrong)."""
    try:
        with open(path, "rb") as f:
            elf = f.read()
        if elf[:4] != b"\x7fELF":
            return []
        header, at, section, entry = _ELF[elf[4]]
        order = {1: "<", 2: ">"}[elf[5]]
        shoff, shentsize, shnum = struct.unpack_from(order + header, elf, at)
        sections = [struct.unpack_from(order + section, elf, shoff + i * shentsize)
                    for i in range(shnum)]
        for _, kind, _, _, offset, size, link in sections:
            if kind == _SHT_DYNAMIC:
                strtab = sections[link][4]
                return [elf[strtab + value:elf.index(b"\0", strtab + value)].decode()
                        for tag, value in struct.iter_unpack(order + entry,
                                                             elf[offset:offset + size])
                        if tag == _DT_NEEDED]
    except (OSError, LookupError, ValueError, struct.error):
        pass
    return []


def _is_loaded(soname):
    try:
        ctypes.CDLL(soname, mode=os.RTLD_NOLOAD)
        return True
    except OSError:
        return False


def _mismatches(lib, structs=STRUCTS):
    """How these mirrors differ from the library's structs ("" if not)."""
    try:
        size_of = lib.tf_struct_size
    except AttributeError:
        return "no tf_struct_size: a library older than this binding"
    size_of.restype, size_of.argtypes = c_size_t, [ctypes.c_char_p]
    differ = []
    for s in structs:
        theirs = size_of(s.c_name.encode())
        if theirs != ctypes.sizeof(s):
            differ.append(f"{s.c_name} is {theirs} bytes in the library, {ctypes.sizeof(s)} "
                          "in this binding")
    return "; ".join(differ)


def _open(path):
    """(the library at path, "") or (None, why it cannot be used)."""
    for runtime in _needed(path):
        if _PRELOAD_RUNTIME.match(runtime) and not _is_loaded(runtime):
            return None, (f"skipped: it needs {runtime}, a sanitizer runtime that must be "
                          "loaded first (LD_PRELOAD)")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        return None, str(e)
    differ = _mismatches(lib)
    return (None, "skipped: " + differ) if differ else (lib, "")


def _load():
    refused = []
    for path in _candidates():
        lib, why = _open(path)
        if lib:
            return lib
        refused.append(f"{path}: {why}")
    raise OSError("libtfenc not found; set TFENC_LIBRARY to libtfenc.so.0, build it with meson "
                  "next to this package, or install it. Tried: " + ("; ".join(refused) or
                                                                      "nothing"))


lib = _load()


# ---- Declarations -------------------------------------------------------------

def _declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, list(argtypes)


VP, CP = ctypes.c_void_p, ctypes.c_char_p
S = ctypes.c_int  # tf_status
ENUMS = ("activation", "position", "norm_placement", "pooling")
for _name, _res, _args in [
    ("tf_version_string", CP, []),
    ("tf_last_error", CP, []),
    ("tf_config_init_sized", None, [P(Config), c_size_t]),
    ("tf_encoder_create", S, [P(Config), P(VP)]),
    ("tf_encoder_destroy", None, [VP]),
    ("tf_encoder_get_config", S, [VP, P(Config)]),
    ("tf_encoder_tensor_count", c_size_t, [VP]),
    ("tf_encoder_tensor_name", CP, [VP, c_size_t]),
    ("tf_encoder_tensor_shape", S, [VP, CP, P(c_int32), P(c_int64)]),
    ("tf_encoder_get_tensor", S, [VP, CP, P(c_float), c_int32, P(c_int64)]),
    ("tf_encoder_set_tensor", S, [VP, CP, P(c_float), c_int32, P(c_int64)]),
    ("tf_forward_args_init_sized", None, [P(ForwardArgs), c_size_t]),
    ("tf_encoder_forward", S, [VP, P(ForwardArgs)]),
    ("tf_load_options_init_sized", None, [P(LoadOptions), c_size_t]),
    ("tf_encoder_load", S, [CP, P(LoadOptions), P(VP)]),
    ("tf_encoder_save", S, [VP, CP]),
    ("tf_tokenizer_options_init_sized", None, [P(TokenizerOptions), c_size_t]),
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
    ("tf_encoding_char_offsets", P(c_int64), [VP]),
    ("tf_encoding_overflow_to_sample", P(c_int32), [VP]),
    ("tf_encode_options_init_sized", None, [P(EncodeOptions), c_size_t]),
    ("tf_tokenizer_encode_batch_with", S, [VP, c_size_t, P(CP), P(c_size_t), P(CP),
                                           P(c_size_t), P(EncodeOptions), P(VP)]),
    ("tf_tokenizer_decode", S, [VP, P(c_int32), c_size_t, c_int32, ctypes.c_char_p, c_size_t,
                                P(c_size_t)]),
    ("tf_tokenizer_model_max_length", c_int32, [VP]),
    ("tf_pool", S, [P(c_float), P(c_int32), c_int32, c_int32, c_int32, c_int32, c_int32,
                    P(c_float)]),
    ("tf_status_name", CP, [S]),
    ("tf_runtime_info_get_sized", S, [P(RuntimeInfo), c_size_t]),
]:
    _declare(_name, _res, *_args)
for _kind in ENUMS:
    _declare(f"tf_{_kind}_name", CP, c_int32)
    _declare(f"tf_{_kind}_from_name", c_int32, CP)


def check(status):
    """Raises the TfencError subclass of a non-zero status with the message."""
    if status != 0:  # TF_OK
        raise error_for(lib.tf_status_name(status).decode(),
                        lib.tf_last_error().decode(errors="replace"))


def new(struct_type):
    """A struct that the library's tf_*_init_sized has set up, given the
    mirror's size (Config, ForwardArgs, LoadOptions, TokenizerOptions)."""
    s = struct_type()
    getattr(lib, struct_type.c_name + "_init_sized")(ctypes.byref(s), ctypes.sizeof(s))
    return s


# ---- Enum names: the library's ------------------------------------------------------

def _names(kind):
    name_of, names = getattr(lib, f"tf_{kind}_name"), []
    while (name := name_of(len(names))) is not None:
        names.append(name.decode())
    return tuple(names)


NAMES = {kind: _names(kind) for kind in ENUMS}  # kind -> names in value order


def enum_value(kind, name, arg):
    """The value of `name` in the library's enum `kind` ("activation",
    "position", "norm_placement", "pooling"); arg names it in errors."""
    if not isinstance(name, str):
        raise TypeError(f"{arg}: expected one of {NAMES[kind]}, got {type(name).__name__} "
                        f"{name!r}")
    value = getattr(lib, f"tf_{kind}_from_name")(c_string(name, arg))
    if value < 0:
        raise ValueError(f"{arg}: expected one of {NAMES[kind]}, got {name!r}")
    return value


def enum_name(kind, value):
    """The library's name of `value` in enum `kind`."""
    return getattr(lib, f"tf_{kind}_name")(value).decode()
