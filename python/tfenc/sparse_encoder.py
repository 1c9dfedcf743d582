"""tfenc.SparseEncoder: sentence-transformers 5's SparseEncoder
(sparse_encoder/SparseEncoder.py) by its names over a SPLADE folder that
tf_pipeline_embed_sparse runs: a SparseEncoder folder (MLMTransformer +
SpladePooling, or a Router whose query route is an inference-free
SparseStaticEmbedding) or a bare *ForMaskedLM (the older SPLADE folders).

What encode gives (no scipy, no torch): with convert_to_sparse_tensor True
(upstream's default), one dict {"indices": int32 [nnz] ascending,
"values": float32 [nnz]} a text, the non-zero values of its vector over
the vocabulary; with False, a dense float32 numpy array [n, vocab] (as
upstream's dense tensor). A str gives one of them, a list a list of dicts
(or the [n, vocab] array). similarity, decode and sparsity take either."""
import ctypes

import numpy as np

from . import _lib
from ._args import c_string, flag, integer, text_items
from ._lib import P, c_float, c_int32, c_size_t, check, lib
from .errors import TfencError
from .pipelines import PipelineArgs, _Pipeline, _renamed

VP, CP = ctypes.c_void_p, ctypes.c_char_p

for _name, _res, _args in [
    ("tf_pipeline_embed_sparse", ctypes.c_int, [VP, P(PipelineArgs), P(VP)]),  # since 0.5.0
    ("tf_sparse_vectors_destroy", None, [VP]),
    ("tf_sparse_vectors_count", c_size_t, [VP]),
    ("tf_sparse_vectors_dim", c_int32, [VP]),
    ("tf_sparse_vectors_nnz", c_int32, [VP, c_size_t]),
    ("tf_sparse_vectors_indices", P(c_int32), [VP, c_size_t]),
    ("tf_sparse_vectors_values", P(c_float), [VP, c_size_t]),
]:
    _lib._declare(_name, _res, *_args)


def _vectors(v):
    """Each input's {"indices", "values"} copied out of a tf_sparse_vectors."""
    out = []
    for i in range(lib.tf_sparse_vectors_count(v)):
        nnz = lib.tf_sparse_vectors_nnz(v, i)
        if nnz:
            idx = np.ctypeslib.as_array(lib.tf_sparse_vectors_indices(v, i), (nnz,)).copy()
            val = np.ctypeslib.as_array(lib.tf_sparse_vectors_values(v, i), (nnz,)).copy()
        else:
            idx, val = np.zeros(0, np.int32), np.zeros(0, np.float32)
        out.append({"indices": idx, "values": val})
    return out


def _dense(embeddings, dim, name):
    """embeddings (a dict, a list of dicts, or a [n, dim] / [dim] array) as
    a float32 [n, dim] array."""
    if isinstance(embeddings, dict):
        embeddings = [embeddings]
    if isinstance(embeddings, (list, tuple)) and all(isinstance(e, dict) for e in embeddings):
        out = np.zeros((len(embeddings), dim), np.float32)
        for r, e in enumerate(embeddings):
            idx = np.asarray(e["indices"], dtype=np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= dim):
                raise ValueError(f"{name}[{r}]: an index outside 0..{dim - 1}")
            out[r, idx] = np.asarray(e["values"], dtype=np.float32)
        return out
    a = np.asarray(embeddings, dtype=np.float32)
    a = a.reshape(1, -1) if a.ndim == 1 else a
    if a.ndim != 2 or a.shape[1] != dim:
        raise ValueError(f"{name}: expected [n, {dim}] values (or sparse dicts), got shape "
                         f"{a.shape}")
    return a


class SparseEncoder(_Pipeline):
    """SparseEncoder(path): a SPLADE folder (a Hub id: revision=,
    cache_folder=, token=, local_files_only=), its pooling, activation and
    routes as the folder says them. similarity_fn_name is "dot"."""
    _kinds = ("sparse-embedding", "fill-mask")

    @property
    def similarity_fn_name(self):
        """The folder's similarity_fn_name; "dot" (SparseEncoder's default)
        for a bare *ForMaskedLM, which has no config_sentence_transformers.json."""
        if self.kind == "fill-mask":
            return "dot"
        with self._borrow() as h:
            return lib.tf_pipeline_similarity(h).decode()

    @property
    def prompts(self):
        """The folder's prompts (config_sentence_transformers.json), name -> text."""
        with self._borrow() as h:
            names = [lib.tf_pipeline_prompt_name(h, i).decode()
                     for i in range(lib.tf_pipeline_prompt_count(h))]
            return {n: lib.tf_pipeline_prompt(h, n.encode()).decode() for n in names}

    def _routed(self, kwargs, is_query, candidates):
        """encode for encode_query / encode_document: the route, and the
        first of candidates among the folder's prompts when prompt_name is
        not given (SparseEncoder.encode_query's "query";
        encode_document's "document", "passage", "corpus")."""
        if kwargs.get("prompt_name") is None:
            kwargs["prompt_name"] = next((c for c in candidates if c in self.prompts), None)
        return self.encode(is_query=is_query, **kwargs)

    def get_sentence_embedding_dimension(self):
        """The vocabulary's size: every vector's width."""
        with self._borrow() as h:
            return lib.tf_pipeline_dim(h)

    def _embed(self, texts, is_query, max_active_dims, batch_size, prompt_name, where):
        a = _lib.new(PipelineArgs)
        t = (CP * len(texts))(*texts)
        a.n, a.texts, a.batch_size, a.is_query = len(texts), t, batch_size, is_query
        a.max_active_dims, a.prompt_name = max_active_dims, prompt_name
        truncated = c_size_t(0)
        a.truncated = ctypes.pointer(truncated)
        v = ctypes.c_void_p()
        with self._borrow() as h:
            try:
                check(lib.tf_pipeline_embed_sparse(h, ctypes.byref(a), ctypes.byref(v)))
            except TfencError as e:
                raise _renamed(e, 0, where) from None
        try:
            out = _vectors(v)
        finally:
            lib.tf_sparse_vectors_destroy(v)
        self.truncated = truncated.value
        return out

    def encode(self, sentences, prompt_name=None, batch_size=32, max_active_dims=None,
               convert_to_sparse_tensor=True, show_progress_bar=None, is_query=False):
        """Each sentence's sparse vector (see the module's text for the
        forms); max_active_dims keeps the k largest values (None: all);
        is_query False: the documents' route (a Router's "document"), True:
        its "query" route (encode_query)."""
        texts, single = text_items(sentences, "sentences", c_string)
        k = 0 if max_active_dims is None else integer(max_active_dims, "max_active_dims", 1)

        def where(i):
            return ("sentences" if single else f"sentences[{i}]",) * 3
        name = None if prompt_name is None else c_string(prompt_name, "prompt_name")
        out = self._embed(texts, int(flag(is_query, "is_query")), k,
                          integer(batch_size, "batch_size", 1), name, where)
        if not flag(convert_to_sparse_tensor, "convert_to_sparse_tensor"):
            dense = _dense(out, self.get_sentence_embedding_dimension(), "embeddings")
            return dense[0] if single else dense
        return out[0] if single else out

    def encode_query(self, sentences, **kwargs):
        """encode through the query route (a Router's SparseStaticEmbedding),
        with the folder's "query" prompt unless prompt_name says another."""
        return self._routed(dict(kwargs, sentences=sentences), True, ("query",))

    def encode_document(self, sentences, **kwargs):
        """encode as documents, with the folder's "document", "passage" or
        "corpus" prompt (the first it has) unless prompt_name says another."""
        return self._routed(dict(kwargs, sentences=sentences), False,
                            ("document", "passage", "corpus"))

    def similarity(self, embeddings1, embeddings2):
        """[n1, n2] scores by similarity_fn_name: dot products (SparseEncoder's
        default), or cosines; sums in float64."""
        name = self.similarity_fn_name
        if name not in ("dot", "cosine"):
            raise NotImplementedError(f"similarity_fn_name {name!r}: SparseEncoder.similarity "
                                      "computes dot and cosine")
        dim = self.get_sentence_embedding_dimension()
        a = _dense(embeddings1, dim, "embeddings1").astype(np.float64)
        b = _dense(embeddings2, dim, "embeddings2").astype(np.float64)
        if name == "cosine":
            a /= np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
            b /= np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
        return (a @ b.T).astype(np.float32)

    def decode(self, embeddings, top_k=None):
        """(token, weight) pairs of each embedding, largest weight first (ties
        by lower index), top_k of them (None: every non-zero one): a list for
        one embedding, a list of lists for several, as SparseEncoder.decode."""
        dicts = isinstance(embeddings, (list, tuple)) and all(isinstance(e, dict)
                                                             for e in embeddings)
        single = isinstance(embeddings, dict) or (not dicts and np.ndim(embeddings) == 1)
        if top_k is not None:
            top_k = integer(top_k, "top_k", 1)
        dense = _dense(embeddings, self.get_sentence_embedding_dimension(), "embeddings")
        tok = self.tokenizer
        out = []
        for row in dense:
            idx = np.flatnonzero(row)
            order = sorted(idx.tolist(), key=lambda i: (-float(row[i]), i))[:top_k]
            out.append([(tok.id_to_token(i), float(row[i])) for i in order])
        return out[0] if single else out

    @staticmethod
    def sparsity(embeddings):
        """{"active_dims", "sparsity_ratio"} averaged over the embeddings
        (a [n, vocab] array, or sparse dicts with their width unknown:
        active_dims only)."""
        if isinstance(embeddings, dict):
            embeddings = [embeddings]
        if isinstance(embeddings, (list, tuple)) and embeddings and isinstance(embeddings[0],
                                                                               dict):
            return {"active_dims": float(np.mean([len(e["indices"]) for e in embeddings]))}
        a = np.asarray(embeddings, dtype=np.float32)
        a = a.reshape(1, -1) if a.ndim == 1 else a
        active = float(np.mean((a != 0).sum(axis=1)))
        return {"active_dims": active, "sparsity_ratio": 1 - active / a.shape[1]}
