"""A safetensors writer for the test generators (the Python `safetensors`
package is not available here). Follows the format exactly: 8-byte little-
endian header length, a UTF-8 JSON header padded with spaces to 8 bytes,
then the tensors' bytes back to back in header order."""
import json
import struct

import numpy as np

NUMPY_DTYPES = {np.dtype("float32"): "F32", np.dtype("float16"): "F16",
                np.dtype("int64"): "I64", np.dtype("int32"): "I32", np.dtype("float64"): "F64"}


def encode(tensors, metadata=None):
    """tensors: name -> numpy array, or name -> (dtype tag, raw uint16 array)
    for BF16. Returns the file's bytes."""
    header, blobs, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    for name, value in tensors.items():
        tag, array = value if isinstance(value, tuple) else (NUMPY_DTYPES[value.dtype], value)
        data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": tag, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def write(path, tensors, metadata=None):
    with open(path, "wb") as f:
        f.write(encode(tensors, metadata))
