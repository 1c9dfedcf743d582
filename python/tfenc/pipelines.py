"""Model folders as sentence-transformers and transformers use them:
tfenc.SentenceEncoder (a sentence-transformers folder: modules.json, its
pooling, Dense and Normalize modules, prompts), tfenc.CrossEncoder (a
*ForSequenceClassification reranker) and tfenc.Classifier, each over
the C library's tf_pipeline."""
import ctypes
import itertools

import numpy as np

from . import _lib
from ._args import c_path, c_string, flag, integer, items, text_items, text_pair_items
from ._handle import Handle, Owner
from ._lib import P, c_float, c_int32, c_size_t, check, lib

VP, CP = ctypes.c_void_p, ctypes.c_char_p


class PipelineOptions(ctypes.Structure):  # since 0.3.0
    c_name = "tf_pipeline_options"
    _fields_ = [("struct_size", c_size_t), ("max_seq_length", c_int32),
                ("truncation_error", c_int32)]


class PipelineArgs(ctypes.Structure):  # since 0.3.0
    c_name = "tf_pipeline_args"
    _fields_ = [("struct_size", c_size_t), ("n", c_size_t), ("texts", P(CP)), ("pairs", P(CP)),
                ("prompt_name", CP), ("normalize", c_int32), ("dimensions", c_int32),
                ("batch_size", c_int32), ("n_threads", c_int32), ("out", P(c_float)),
                ("truncated", P(c_size_t)),
                ("dimensions_layer_norm", c_int32), ("out_len", c_size_t)]  # since 0.4.0


_differ = _lib._mismatches(lib, (PipelineOptions, PipelineArgs))
if _differ:
    raise ImportError("libtfenc's pipeline structs differ from this binding's: " + _differ)

for _name, _res, _args in [
    ("tf_pipeline_options_init_sized", None, [P(PipelineOptions), c_size_t]),
    ("tf_pipeline_args_init_sized", None, [P(PipelineArgs), c_size_t]),
    ("tf_pipeline_load", ctypes.c_int, [CP, P(PipelineOptions), P(VP)]),
    ("tf_pipeline_destroy", None, [VP]),
    ("tf_pipeline_kind_of", c_int32, [VP]),
    ("tf_pipeline_kind_name", CP, [c_int32]),
    ("tf_pipeline_dim", c_int32, [VP]),
    ("tf_pipeline_max_seq_length", c_int32, [VP]),
    ("tf_pipeline_label", CP, [VP, c_int32]),
    ("tf_pipeline_similarity", CP, [VP]),
    ("tf_pipeline_prompt_count", c_size_t, [VP]),
    ("tf_pipeline_prompt_name", CP, [VP, c_size_t]),
    ("tf_pipeline_prompt", CP, [VP, CP]),
    ("tf_pipeline_default_prompt_name", CP, [VP]),
    ("tf_pipeline_embed", ctypes.c_int, [VP, P(PipelineArgs)]),
    ("tf_pipeline_score", ctypes.c_int, [VP, P(PipelineArgs)]),
    ("tf_pipeline_classify", ctypes.c_int, [VP, P(PipelineArgs)]),
    ("tf_pipeline_entities", ctypes.c_int, [VP, CP, c_int32, P(VP)]),  # since 0.4.0
    ("tf_entities_destroy", None, [VP]),
    ("tf_entities_count", c_size_t, [VP]),
    ("tf_entities_label", CP, [VP, c_size_t]),
    ("tf_entities_word", CP, [VP, c_size_t]),
    ("tf_aggregation_name", CP, [c_int32]),
    ("tf_entities_score", c_float, [VP, c_size_t]),
    ("tf_entities_start", ctypes.c_int64, [VP, c_size_t]),
    ("tf_entities_end", ctypes.c_int64, [VP, c_size_t]),
    ("tf_entities_index", c_int32, [VP, c_size_t]),
]:
    _lib._declare(_name, _res, *_args)


def _top_k(top_k):
    """top_k as a call takes it: None (every one) or a count >= 1."""
    return None if top_k is None else integer(top_k, "top_k", 1)


class _Pipeline(Owner):
    """A model folder loaded once; use it from many threads at once."""
    _kinds = ()

    def __init__(self, path, *, max_seq_length=0, truncation_error=False):
        o = _lib.new(PipelineOptions)
        o.max_seq_length = integer(max_seq_length, "max_seq_length")
        o.truncation_error = flag(truncation_error, "truncation_error")
        handle = ctypes.c_void_p()
        check(lib.tf_pipeline_load(c_path(path), ctypes.byref(o), ctypes.byref(handle)))
        self._handle = Handle(handle, lib.tf_pipeline_destroy, type(self).__name__)
        kind = self.kind
        if kind not in self._kinds:
            self.close()
            raise ValueError(f"{path}: the folder's kind is {kind}; {type(self).__name__} reads "
                             f"{' or '.join(self._kinds)} folders")
        self.truncated = 0  # inputs cut to max_seq_length by the last call

    @classmethod
    def from_dir(cls, path, **options):
        return cls(path, **options)

    @property
    def kind(self):
        """"embedding", "cross-encoder" or "classifier"."""
        with self._handle.borrow() as h:
            return lib.tf_pipeline_kind_name(lib.tf_pipeline_kind_of(h)).decode()

    @property
    def max_seq_length(self):
        with self._handle.borrow() as h:
            return lib.tf_pipeline_max_seq_length(h)

    def _run(self, fn, texts, pairs, width, batch_size, **fields):
        """[len(texts), width] float32 of fn over texts (and as many pairs),
        each NUL-terminated UTF-8 bytes (c_string's)."""
        batch_size = integer(batch_size, "batch_size", 1)
        out = np.zeros((len(texts), width), dtype=np.float32)
        if len(texts) == 0:
            return out
        a = _lib.new(PipelineArgs)
        t = (CP * len(texts))(*texts)  # [n] pointers into texts' bytes
        a.n, a.texts, a.batch_size = len(texts), t, batch_size
        if pairs is not None:
            p = (CP * len(pairs))(*pairs)  # [n] pointers into pairs' bytes
            a.pairs = p
        for k, v in fields.items():
            setattr(a, k, v)
        truncated = c_size_t(0)
        a.out, a.out_len = out.ctypes.data_as(P(c_float)), out.size
        a.truncated = ctypes.pointer(truncated)
        with self._handle.borrow() as h:
            check(fn(h, ctypes.byref(a)))
        self.truncated = truncated.value
        return out


class SentenceEncoder(_Pipeline):
    """SentenceEncoder.from_dir(path): a sentence-transformers folder (or a
    BERT folder: mean pooling), encode() as SentenceTransformer.encode."""
    _kinds = ("embedding",)

    @property
    def dim(self):
        with self._handle.borrow() as h:
            return lib.tf_pipeline_dim(h)

    @property
    def similarity_fn_name(self):
        with self._handle.borrow() as h:
            return lib.tf_pipeline_similarity(h).decode()

    @property
    def prompts(self):
        """{name: text} from config_sentence_transformers.json."""
        with self._handle.borrow() as h:
            names = [lib.tf_pipeline_prompt_name(h, i).decode()
                     for i in range(lib.tf_pipeline_prompt_count(h))]
            return {n: lib.tf_pipeline_prompt(h, n.encode()).decode() for n in names}

    @property
    def default_prompt_name(self):
        with self._handle.borrow() as h:
            name = lib.tf_pipeline_default_prompt_name(h)
        return name.decode() if name is not None else None

    def encode(self, texts, prompt_name=None, normalize=None, dimensions=None, batch_size=32,
               dimensions_layer_norm=False):
        """[len(texts), dimensions or dim] float32 vectors (one text: [dim]).
        prompt_name None: the folder's default prompt, "" none; normalize
        None: as the folder's modules, False: its Normalize skipped, True:
        unit length; dimensions: the first ones (Matryoshka), renormalised
        when normalised; dimensions_layer_norm True: nomic-embed-text-v1.5's
        recipe instead (its model card): layer norm over all dim values,
        the first dimensions (None: all), unit length."""
        texts, single = text_items(texts, "texts", c_string)
        dims = self.dim if dimensions is None else integer(dimensions, "dimensions", 1, self.dim)
        fields = {"normalize": -1 if normalize is None else flag(normalize, "normalize"),
                  "dimensions": 0 if dimensions is None else dims,
                  "dimensions_layer_norm": flag(dimensions_layer_norm, "dimensions_layer_norm")}
        if prompt_name is not None:
            fields["prompt_name"] = c_string(prompt_name, "prompt_name")
        out = self._run(lib.tf_pipeline_embed, texts, None, dims, batch_size, **fields)
        return out[0] if single else out


def _pair(p, name):
    """(query, passage) of p, a sequence of exactly two texts, as C strings
    named name[0] and name[1]."""
    pair = items(p, name, "a (query, passage) pair of two texts")
    if len(pair) != 2:
        raise ValueError(f"{name}: expected a (query, passage) pair of two texts, got "
                         f"{type(p).__name__} of {len(pair)}")
    return c_string(pair[0], f"{name}[0]"), c_string(pair[1], f"{name}[1]")


class CrossEncoder(_Pipeline):
    """CrossEncoder.from_dir(path): a *ForSequenceClassification
    reranker; predict() and rank() as sentence-transformers' CrossEncoder."""
    _kinds = ("cross-encoder", "classifier")

    @property
    def num_labels(self):
        with self._handle.borrow() as h:
            return lib.tf_pipeline_dim(h)

    def _score(self, queries, passages, batch_size):
        """The scores of (queries[i], passages[i]), C strings: [n] or [n, labels]."""
        out = self._run(lib.tf_pipeline_score, queries, passages, self.num_labels, batch_size)
        return out[:, 0] if self.num_labels == 1 else out

    def predict(self, pairs, batch_size=32):
        """Scores of (query, passage) pairs: [n] for one label (its sigmoid),
        else [n, labels] logits. One pair (a list or tuple of two texts, as
        sentence-transformers takes it): its score, or its [labels]."""
        pairs = items(pairs, "pairs", "a (query, passage) pair or a list of them")
        single = bool(pairs) and isinstance(pairs[0], (str, bytes))
        pairs = [_pair(pairs, "pairs")] if single else \
            [_pair(p, f"pairs[{i}]") for i, p in enumerate(pairs)]
        out = self._score([q for q, _ in pairs], [p for _, p in pairs], batch_size)
        return out[0] if single else out

    def rank(self, query, documents, top_k=None, return_documents=False, batch_size=32):
        """[{"corpus_id", "score"(, "text")}] best first, the top_k (None:
        all) of them; a model of one label, as sentence-transformers' rank."""
        if self.num_labels != 1:
            raise ValueError(f"rank: takes a model of one label, this one has {self.num_labels}; "
                             f"predict() gives each label's score")
        query = c_string(query, "query")
        documents = items(documents, "documents", "a list of texts")
        passages = [c_string(d, f"documents[{i}]") for i, d in enumerate(documents)]
        top_k, return_documents = _top_k(top_k), flag(return_documents, "return_documents")
        scores = self._score([query] * len(passages), passages, batch_size)
        order = sorted(range(len(documents)), key=lambda i: -float(scores[i]))[:top_k]
        return [dict({"corpus_id": i, "score": float(scores[i])},
                     **({"text": documents[i]} if return_documents else {})) for i in order]


class Classifier(_Pipeline):
    """Classifier.from_dir(path): a *ForSequenceClassification model;
    calling it gives label dicts as transformers' text-classification
    pipeline (softmax, or sigmoid for multi-label and one-label models)."""
    _kinds = ("classifier", "cross-encoder")

    @property
    def labels(self):
        with self._handle.borrow() as h:
            return [lib.tf_pipeline_label(h, i).decode() for i in range(lib.tf_pipeline_dim(h))]

    def predict_proba(self, texts, pairs=None, batch_size=32):
        """[n, labels] probabilities."""
        texts, pairs, _ = text_pair_items(texts, pairs, ("texts", "pairs"), c_string)
        return self._run(lib.tf_pipeline_classify, texts, pairs, len(self.labels), batch_size)

    def __call__(self, texts, top_k=1, batch_size=32):
        """Per text, the top_k (>= 1; None: every) labels as {"label",
        "score"}, best first (one text: its list)."""
        top_k = _top_k(top_k)
        texts, single = text_items(texts, "texts", c_string)
        labels = self.labels
        probs = self._run(lib.tf_pipeline_classify, texts, None, len(labels), batch_size)
        out = []
        for row in probs:
            order = sorted(range(len(labels)), key=lambda k: -float(row[k]))[:top_k]
            out.append([{"label": labels[k], "score": float(row[k])} for k in order])
        return out[0] if single else out


_AGGREGATIONS = tuple(lib.tf_aggregation_name(k).decode()  # tf_aggregation's, in order
                      for k in itertools.takewhile(lib.tf_aggregation_name, itertools.count()))


class TokenClassifier(_Pipeline):
    """TokenClassifier.from_dir(path): a *ForTokenClassification model;
    calling it gives entities as transformers' token-classification
    pipeline: {"entity_group", "score", "word", "start", "end"} (aggregation
    "none": {"entity", "score", "index", "word", "start", "end"}), start and
    end in characters of the text, word the tokenizer's decoding of its
    tokens (the pipeline's convert_tokens_to_string)."""
    _kinds = ("token-classifier",)

    def _entities(self, raw, aggregation):
        """The entities of raw, a text as c_string gives it."""
        e = ctypes.c_void_p()
        with self._handle.borrow() as h:
            check(lib.tf_pipeline_entities(h, raw, aggregation, ctypes.byref(e)))
        try:
            out = []
            for i in range(lib.tf_entities_count(e)):
                start, end = lib.tf_entities_start(e, i), lib.tf_entities_end(e, i)
                chars = len(raw[:start].decode()), len(raw[:end].decode())
                item = {"entity_group" if aggregation else "entity":
                        lib.tf_entities_label(e, i).decode(),
                        "score": float(lib.tf_entities_score(e, i))}
                if not aggregation:
                    item["index"] = lib.tf_entities_index(e, i)
                item.update(word=lib.tf_entities_word(e, i).decode(), start=chars[0], end=chars[1])
                out.append(item)
            return out
        finally:
            lib.tf_entities_destroy(e)

    def __call__(self, texts, aggregation_strategy="simple"):
        """The entities of one text (a list), or of each of several."""
        if aggregation_strategy not in _AGGREGATIONS:
            raise ValueError(f"aggregation_strategy: expected one of {', '.join(_AGGREGATIONS)}, "
                             f"got {aggregation_strategy!r}")
        aggregation = _AGGREGATIONS.index(aggregation_strategy)
        texts, single = text_items(texts, "texts", c_string)
        out = [self._entities(t, aggregation) for t in texts]
        return out[0] if single else out
