"""quantize_embeddings as sentence-transformers computes it
(sentence_transformers/quantization.py, quantize_embeddings), by the C
library's tf_quantize (include/tfenc.h says the rule):

    float32   the values as float32
    uint8     (x - start) / step,       truncated toward zero (numpy's astype)
    int8      (x - start) / step - 128, likewise
              start = a dimension's minimum, step = (its maximum - start) / 255,
              over `ranges` [2, D] if given, else calibration_embeddings, else
              the embeddings themselves
    ubinary   np.packbits(x > 0): 8 dimensions a byte, the first the high bit
    binary    ubinary - 128 as int8

Every step is float32 arithmetic, as upstream's on float32 embeddings and
ranges (what encode gives); float64 inputs are rounded to float32 first,
where upstream would compute in float64. Where upstream is undefined: a value
outside the ranges (given, or calibrated on other embeddings) takes the end
bucket (0..255, -128..127), where numpy's cast of an out-of-range float is
undefined (it wraps on x86); a dimension without a range (max == min: one
embedding, or a constant dimension) is a ValueError naming it, where
upstream divides 0 by 0; the bits are packed row by row, so a width that is
not a multiple of 8 pads each row's last byte with zeros, where upstream
packs across rows. NaN and infinite values are a ValueError.

A list of [tokens, D] arrays (multi-vector output) is quantized together and
given back as a list, as upstream does.

Packed binary / ubinary rows are compared by hamming_distance (the bits
that differ, tf_hamming_distance) and hamming_similarity (dim - distance:
the bits that agree, larger is closer). sentence-transformers has no
similarity of packed rows, and SentenceTransformer.similarity compares float
embeddings only (an int8 array may be int8 or binary precision), so these
are the calls for them."""
import ctypes
import logging

import numpy as np

from . import _lib
from ._lib import check, lib
from ._tensors import to_numpy

_lib._declare("tf_precision_name", ctypes.c_char_p, ctypes.c_int32)
_lib._declare("tf_precision_row_bytes", ctypes.c_size_t, ctypes.c_int32, ctypes.c_int32)
_lib._declare("tf_hamming_distance", ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t,
              ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int32, ctypes.POINTER(ctypes.c_int32))
_lib._declare("tf_quantize", ctypes.c_int, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t,
              ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_float), ctypes.c_void_p,
              ctypes.c_size_t)


def _precisions():
    names = []
    while (name := lib.tf_precision_name(len(names))) is not None:
        names.append(name.decode())
    return tuple(names)


PRECISIONS = _precisions()  # the library's names, in tf_precision's order
_DTYPES = {"float32": np.float32, "int8": np.int8, "uint8": np.uint8, "binary": np.int8,
           "ubinary": np.uint8}
_log = logging.getLogger("tfenc")


def precision_of(precision):
    """precision as a name of PRECISIONS (None: "float32", as upstream's encode)."""
    if precision is None:
        return "float32"
    if not isinstance(precision, str):
        raise TypeError(f"precision: expected one of {', '.join(PRECISIONS)}, got "
                        f"{type(precision).__name__}")
    if precision not in PRECISIONS:
        raise ValueError(f"Precision {precision!r} is not supported: precision takes "
                         f"{', '.join(PRECISIONS)}")
    return precision


def _rows(value, name):
    """value (an array, a torch tensor, a list of rows) as a 2-D float array."""
    if isinstance(value, list):
        value = [to_numpy(v) for v in value]
    array = np.asarray(to_numpy(value))
    if array.dtype in (np.int8, np.uint8):
        raise TypeError(f"{name}: embeddings to quantize must be float rather than int8 or uint8")
    if array.dtype.kind != "f":
        raise TypeError(f"{name}: expected float embeddings, got {array.dtype}")
    if array.ndim != 2:
        raise ValueError(f"{name}: expected [n, D] embeddings, got shape {array.shape}")
    return array


def _ranges(embeddings, ranges, calibration_embeddings, precision):
    """[2, D] float32: each dimension's (start, end) as upstream takes them
    (None: the embeddings' own, which tf_quantize takes itself)."""
    width = embeddings.shape[1]
    if ranges is not None:
        ranges = np.asarray(to_numpy(ranges))
        if ranges.shape != (2, width):
            raise ValueError(f"ranges: expected shape (2, {width}) (each dimension's minimum "
                             f"and maximum), got {ranges.shape}")
        return np.ascontiguousarray(ranges, dtype=np.float32)
    if calibration_embeddings is not None:
        source = _rows(calibration_embeddings, "calibration_embeddings").astype(np.float32)
        if source.shape[1] != width:
            raise ValueError(f"calibration_embeddings: {source.shape[1]} values each, the "
                             f"embeddings have {width}")
        return np.ascontiguousarray(np.vstack((np.min(source, axis=0), np.max(source, axis=0))))
    if len(embeddings) < 100:
        _log.warning(f"Computing {precision} quantization buckets based on "
                     f"{len(embeddings)} embedding{'s' if len(embeddings) != 1 else ''}."
                     f" {precision} quantization is more stable with `ranges` calculated "
                     f"from more embeddings or a `calibration_embeddings` that can be "
                     f"used to calculate the buckets.")
    return None


def _quantize(embeddings, precision, ranges):
    """tf_quantize of embeddings [n, D] (float32, contiguous): [n, row bytes]."""
    n, width = embeddings.shape
    value = PRECISIONS.index(precision)
    row_bytes = lib.tf_precision_row_bytes(value, width)
    dtype = np.dtype(_DTYPES[precision])
    out = np.empty((n, row_bytes // dtype.itemsize), dtype=dtype)
    floats = ctypes.POINTER(ctypes.c_float)
    check(lib.tf_quantize(embeddings.ctypes.data_as(floats), n, width, value,
                          None if ranges is None else ranges.ctypes.data_as(floats),
                          out.ctypes.data_as(ctypes.c_void_p), out.nbytes))
    return out


def quantize_embeddings(embeddings, precision, ranges=None, calibration_embeddings=None):
    """embeddings [n, D] (float), or a list of [tokens, D] arrays, in
    precision, one of PRECISIONS (see the module)."""
    precision = precision_of(precision)
    lengths = None
    if isinstance(embeddings, list) and embeddings and np.ndim(to_numpy(embeddings[0])) == 2:
        parts = [to_numpy(e) for e in embeddings]  # multi-vector: [tokens, D] each
        lengths = [len(p) for p in parts]
        embeddings = np.concatenate(parts)
    embeddings = np.ascontiguousarray(_rows(embeddings, "embeddings"), dtype=np.float32)
    if precision in ("int8", "uint8"):
        ranges = _ranges(embeddings, ranges, calibration_embeddings, precision)
    else:
        ranges = None  # read for int8 and uint8 only, as upstream
    out = _quantize(embeddings, precision, ranges)
    return out if lengths is None else np.split(out, np.cumsum(lengths)[:-1])


def _packed(value, name, dim):
    """value as a C-contiguous 2-D uint8 view of packed rows of dim bits."""
    array = np.asarray(to_numpy(value))
    if array.dtype not in (np.int8, np.uint8):
        raise TypeError(f"{name}: expected packed binary (int8) or ubinary (uint8) rows, got "
                        f"{array.dtype}")
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2:
        raise ValueError(f"{name}: expected [n, bytes] or [bytes] rows, got shape {array.shape}")
    if array.shape[1] != (dim + 7) // 8:
        raise ValueError(f"{name}: rows of {array.shape[1]} bytes, {dim} values take "
                         f"{(dim + 7) // 8}")
    return np.ascontiguousarray(array).view(np.uint8)


def hamming_distance(a, b, dim=None):
    """[n, m] int32: the bits of the first dim that differ between packed
    row a[i] and b[j] (binary and ubinary alike; dim: the embeddings' width,
    default all the bits of a row)."""
    width = np.asarray(to_numpy(a)).shape[-1]
    dim = width * 8 if dim is None else dim
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"dim: expected a positive number of values, got {dim!r}")
    x, y = _packed(a, "a", int(dim)), _packed(b, "b", int(dim))
    out = np.empty((len(x), len(y)), dtype=np.int32)
    check(lib.tf_hamming_distance(x.ctypes.data_as(ctypes.c_void_p), len(x),
                                  y.ctypes.data_as(ctypes.c_void_p), len(y), int(dim),
                                  out.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))))
    return out


def hamming_similarity(a, b, dim=None):
    """[n, m] int32: dim - hamming_distance(a, b, dim), the bits that agree."""
    width = np.asarray(to_numpy(a)).shape[-1]
    dim = width * 8 if dim is None else dim
    return np.int32(dim) - hamming_distance(a, b, dim)
