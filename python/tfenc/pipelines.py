"""Model folders as transformers and sentence-transformers use them, each over
the C library's tf_pipeline: the base of every pipeline class (loading,
batches, the folder's tokenizer) and transformers' text-classification and
token-classification pipelines (tfenc.Classifier, tfenc.TokenClassifier);
sentence-transformers' classes are in sentence_transformer.py and
cross_encoder.py."""
import collections.abc
import contextlib
import ctypes
import enum
import itertools
import os
import pathlib
import re
import warnings

import numpy as np

from . import _lib, hub
from ._args import c_path, c_string, flag, integer, items, text_pair_items
from ._handle import Borrowed, Handle, Owner
from ._lib import P, c_float, c_int32, c_size_t, check, lib
from ._progress import progress
from .errors import TfencError
from .tokenizer import Tokenizer

VP, CP = ctypes.c_void_p, ctypes.c_char_p


class PipelineOptions(ctypes.Structure):  # since 0.3.0
    c_name = "tf_pipeline_options"
    _fields_ = [("struct_size", c_size_t), ("max_seq_length", c_int32),
                ("truncation_error", c_int32), ("kind", c_int32)]  # kind since 0.5.0


class PipelineArgs(ctypes.Structure):  # since 0.3.0
    c_name = "tf_pipeline_args"
    _fields_ = [("struct_size", c_size_t), ("n", c_size_t), ("texts", P(CP)), ("pairs", P(CP)),
                ("prompt_name", CP), ("normalize", c_int32), ("dimensions", c_int32),
                ("batch_size", c_int32), ("n_threads", c_int32), ("out", P(c_float)),
                ("truncated", P(c_size_t)),
                ("dimensions_layer_norm", c_int32), ("out_len", c_size_t),  # since 0.4.0
                ("is_query", c_int32), ("max_active_dims", c_int32),  # since 0.5.0
                ("first_index", c_size_t)]


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
    ("tf_pipeline_tokenizer", VP, [VP]),  # since 0.4.0
    ("tf_pipeline_logits", ctypes.c_int, [VP, P(PipelineArgs)]),  # since 0.4.0
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


def _kind_value(name):
    """The tf_pipeline_kind named name (tf_pipeline_kind_name's table: one source)."""
    kind = 0
    while lib.tf_pipeline_kind_name(kind) not in (None, name.encode()):
        kind += 1
    if lib.tf_pipeline_kind_name(kind) is None:
        raise RuntimeError(f"the library has no pipeline kind {name!r}")
    return kind


def top_k_of(top_k):
    """top_k as a call takes it: None (every one) or a count >= 1."""
    return None if top_k is None else integer(top_k, "top_k", 1)


def name_of(value, name, choices):
    """value (a str, any case, or an Enum whose value is one) as one of
    choices (lower case names)."""
    if isinstance(value, enum.Enum):
        value = value.value
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected one of {', '.join(choices)}, got "
                        f"{type(value).__name__} {value!r}")
    if value.lower() not in choices:
        raise ValueError(f"{name}: expected one of {', '.join(choices)}, got {value!r}")
    return value.lower()


def _renamed(error, first, where):
    """error of a C call over inputs first.. with its "input N", "text N" or
    "pair N" (N counted from that call's first) as where(first + N) names it."""
    if where is None:
        return error

    def name(m):
        return where(first + int(m.group(2)))[("input", "text", "pair").index(m.group(1))]
    return type(error)(re.sub(r"\b(input|text|pair) (\d+)\b", name, str(error), count=1),
                       error.status)


def _from(array, first):
    """A pointer to array[first:] (array a ctypes array of C strings)."""
    return ctypes.cast(ctypes.addressof(array) + first * ctypes.sizeof(CP), P(CP))


class _Pipeline(Owner):
    """A model folder loaded once; use it from many threads at once."""
    _kinds = ()
    _organization = None  # put before a bare Hub name (SentenceTransformer's), or none

    def __init__(self, path, *, max_seq_length=None, truncation_error=False, revision=None,
                 cache_folder=None, token=None, local_files_only=False):
        """path: a folder, or a Hugging Face Hub id (hub.model_folder: revision,
        cache_folder, token and local_files_only as sentence-transformers takes
        them); max_seq_length None: the folder's; truncation_error True: an
        input longer than it is an error, not cut."""
        self._path = hub.model_folder(path, revision=revision, cache_folder=cache_folder,
                                      token=token, local_files_only=local_files_only,
                                      organization=self._organization)
        self._truncation_error = flag(truncation_error, "truncation_error")
        self._handle = self._load(max_seq_length)
        kind = self.kind
        if kind not in self._kinds:
            self.close()
            raise ValueError(f"{path}: the folder's kind is {kind}; {type(self).__name__} reads "
                             f"{' or '.join(self._kinds)} folders")
        self.truncated = 0  # inputs cut to max_seq_length by the last call

    def _load(self, max_seq_length):
        """A Handle on the folder loaded with these options."""
        o = _lib.new(PipelineOptions)
        if max_seq_length is not None:  # else the library's 0: the folder's
            o.max_seq_length = integer(max_seq_length, "max_seq_length", 1)
        o.truncation_error = self._truncation_error
        if "fill-mask" in self._kinds:  # a bare *ForMaskedLM folder with its head
            o.kind = _kind_value("fill-mask")
        handle = ctypes.c_void_p()
        check(lib.tf_pipeline_load(self._path, ctypes.byref(o), ctypes.byref(handle)))
        return Handle(handle, lib.tf_pipeline_destroy, type(self).__name__)

    @contextlib.contextmanager
    def _borrow(self):
        """self._handle.borrow(), of the handle held when the borrow begins:
        one that _reload has just replaced is borrowed again from its successor."""
        with contextlib.ExitStack() as stack:
            while True:
                handle = self._handle
                try:
                    ptr = stack.enter_context(handle.borrow())
                    break
                except ValueError:  # closed: for good, or replaced by _reload
                    if self._handle is handle:
                        raise
            yield ptr

    def _reload(self, max_seq_length):
        """The folder loaded again with another max_seq_length (a loaded
        tf_pipeline is immutable); the calls running on the old one finish
        first. On failure nothing changes."""
        fresh = self._load(max_seq_length)
        old, self._handle = self._handle, fresh
        old.close()

    @classmethod
    def from_dir(cls, path, **options):
        """The folder at path, never a Hub id (a path object, not a name)."""
        return cls(pathlib.Path(os.fsdecode(c_path(path))), **options)

    @property
    def kind(self):
        """"embedding", "cross-encoder", "classifier" or "token-classifier"."""
        with self._borrow() as h:
            return lib.tf_pipeline_kind_name(lib.tf_pipeline_kind_of(h)).decode()

    @property
    def max_seq_length(self):
        """Tokens per input (or pair), special tokens included; longer ones are cut."""
        with self._borrow() as h:
            return lib.tf_pipeline_max_seq_length(h)

    @property
    def tokenizer(self):
        """The folder's tokenizer as its calls use it (cutting to
        max_seq_length), a tfenc.Tokenizer that lives as long as this
        pipeline."""
        tok = Tokenizer.__new__(Tokenizer)
        tok._handle = Borrowed(self, lib.tf_pipeline_tokenizer)
        return tok

    def _run(self, fn, texts, pairs, width, batch_size, show_progress_bar=False, where=None,
             **fields):
        """[len(texts), width] float32 of fn over texts (and as many pairs),
        each NUL-terminated UTF-8 bytes (c_string's): a C call per
        batch_size of them, one pipeline throughout. where(i): the caller's
        names of input i (input, text, pair), for the library's errors."""
        batch_size = integer(batch_size, "batch_size", 1)
        out = np.zeros((len(texts), width), dtype=np.float32)
        t = (CP * len(texts))(*texts)  # [n] pointers into texts' bytes
        p = (CP * len(pairs))(*pairs) if pairs is not None else None  # [n] into pairs'
        a = _lib.new(PipelineArgs)
        a.batch_size = batch_size
        for k, v in fields.items():
            setattr(a, k, v)
        truncated, cut = c_size_t(0), 0
        a.truncated = ctypes.pointer(truncated)
        bar = progress(-(-len(texts) // batch_size), show_progress_bar)
        try:
            with self._borrow() as h:
                for first in range(0, len(texts), batch_size):
                    n = min(batch_size, len(texts) - first)
                    a.n = n
                    a.texts = _from(t, first)
                    if p is not None:
                        a.pairs = _from(p, first)
                    rows = out[first:first + n]  # [n, width], C-contiguous
                    a.out, a.out_len = rows.ctypes.data_as(P(c_float)), rows.size
                    try:
                        check(fn(h, ctypes.byref(a)))
                    except TfencError as e:
                        raise _renamed(e, first, where) from None
                    cut += truncated.value
                    bar.update(1)
        finally:
            bar.close()
        self.truncated = cut
        return out


# ---- transformers' text-classification pipeline ----------------------------------------------

_NOT_GIVEN = object()  # top_k left out: the pipeline's legacy form


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _softmax(x):
    shifted = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


# function_to_apply: transformers' ClassificationFunction on the logits (text_classification.py)
FUNCTIONS = {"sigmoid": _sigmoid, "softmax": _softmax, "none": lambda x: x}
_INPUT = 'a str, a {"text", "text_pair"} dict or a list of them'


def _text_pair(value, name):
    """(text, pair or None) of one input as transformers' pipeline takes it:
    a str (or bytes), a {"text", "text_pair"} dict, or [[text, pair]] (its
    older form)."""
    if isinstance(value, (str, bytes)):
        return c_string(value, name), None
    if isinstance(value, collections.abc.Mapping):
        keys = set(value)
        if "text" not in keys or keys - {"text", "text_pair"}:
            raise TypeError(f'{name}: expected a {{"text", "text_pair"}} dict, got dict with '
                            f"keys {sorted(map(str, keys))}")
        pair = value.get("text_pair")
        return (c_string(value["text"], f'{name}["text"]'),
                None if pair is None else c_string(pair, f'{name}["text_pair"]'))
    if isinstance(value, list):
        if len(value) == 1 and isinstance(value[0], list) and len(value[0]) == 2:
            return c_string(value[0][0], f"{name}[0][0]"), c_string(value[0][1], f"{name}[0][1]")
        raise ValueError(f'{name}: a list is not one input; a text pair is {{"text": ..., '
                         f'"text_pair": ...}}')
    raise TypeError(f"{name}: expected a str or a {{\"text\", \"text_pair\"}} dict, got "
                    f"{type(value).__name__}")


def classification_inputs(inputs, name):
    """([(text, pair or None)], single) of a text-classification call: a
    str or a dict is one input; a list (numpy array, generator) several; a
    tuple (a pair, or two texts?) and anything else a TypeError."""
    if isinstance(inputs, (str, bytes, collections.abc.Mapping)):
        return [_text_pair(inputs, name)], True
    if isinstance(inputs, tuple):
        raise TypeError(f"{name}: expected {_INPUT}, got tuple (a text pair is "
                        f'{{"text": ..., "text_pair": ...}}; several texts, a list)')
    values = items(inputs, name, _INPUT)
    return [_text_pair(v, f"{name}[{i}]") for i, v in enumerate(values)], False


class Classifier(_Pipeline):
    """Classifier(path): a *ForSequenceClassification folder (or Hub id:
    revision=, cache_folder=, token=, local_files_only=), called as
    transformers' text-classification pipeline (TextClassificationPipeline)
    is, and returning what it returns."""
    _kinds = ("classifier", "cross-encoder")

    @property
    def labels(self):
        with self._borrow() as h:
            return [lib.tf_pipeline_label(h, i).decode() for i in range(lib.tf_pipeline_dim(h))]

    def _scores(self, inputs, function_to_apply, batch_size, single):
        """[n, labels]: function_to_apply (None: the folder's) of each input's
        logits; single: inputs is the caller's one input."""
        if function_to_apply is not None:
            function_to_apply = FUNCTIONS[name_of(function_to_apply, "function_to_apply",
                                                  FUNCTIONS)]
        fn = lib.tf_pipeline_classify if function_to_apply is None else lib.tf_pipeline_logits
        width = len(self.labels)
        out = np.zeros((len(inputs), width), dtype=np.float32)
        for paired in (False, True):  # a C call takes inputs all with pairs or all without
            rows = [i for i, (_, pair) in enumerate(inputs) if (pair is not None) == paired]
            if rows:
                named = (lambda i: ("inputs",) * 3) if single else \
                    (lambda i, rows=rows: (f"inputs[{rows[i]}]",) * 3)
                out[rows] = self._run(fn, [inputs[i][0] for i in rows],
                                      [inputs[i][1] for i in rows] if paired else None,
                                      width, batch_size, where=named)
        return out if function_to_apply is None else function_to_apply(out)

    def predict_proba(self, inputs, pairs=None, batch_size=32):
        """[n, labels] probabilities ([labels] for one input: a str or a
        dict); pairs: each text's second segment (its form the texts')."""
        if pairs is None:
            inputs, single = classification_inputs(inputs, "inputs")
        else:
            texts, pairs, single = text_pair_items(inputs, pairs, ("inputs", "pairs"), c_string)
            inputs = list(zip(texts, pairs))
        out = self._scores(inputs, None, batch_size, single)
        return out[0] if single else out

    def __call__(self, inputs, top_k=_NOT_GIVEN, function_to_apply=None, return_all_scores=None,
                 batch_size=32):
        """As TextClassificationPipeline.__call__: inputs a str, a {"text",
        "text_pair"} dict or a list of them. top_k not given: each input's
        best label as {"label", "score"} (one str: a list of that one dict);
        top_k given (an int >= 1, or None: all labels): each input's list
        of that many, best first. function_to_apply "sigmoid", "softmax" or
        "none" on the logits; None (or "default"): the folder's (sigmoid
        for multi-label and one-label models, none for regression, else
        softmax). return_all_scores (deprecated there): with top_k not
        given, True gives every label in the model's order."""
        pairs, single = classification_inputs(inputs, "inputs")
        legacy = top_k is _NOT_GIVEN
        if not legacy:
            top_k = top_k_of(top_k)
        elif return_all_scores is not None:
            warnings.warn("`return_all_scores` is now deprecated,  if want a similar functionality "
                          "use `top_k=None` instead of `return_all_scores=True` or `top_k=1` "
                          "instead of `return_all_scores=False`.", UserWarning)
            top_k = None if flag(return_all_scores, "return_all_scores") else 1
        else:
            top_k = 1
        if isinstance(function_to_apply, str) and function_to_apply.lower() == "default":
            function_to_apply = None
        labels = self.labels
        out = [self._labelled(row, labels, top_k, legacy)
               for row in self._scores(pairs, function_to_apply, batch_size, single)]
        if not single:
            return out
        return [out[0]] if legacy and isinstance(inputs, (str, bytes)) else out[0]

    @staticmethod
    def _labelled(row, labels, top_k, legacy):
        """One input's result as the pipeline's postprocess makes it."""
        if legacy and top_k == 1:
            return {"label": labels[int(row.argmax())], "score": float(row.max())}
        scored = [{"label": label, "score": float(s)} for label, s in zip(labels, row)]
        if not legacy:
            scored.sort(key=lambda d: d["score"], reverse=True)
            scored = scored[:top_k]
        return scored


# ---- transformers' token-classification pipeline ---------------------------------------------

AGGREGATIONS = tuple(lib.tf_aggregation_name(k).decode()  # tf_aggregation's, in order
                     for k in itertools.takewhile(lib.tf_aggregation_name, itertools.count()))


class TokenClassifier(_Pipeline):
    """TokenClassifier(path): a *ForTokenClassification folder (or Hub id,
    as Classifier's), called as
    transformers' token-classification pipeline (TokenClassificationPipeline)
    is: entities {"entity_group", "score", "word", "start", "end"}
    (aggregation "none": {"entity", "score", "index", "word", "start",
    "end"}), start and end in characters of the text, word the
    tokenizer's decoding of its tokens (the pipeline's
    convert_tokens_to_string); "O" tokens left out."""
    _kinds = ("token-classifier",)

    def _entities(self, raw, aggregation):
        """The entities of raw, a text as c_string gives it."""
        e = ctypes.c_void_p()
        with self._borrow() as h:
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

    def __call__(self, inputs, aggregation_strategy="none"):
        """The entities of one text (a str: a list), or a list of them for
        each of several (a list or tuple); aggregation_strategy "none" (the
        pipeline's default), "simple", "first", "average" or "max" (any
        case, or transformers' AggregationStrategy)."""
        aggregation = AGGREGATIONS.index(name_of(aggregation_strategy, "aggregation_strategy",
                                                 AGGREGATIONS))
        if isinstance(inputs, (str, bytes)):
            return self._entities(c_string(inputs, "inputs"), aggregation)
        texts = items(inputs, "inputs", "a str, bytes or a list of them")
        return [self._entities(c_string(t, f"inputs[{i}]"), aggregation)
                for i, t in enumerate(texts)]
