"""tfenc.ColBERT: PyLate's ColBERT (pylate/models/colbert.py) by its names
over a PyLate folder that tf_pipeline runs: encode(sentences, is_query=)
gives each text's [tokens, dim] matrix (the query or document prefix, [MASK]
expansion of queries, the skiplist left out of documents, unit rows), and
colbert_scores / rerank score queries against documents by MaxSim
(pylate/scores/scores.py, pylate/rank/rank.py). token_vectors() is the
C call (tf_pipeline_embed_tokens) both this and SentenceTransformer's
output_value="token_embeddings" run."""
import ctypes

import numpy as np

from . import _lib
from ._args import c_string, flag, integer, items, text_items
from ._lib import P, c_float, c_int32, c_size_t, check, lib
from .pipelines import PipelineArgs, _Pipeline, _renamed
from .errors import TfencError

VP, CP = ctypes.c_void_p, ctypes.c_char_p

for _name, _res, _args in [
    ("tf_pipeline_embed_tokens", ctypes.c_int, [VP, P(PipelineArgs), P(VP)]),
    ("tf_token_vectors_destroy", None, [VP]),
    ("tf_token_vectors_count", c_size_t, [VP]),
    ("tf_token_vectors_dim", c_int32, [VP]),
    ("tf_token_vectors_rows", c_int32, [VP, c_size_t]),
    ("tf_token_vectors_data", P(c_float), [VP, c_size_t]),
    ("tf_token_vectors_ids", P(c_int32), [VP, c_size_t]),
    ("tf_maxsim", ctypes.c_int, [P(c_float), c_int32, P(c_float), c_int32, c_int32, P(c_float)]),
]:
    _lib._declare(_name, _res, *_args)


def _matrices(v):
    """Each input's [rows, dim] float32 copy out of a tf_token_vectors."""
    dim, out = lib.tf_token_vectors_dim(v), []
    for i in range(lib.tf_token_vectors_count(v)):
        rows = lib.tf_token_vectors_rows(v, i)
        data = lib.tf_token_vectors_data(v, i)
        out.append(np.ctypeslib.as_array(data, (rows, dim)).copy() if rows else
                   np.zeros((0, dim), dtype=np.float32))
    return out


def token_vectors(pipeline, texts, batch_size, is_query=False, normalize=-1, prompt_name=None,
                  where=None):
    """[rows, dim] float32 of each of texts (NUL-terminated UTF-8 bytes) by
    tf_pipeline_embed_tokens, batch_size at a time, on pipeline (a _Pipeline);
    sets pipeline.truncated. where(i): the caller's names of input i."""
    batch_size = integer(batch_size, "batch_size", 1)
    t = (CP * len(texts))(*texts)
    a = _lib.new(PipelineArgs)
    a.batch_size, a.is_query, a.normalize = batch_size, is_query, normalize
    a.prompt_name = prompt_name
    truncated, cut, out = c_size_t(0), 0, []
    a.truncated = ctypes.pointer(truncated)
    with pipeline._borrow() as h:
        for first in range(0, len(texts), batch_size):
            a.n = min(batch_size, len(texts) - first)
            a.texts = ctypes.cast(ctypes.addressof(t) + first * ctypes.sizeof(CP), P(CP))
            v = ctypes.c_void_p()
            try:
                check(lib.tf_pipeline_embed_tokens(h, ctypes.byref(a), ctypes.byref(v)))
            except TfencError as e:
                raise _renamed(e, first, where) from None
            try:
                out.extend(_matrices(v))
            finally:
                lib.tf_token_vectors_destroy(v)
            cut += truncated.value
    pipeline.truncated = cut
    return out


def _matrix(m, name):
    """m as a C-contiguous float32 [rows, dim] with rows >= 1."""
    a = np.ascontiguousarray(np.asarray(m, dtype=np.float32))
    if a.ndim != 2 or a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"{name}: expected a [rows, dim] matrix with rows, dim >= 1, got shape "
                         f"{a.shape}")
    return a


def maxsim(query, document):
    """MaxSim of one query [q_rows, dim] and one document [d_rows, dim]
    (tf_maxsim): the sum over query rows of the largest dot product."""
    q, d = _matrix(query, "query"), _matrix(document, "document")
    if q.shape[1] != d.shape[1]:
        raise ValueError(f"document: {d.shape[1]} values a row, but query has {q.shape[1]}")
    score = c_float()
    check(lib.tf_maxsim(q.ctypes.data_as(P(c_float)), q.shape[0], d.ctypes.data_as(P(c_float)),
                        d.shape[0], q.shape[1], ctypes.byref(score)))
    return score.value


def colbert_scores(queries_embeddings, documents_embeddings):
    """[n_queries, n_documents] MaxSim scores (pylate.scores.colbert_scores
    of unpadded matrices): each a list of [rows, dim] matrices."""
    queries = items(queries_embeddings, "queries_embeddings", "a list of [rows, dim] matrices")
    documents = items(documents_embeddings, "documents_embeddings",
                      "a list of [rows, dim] matrices")
    return np.array([[maxsim(q, d) for d in documents] for q in queries],
                    dtype=np.float32).reshape(len(queries), len(documents))


def _longest_first(texts):
    """The indices of texts (UTF-8 bytes) longest first, by characters, as
    PyLate's ColBERT.encode orders its inputs before it batches them
    (np.argsort of -_input_length: a text's len); ties in the given order."""
    lengths = [len(t.decode("utf-8")) for t in texts]
    return sorted(range(len(texts)), key=lambda i: -lengths[i])


class ColBERT(_Pipeline):
    """ColBERT(path): a PyLate folder (a Hub id: revision=, cache_folder=,
    token=, local_files_only=), its query_length, document_length, prefixes
    and skiplist as the folder says them."""
    _kinds = ("multi-vector",)

    @property
    def dim(self):
        """Values a token's vector has (the last Dense module's out_features)."""
        with self._borrow() as h:
            return lib.tf_pipeline_dim(h)

    def encode(self, sentences, is_query=True, batch_size=32, normalize_embeddings=True,
               show_progress_bar=None, convert_to_numpy=True):
        """A [tokens, dim] float32 matrix of each sentence as PyLate's
        ColBERT.encode gives it (is_query True, its default: queries);
        a str gives one matrix, a list a list of them, in the list's order.
        As PyLate's, the texts run longest first, batch_size at a time, so
        that a batch holds texts of near one length."""
        texts, single = text_items(sentences, "sentences", c_string)
        if not flag(convert_to_numpy, "convert_to_numpy"):
            raise NotImplementedError("convert_to_numpy=False: tfenc.ColBERT gives numpy arrays")
        order = _longest_first(texts)  # run position -> the caller's index

        def where(position):
            return ("sentences" if single else f"sentences[{order[position]}]",) * 3
        ran = token_vectors(self, [texts[i] for i in order], batch_size,
                            flag(is_query, "is_query"),
                            1 if flag(normalize_embeddings, "normalize_embeddings") else 0,
                            where=where)
        out = [None] * len(ran)
        for position, i in enumerate(order):
            out[i] = ran[position]
        return out[0] if single else out

    def encode_query(self, sentences, **kwargs):
        return self.encode(sentences, is_query=True, **kwargs)

    def encode_document(self, sentences, **kwargs):
        return self.encode(sentences, is_query=False, **kwargs)

    def rerank(self, query, documents, batch_size=32):
        """[{"index", "score"}] of documents by MaxSim with query, best first
        (pylate.rank.rerank for one query)."""
        q = self.encode(query, is_query=True)
        docs = self.encode(items(documents, "documents", "a list of texts"), is_query=False,
                           batch_size=batch_size)
        scores = colbert_scores([q], docs)[0]
        order = sorted(range(len(docs)), key=lambda i: (-scores[i], i))
        return [{"index": i, "score": float(scores[i])} for i in order]
