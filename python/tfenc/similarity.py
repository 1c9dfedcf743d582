"""Similarity of embeddings as sentence-transformers computes it
(sentence_transformers/util/similarity.py: cos_sim, dot_score,
euclidean_sim, manhattan_sim and their pairwise_* forms), in numpy:

    cosine     a_i . b_j / (max(|a_i|, 1e-12) max(|b_j|, 1e-12))  (F.normalize's eps)
    dot        a_i . b_j
    euclidean  -|a_i - b_j|_2   (a NEGATIVE distance: larger is more similar)
    manhattan  -|a_i - b_j|_1   (likewise)

Embeddings are a [n, D] or [D] array ([D] is one row), a list of rows, or a
torch tensor. Sums run in float64; the result has the inputs' float type
(a list is float32, as torch.tensor makes it) and is a numpy array, or a
torch tensor when either input is one (sentence-transformers always returns
a tensor). The matrix forms give [n, m]; the pairwise forms take two [n, D]
and give [n]."""
import collections.abc

import numpy as np

from ._tensors import import_torch, is_tensor, to_numpy

SIMILARITY_FUNCTIONS = ("cosine", "dot", "euclidean", "manhattan")  # similarity_fn_name's
_CHUNK = 1 << 22  # float64 differences held at once by the distance matrices (32 MiB)


def _embeddings(value, name):
    """value as a 2-D float numpy array ([D] as [1, D])."""
    if value is None or isinstance(value, (str, bytes, collections.abc.Mapping,
                                           collections.abc.Set)):
        raise TypeError(f"{name}: expected embeddings (an array, a list of vectors or a torch "
                        f"tensor), got {type(value).__name__}")
    if isinstance(value, (list, tuple)):
        try:
            array = np.asarray([to_numpy(v) for v in value], dtype=np.float32)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{name}: not a list of vectors of one length of numbers ({e})") \
                from None
    else:
        array = np.asarray(to_numpy(value))
    if array.dtype.kind != "f":
        raise TypeError(f"{name}: expected floating-point embeddings, got {array.dtype} (as "
                        f"sentence-transformers, similarity compares float embeddings only; "
                        f"packed binary / ubinary rows: tfenc.hamming_similarity)")
    if array.ndim == 1:
        array = array[None, :]
    if array.ndim != 2:
        raise ValueError(f"{name}: expected [n, D] or [D] embeddings, got shape {array.shape}")
    return array


def _operands(a, b, names):
    """(a, b as float64 [n, D] and [m, D], the result's dtype, whether a tensor is due)."""
    x, y = _embeddings(a, names[0]), _embeddings(b, names[1])
    if x.shape[1] != y.shape[1]:
        raise ValueError(f"{names[1]}: embeddings of {y.shape[1]} values, {names[0]}'s have "
                         f"{x.shape[1]}")
    dtype = np.result_type(x.dtype, y.dtype)
    return x.astype(np.float64), y.astype(np.float64), dtype, is_tensor(a) or is_tensor(b)


def _result(values, dtype, as_tensor):
    out = np.ascontiguousarray(values.astype(dtype))
    return import_torch("a similarity of torch tensors").from_numpy(out) if as_tensor else out


def _unit_rows(x):
    """x's rows over max(their L2 norm, 1e-12): torch.nn.functional.normalize."""
    return x / np.maximum(np.sqrt((x * x).sum(axis=1, keepdims=True)), 1e-12)


def _distances(x, y, p):
    """[n, m] p-norm (1 or 2) distances of x's rows [n, D] to y's [m, D], in
    slices of x's rows that hold at most _CHUNK differences."""
    out = np.empty((len(x), len(y)))
    rows = max(1, _CHUNK // max(1, len(y) * x.shape[1]))
    for i in range(0, len(x), rows):
        diff = x[i:i + rows, None, :] - y[None, :, :]  # [rows, m, D]
        out[i:i + rows] = np.sqrt((diff * diff).sum(-1)) if p == 2 else np.abs(diff).sum(-1)
    return out


_MATRIX = {  # name -> ([n, D], [m, D] float64) -> [n, m]
    "cosine": lambda x, y: _unit_rows(x) @ _unit_rows(y).T,
    "dot": lambda x, y: x @ y.T,
    "euclidean": lambda x, y: -_distances(x, y, 2),
    "manhattan": lambda x, y: -_distances(x, y, 1),
}
_PAIRWISE = {  # name -> ([n, D], [n, D] float64) -> [n]
    "cosine": lambda x, y: (_unit_rows(x) * _unit_rows(y)).sum(-1),
    "dot": lambda x, y: (x * y).sum(-1),
    "euclidean": lambda x, y: -np.sqrt(((x - y) ** 2).sum(-1)),
    "manhattan": lambda x, y: -np.abs(x - y).sum(-1),
}


def similarity(name, a, b, names=("a", "b")):
    """The [n, m] similarities of name (one of SIMILARITY_FUNCTIONS)."""
    x, y, dtype, as_tensor = _operands(a, b, names)
    return _result(_MATRIX[name](x, y), dtype, as_tensor)


def similarity_pairwise(name, a, b, names=("a", "b")):
    """The [n] similarities of name between a[i] and b[i]."""
    x, y, dtype, as_tensor = _operands(a, b, names)
    if len(x) != len(y):
        raise ValueError(f"{names[1]}: {len(y)} embeddings, {names[0]} has {len(x)}; pairwise "
                         f"compares a[i] with b[i]")
    return _result(_PAIRWISE[name](x, y), dtype, as_tensor)


def cos_sim(a, b):
    """[n, m]: cos_sim(a[i], b[j])."""
    return similarity("cosine", a, b)


def dot_score(a, b):
    """[n, m]: a[i] . b[j]."""
    return similarity("dot", a, b)


def euclidean_sim(a, b):
    """[n, m]: -|a[i] - b[j]|_2."""
    return similarity("euclidean", a, b)


def manhattan_sim(a, b):
    """[n, m]: -|a[i] - b[j]|_1."""
    return similarity("manhattan", a, b)


def pairwise_cos_sim(a, b):
    """[n]: cos_sim(a[i], b[i])."""
    return similarity_pairwise("cosine", a, b)


def pairwise_dot_score(a, b):
    """[n]: a[i] . b[i]."""
    return similarity_pairwise("dot", a, b)


def pairwise_euclidean_sim(a, b):
    """[n]: -|a[i] - b[i]|_2."""
    return similarity_pairwise("euclidean", a, b)


def pairwise_manhattan_sim(a, b):
    """[n]: -|a[i] - b[i]|_1."""
    return similarity_pairwise("manhattan", a, b)
