"""transformers' fill-mask pipeline (pipelines/fill_mask.py, FillMaskPipeline)
over the C library's tf_pipeline_fill_mask: tfenc.FillMask(path) on a
*ForMaskedLM folder."""
import ctypes

from . import _lib
from ._args import c_string, integer, items
from ._lib import P, c_float, c_int32, c_size_t, check, lib
from .pipelines import CP, VP, _Pipeline

for _name, _res, _args in [
    ("tf_pipeline_fill_mask", ctypes.c_int, [VP, CP, c_int32, P(VP)]),  # since 0.5.0
    ("tf_fill_mask_destroy", None, [VP]),
    ("tf_fill_mask_count", c_size_t, [VP]),
    ("tf_fill_mask_top_k", c_int32, [VP]),
    ("tf_fill_mask_token", c_int32, [VP, c_size_t, c_int32]),
    ("tf_fill_mask_score", c_float, [VP, c_size_t, c_int32]),
    ("tf_fill_mask_token_str", CP, [VP, c_size_t, c_int32]),
    ("tf_fill_mask_sequence", CP, [VP, c_size_t, c_int32]),
]:
    _lib._declare(_name, _res, *_args)


class FillMask(_Pipeline):
    """FillMask(path): a *ForMaskedLM folder (or Hub id, as Classifier's),
    called as transformers' fill-mask pipeline is: for a text with one mask
    token (the tokenizer's mask_token, [MASK] or <mask>) a list of top_k
    {"score", "token", "token_str", "sequence"}, best first; with several,
    a list of such lists, one a mask; for a list of texts, a list of those.
    score is the softmax of the masked-LM head's logits there, token_str
    the token decoded, sequence the text decoded with it in the mask's
    place (special tokens skipped when the text has one mask)."""
    _kinds = ("fill-mask",)

    def _fill(self, raw, top_k):
        """The predictions of raw, a text as c_string gives it."""
        m = ctypes.c_void_p()
        with self._borrow() as h:
            check(lib.tf_pipeline_fill_mask(h, raw, top_k, ctypes.byref(m)))
        try:
            rows = [[{"score": float(lib.tf_fill_mask_score(m, i, k)),
                      "token": lib.tf_fill_mask_token(m, i, k),
                      "token_str": lib.tf_fill_mask_token_str(m, i, k).decode(),
                      "sequence": lib.tf_fill_mask_sequence(m, i, k).decode()}
                     for k in range(lib.tf_fill_mask_top_k(m))]
                    for i in range(lib.tf_fill_mask_count(m))]
        finally:
            lib.tf_fill_mask_destroy(m)
        return rows[0] if len(rows) == 1 else rows

    def __call__(self, inputs, top_k=5):
        """The predictions of one text (a str), or a list of them for each
        of several (a list or tuple); top_k: predictions a mask (>= 1,
        FillMaskPipeline's default 5)."""
        top_k = integer(top_k, "top_k", 1)
        if isinstance(inputs, (str, bytes)):
            return self._fill(c_string(inputs, "inputs"), top_k)
        texts = items(inputs, "inputs", "a str, bytes or a list of them")
        return [self._fill(c_string(t, f"inputs[{i}]"), top_k) for i, t in enumerate(texts)]
