"""quantize_embeddings as sentence-transformers computes it
(sentence_transformers/quantization.py, quantize_embeddings):

    float32   the values as float32
    uint8     (x - start) / step,       truncated to an integer (astype)
    int8      (x - start) / step - 128, truncated toward zero (astype)
              start = a dimension's minimum, step = (its maximum - start) / 255,
              over `ranges` [2, D] if given, else calibration_embeddings, else
              the embeddings themselves
    ubinary   np.packbits(x > 0): 8 dimensions a byte, the first the high bit
    binary    ubinary - 128 as int8

Where this differs: a value outside the ranges (given, or calibrated on
other embeddings) is clipped to the end bucket (0..255, -128..127), where
upstream's cast of an out-of-range float is undefined (it wraps on x86); a
dimension whose range is empty (one embedding, or a constant dimension) is
a ValueError naming it, where upstream divides by zero into NaN; the bits
are packed row by row, so a width that is not a multiple of 8 pads each
row's last byte with zeros, where upstream packs across rows."""
import logging

import numpy as np

from ._tensors import to_numpy

PRECISIONS = ("float32", "int8", "uint8", "binary", "ubinary")
# precision -> (dtype, the offset taken off, the lowest and highest bucket)
_BUCKETS = {"uint8": (np.uint8, 0, 0, 255), "int8": (np.int8, 128, -128, 127)}
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
    """[2, D]: each dimension's (start, end) as upstream takes them."""
    width = embeddings.shape[1]
    if ranges is not None:
        ranges, name = np.asarray(to_numpy(ranges)), "ranges"
        if ranges.shape != (2, width):
            raise ValueError(f"ranges: expected shape (2, {width}) (each dimension's minimum "
                             f"and maximum), got {ranges.shape}")
    else:
        if calibration_embeddings is not None:
            source, name = _rows(calibration_embeddings, "calibration_embeddings"), \
                "calibration_embeddings"
            if source.shape[1] != width:
                raise ValueError(f"calibration_embeddings: {source.shape[1]} values each, the "
                                 f"embeddings have {width}")
        else:
            source, name = embeddings, "embeddings"
            if len(embeddings) < 100:
                _log.warning(f"Computing {precision} quantization buckets based on "
                             f"{len(embeddings)} embedding{'s' if len(embeddings) != 1 else ''}."
                             f" {precision} quantization is more stable with `ranges` calculated "
                             f"from more embeddings or a `calibration_embeddings` that can be "
                             f"used to calculate the buckets.")
        ranges = np.vstack((np.min(source, axis=0), np.max(source, axis=0)))
    empty = np.flatnonzero(~(ranges[1] > ranges[0]))
    if len(empty):
        raise ValueError(f"{name}: dimension {empty[0]} has no range to quantize (minimum "
                         f"{ranges[0, empty[0]]}, maximum {ranges[1, empty[0]]}; {len(empty)} of "
                         f"{width} dimensions so): {precision} needs embeddings that differ in "
                         f"every dimension, or calibration_embeddings or ranges")
    return ranges


def quantize_embeddings(embeddings, precision, ranges=None, calibration_embeddings=None):
    """embeddings [n, D] (float) in precision, one of PRECISIONS (see the module)."""
    precision = precision_of(precision)
    embeddings = _rows(embeddings, "embeddings")
    if precision == "float32":
        return embeddings.astype(np.float32)
    if precision in _BUCKETS:
        dtype, less, lo, hi = _BUCKETS[precision]
        ranges = _ranges(embeddings, ranges, calibration_embeddings, precision)
        starts = ranges[0, :]
        steps = (ranges[1, :] - ranges[0, :]) / 255
        return np.clip((embeddings - starts) / steps - less, lo, hi).astype(dtype)
    bits = np.packbits(embeddings > 0, axis=-1)  # [n, ceil(D / 8)]
    return bits if precision == "ubinary" else (bits.astype(np.int16) - 128).astype(np.int8)
