"""tfenc.CrossEncoder: sentence-transformers' CrossEncoder (5.x,
sentence_transformers/cross_encoder/CrossEncoder.py) by its names, over a
*ForSequenceClassification folder that tf_pipeline runs: predict, rank,
num_labels, max_length, activation_fn, tokenizer."""
import numpy as np

from ._args import c_string, flag, integer, items
from ._lib import lib
from ._tensors import convert, import_torch, is_tensor
from .pipelines import _Pipeline, _softmax, top_k_of
from .sentence_transformer import cpu_only


def _apply(activation_fn, logits):
    """activation_fn of logits [n, labels] float32: a torch module (or any
    callable of tensors, once torch is imported) gets a torch tensor."""
    if type(activation_fn).__module__.startswith("torch"):
        torch = import_torch("a torch activation_fn")
        out = activation_fn(torch.from_numpy(logits))
    else:
        out = activation_fn(logits)
    out = np.asarray(out.detach().cpu().numpy() if is_tensor(out) else out, dtype=np.float32)
    if out.shape != logits.shape:
        raise ValueError(f"activation_fn: gave shape {out.shape} for logits of {logits.shape}")
    return out


def _pair(p, name):
    """(query, passage) of p, a sequence of exactly two texts, as C strings."""
    pair = items(p, name, "a (query, passage) pair of two texts")
    if len(pair) != 2:
        raise ValueError(f"{name}: expected a (query, passage) pair of two texts, got "
                         f"{type(p).__name__} of {len(pair)}")
    return c_string(pair[0], f"{name}[0]"), c_string(pair[1], f"{name}[1]")


class CrossEncoder(_Pipeline):
    """CrossEncoder(model_name_or_path): a *ForSequenceClassification
    folder, used as sentence-transformers' CrossEncoder is: a path, or a
    Hugging Face Hub id from the Hub's cache (cache_folder None: the
    environment's) or downloaded into it (revision, token,
    local_files_only as upstream). max_length
    (None: the folder's) cuts each pair; activation_fn turns logits into
    scores (None: the folder's, which the library applies as
    tf_pipeline_score: the class config.json names, else Sigmoid for one
    label, Identity for more); num_labels, if given, must be the folder's;
    device None or "cpu"; trust_remote_code is accepted (no code from a
    folder runs: a config.json naming an activation the library does not
    compute is refused at load)."""
    _kinds = ("cross-encoder", "classifier")

    def __init__(self, model_name_or_path, num_labels=None, max_length=None, activation_fn=None,
                 device=None, cache_folder=None, trust_remote_code=False, revision=None,
                 local_files_only=False, token=None, *, truncation_error=False):
        cpu_only(device)
        flag(trust_remote_code, "trust_remote_code")
        super().__init__(model_name_or_path, max_seq_length=max_length,
                         truncation_error=truncation_error, revision=revision,
                         cache_folder=cache_folder, token=token,
                         local_files_only=local_files_only)
        try:
            if num_labels is not None and integer(num_labels, "num_labels", 1) != self.num_labels:
                raise ValueError(f"num_labels: the folder's head has {self.num_labels} labels, "
                                 f"got {num_labels}")
        except BaseException:
            self.close()
            raise
        self.activation_fn = activation_fn  # None: the folder's (tf_pipeline_score)

    @property
    def num_labels(self):
        with self._borrow() as h:
            return lib.tf_pipeline_dim(h)

    @property
    def max_length(self):
        """Tokens per pair, special tokens included; a longer pair is cut,
        the longer text first. Setting it loads the folder again with that
        limit (a loaded tf_pipeline cannot change it): 3 .. the model's
        positions."""
        return self.max_seq_length

    @max_length.setter
    def max_length(self, value):
        self._reload(integer(value, "max_length", 1))

    def _scores(self, fn, pairs, single, batch_size, show_progress_bar):
        """[n, labels] of fn (tf_pipeline_score or tf_pipeline_logits) on pairs
        [(query, passage)] (C strings), the caller's one pair if single."""
        def where(i):
            name = "sentences" if single else f"sentences[{i}]"
            return name, f"{name}[0]", f"{name}[1]"
        return self._run(fn, [q for q, _ in pairs], [p for _, p in pairs], self.num_labels,
                         batch_size, show_progress_bar, where)

    def predict(self, sentences, batch_size=32, show_progress_bar=None, activation_fn=None,
                apply_softmax=False, convert_to_numpy=True, convert_to_tensor=False):
        """Scores of (query, passage) pairs as CrossEncoder.predict gives
        them: activation_fn of the logits (None: self.activation_fn, and
        while that is None the folder's, as the library applies it; given,
        it stays this model's, as upstream's set_activation_fn), softmax
        over the labels if apply_softmax; [n] for one label, [n, labels]
        else; one pair (a list or tuple of two texts): its score (a numpy
        float32), or [labels].
        convert_to_tensor: a torch tensor; convert_to_numpy False: a list
        of torch tensors."""
        if isinstance(sentences, (list, tuple)) and sentences and \
                isinstance(sentences[0], (str, bytes)):
            pairs, single = [_pair(sentences, "sentences")], True
        else:
            values = items(sentences, "sentences", "a (query, passage) pair or a list of them")
            pairs, single = [_pair(p, f"sentences[{i}]") for i, p in enumerate(values)], False
        apply_softmax = flag(apply_softmax, "apply_softmax")
        if activation_fn is not None:
            if not callable(activation_fn):
                raise TypeError(f"activation_fn: expected a callable, got "
                                f"{type(activation_fn).__name__}")
            self.activation_fn = activation_fn
        if self.activation_fn is None:  # the folder's: the library applies it
            scores = self._scores(lib.tf_pipeline_score, pairs, single, batch_size,
                                  show_progress_bar)
        else:
            logits = self._scores(lib.tf_pipeline_logits, pairs, single, batch_size,
                                  show_progress_bar)
            scores = _apply(self.activation_fn, logits)
        if apply_softmax:
            scores = _softmax(scores)
        if self.num_labels == 1:
            scores = np.ascontiguousarray(scores[:, 0])  # [n]
        return convert(scores, single, convert_to_numpy, convert_to_tensor)

    def rank(self, query, documents, top_k=None, return_documents=False, batch_size=32,
             show_progress_bar=None, activation_fn=None, apply_softmax=False,
             convert_to_numpy=True, convert_to_tensor=False):
        """[{"corpus_id", "score"(, "text")}] of documents (a list of texts)
        best first, the top_k (None: all) of them, as CrossEncoder.rank; a
        model of one label."""
        if self.num_labels != 1:
            raise ValueError("CrossEncoder.rank() only works for models with num_labels=1. "
                             "Consider using CrossEncoder.predict() with input pairs instead.")
        c_string(query, "query")
        documents = items(documents, "documents", "a list of texts")
        for i, d in enumerate(documents):
            c_string(d, f"documents[{i}]")
        top_k, return_documents = top_k_of(top_k), flag(return_documents, "return_documents")
        scores = self.predict([(query, d) for d in documents], batch_size, show_progress_bar,
                              activation_fn, apply_softmax, convert_to_numpy, convert_to_tensor)
        ranked = [dict({"corpus_id": i, "score": score},
                       **({"text": documents[i]} if return_documents else {}))
                  for i, score in enumerate(scores)]
        ranked.sort(key=lambda r: r["score"], reverse=True)
        return ranked[:top_k]
